import type { IDataObject } from 'n8n-workflow';

import {
	readState,
	STATE_VERSION,
	unlessAlreadyPolling,
	writeState,
	LAST_ID,
} from '../../nodes/FormsWtf/trigger/state';
import type { TriggerState } from '../../nodes/FormsWtf/trigger/state';

const LOOK_BACK_MS = 600_000;
const state: TriggerState = {
	version: STATE_VERSION,
	scope: 'all',
	rev: 4,
	activatedAtMs: 1_000,
	forms: { f1: { since: '2026-01-01T00:00:00.000Z', seen: { r1: 5 } } },
};
const read = (staticData: IDataObject, scope = 'all') => readState(staticData, scope, LOOK_BACK_MS);

/**
 * What the first release stored (state version 1), as n8n keeps it in the workflow's static
 * data: a cut read of form f2 with `resumeOffset`, an All Forms form with its listing, a
 * form missing from the listing, a backfill still running on f4.
 */
const STORED_BY_VERSION_1: IDataObject = {
	version: 1,
	scope: 'all',
	rev: 12,
	activatedAtMs: Date.parse('2026-11-20T10:00:00.000Z'),
	failures: 2,
	forms: {
		f1: {
			since: '2026-11-23T09:50:00.000Z',
			seen: { a: Date.parse('2026-11-23T09:55:00.000Z') },
			newestMs: Date.parse('2026-11-23T10:00:00.000Z'),
			listedCount: 7,
			listedUpdatedAt: '2026-11-01T00:00:00.000Z',
			readAtRev: 11,
		},
		f2: {
			since: '2026-11-23T09:00:00.000Z',
			seen: { b: Date.parse('2026-11-23T09:30:00.000Z') },
			resumeOffset: 4000,
		},
		f3: {
			since: '2026-11-22T00:00:00.000Z',
			seen: {},
			unlistedSinceMs: Date.parse('2026-11-22T00:00:00.000Z'),
		},
	},
};

describe('trigger state in static data', () => {
	it('reads a copy: changing it does not change what n8n stored until it is written', () => {
		const staticData: IDataObject = {};
		writeState(staticData, state);
		const copy = read(staticData).state as TriggerState;
		copy.forms.f1.seen.r2 = 9;
		copy.rev = 99;
		expect(read(staticData)).toEqual({ state, restartAtNow: [], repairs: [] });
	});

	it('reads nothing for another scope, and writes only its own keys', () => {
		const staticData: IDataObject = { stale: true };
		writeState(staticData, { ...state, failures: 2 });
		expect(read(staticData, 'form:x').state).toBeUndefined();
		expect(Object.keys(staticData).sort()).toEqual([
			'activatedAtMs',
			'failures',
			'forms',
			'rev',
			'scope',
			'version',
		]);
		writeState(staticData, state);
		expect(staticData.failures).toBeUndefined();
	});

	it('keeps the date to emit from, and reads a state stored before it existed as it was', () => {
		const staticData: IDataObject = {};
		writeState(staticData, { ...state, emitSinceMs: 500 });
		expect(read(staticData).state?.emitSinceMs).toBe(500);
		// Stored by the release before the date existed: the same state, nothing repaired.
		const before = JSON.parse(JSON.stringify(state)) as IDataObject;
		expect(read(before)).toEqual({ state, restartAtNow: [], repairs: [] });
		expect(read({ ...before, emitSinceMs: 'soon' })).toMatchObject({
			state,
			repairs: ['the date to emit from was unreadable: forms listed later start at the activation'],
		});
	});

	it('migrates what version 1 stored: everything kept, a cut read goes on from its since (seen drops repeats)', () => {
		const { state: migrated, repairs, restartAtNow } = read(structuredClone(STORED_BY_VERSION_1));
		expect(repairs).toEqual([]);
		expect(restartAtNow).toEqual([]);
		const forms = STORED_BY_VERSION_1.forms as Record<string, IDataObject>;
		expect(migrated).toEqual({
			version: STATE_VERSION,
			scope: 'all',
			rev: 12,
			activatedAtMs: STORED_BY_VERSION_1.activatedAtMs,
			failures: 2,
			forms: {
				f1: forms.f1,
				f2: { since: forms.f2.since, seen: forms.f2.seen, resume: { offset: 0, anchors: [] } },
				f3: forms.f3,
			},
		});
		const staticData = structuredClone(STORED_BY_VERSION_1);
		writeState(staticData, migrated as TriggerState);
		expect(staticData.version).toBe(STATE_VERSION);
	});

	it.each<[string, unknown, Record<string, unknown> | 'now']>([
		['not an object', 'garbage', 'now'],
		['null', null, 'now'],
		['since not a date, no newest', { since: 'yesterday', seen: {} }, 'now'],
		[
			'since missing, newest known',
			{ seen: {}, newestMs: 5_000_000 },
			{ floor: { atMs: 5_000_000, id: LAST_ID }, newestMs: 5_000_000, seen: {} },
		],
		[
			'seen not an object',
			{ since: '2026-01-01T00:00:00.000Z', seen: 'x', newestMs: 5_000_000 },
			{ floor: { atMs: 5_000_000, id: LAST_ID } },
		],
		['seen holding a string', { since: '2026-01-01T00:00:00.000Z', seen: { a: 'x' } }, 'now'],
		[
			'resume of the wrong shape',
			{ since: '2026-01-01T00:00:00.000Z', seen: { a: 1 }, resume: { offset: -1 } },
			{ resume: { offset: 0, anchors: [] }, seen: { a: 1 } },
		],
		[
			'floor of the wrong shape',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, floor: 7 },
			{ floor: { atMs: Date.parse('2026-01-01T00:00:00.000Z'), id: LAST_ID } },
		],
		[
			'undated not a list',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, undated: 'u' },
			{ since: '2026-01-01T00:00:00.000Z', seen: {} },
		],
	])(
		'repairs a cursor that is %s, without emitting again what it handled, and says so',
		(_name, cursor, expected) => {
			const {
				state: repaired,
				repairs,
				restartAtNow,
			} = read({
				...structuredClone(state),
				forms: { f1: cursor, ok: state.forms.f1 },
			} as IDataObject);
			expect(repairs).toHaveLength(1);
			expect(repairs[0]).toContain('form "f1"');
			expect(repaired?.forms.ok).toEqual(state.forms.f1);
			if (expected === 'now') {
				expect(restartAtNow).toEqual(['f1']);
				expect(repaired?.forms.f1).toBeUndefined();
			} else {
				expect(restartAtNow).toEqual([]);
				expect(repaired?.forms.f1).toMatchObject(expected);
				// A floor at the newest time read: nothing handled before can be emitted again.
				if ('floor' in expected)
					expect(Date.parse(repaired?.forms.f1.since as string)).toBeLessThanOrEqual(
						(expected.floor as { atMs: number }).atMs,
					);
			}
		},
	);

	it('an activation time that is not a number is taken from the earliest cursor, with a warning', () => {
		const { state: repaired, repairs } = read({
			...structuredClone(state),
			activatedAtMs: 'soon',
		} as IDataObject);
		expect(repaired?.activatedAtMs).toBe(Date.parse(state.forms.f1.since));
		expect(repaired?.forms).toEqual(state.forms);
		expect(repairs).toHaveLength(1);
	});

	it.each<[string, IDataObject]>([
		[
			'memory of handled responses unreadable',
			{ since: '2026-01-01T00:00:00.000Z', seen: { a: 'x' }, newestMs: 5_000_000, undated: ['u1'] },
		],
		[
			'a list of undated responses partly unreadable',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, undated: ['u1', 42] },
		],
	])(
		'keeps the readable responses without a date when %s: they are not emitted again',
		(_name, cursor) => {
			const { state: repaired, repairs } = read({
				...structuredClone(state),
				forms: { f1: cursor },
			} as IDataObject);
			expect(repairs).toHaveLength(1);
			expect(repaired?.forms.f1.undated).toEqual(['u1']);
		},
	);

	it.each<[string, IDataObject]>([
		[
			'an activation time that is not a number, and no cursor to take it from',
			{ activatedAtMs: 'soon', forms: { f1: 'x' } },
		],
		['forms that are not an object', { forms: [] }],
		['an unknown version', { version: 99 }],
	])('starts afresh, with a warning, on %s', (_name, patch) => {
		const { state: none, repairs } = read({ ...structuredClone(state), ...patch } as IDataObject);
		expect(none).toBeUndefined();
		expect(repairs).toHaveLength(1);
	});

	it("keeps a choosing form's polls without progress (the choice's count, not only those in a row)", () => {
		const choosing: TriggerState = {
			...structuredClone(state),
			choice: { limit: 3, forms: ['f1'], window: 0, chosen: [] },
			forms: { f1: { ...state.forms.f1, choice: 'reading', choiceStalls: 3, failedPolls: 1 } },
		};
		const staticData: IDataObject = {};
		writeState(staticData, choosing);
		expect(read(staticData)).toEqual({ state: choosing, restartAtNow: [], repairs: [] });
	});

	it('keeps the kind of a run of polls without progress, and drops anything else there', () => {
		const reported = structuredClone(state);
		reported.forms.f1 = {
			...reported.forms.f1,
			failedPolls: 5,
			failureReportedAt: 5,
			failedFor: 'keptMoving',
		};
		const staticData: IDataObject = {};
		writeState(staticData, reported);
		expect(read(staticData).state).toEqual(reported);
		for (const value of ['denied', true, 1]) {
			const odd = structuredClone(staticData);
			((odd.forms as IDataObject).f1 as IDataObject).failedFor = value;
			expect(read(odd).state?.forms.f1).not.toHaveProperty('failedFor');
		}
	});

	it('a rev or a choice of the wrong shape is repaired: no more existing responses are emitted', () => {
		const broken = {
			...structuredClone(state),
			rev: 'x',
			choice: { limit: 'ten' },
			forms: { f1: { ...state.forms.f1, choice: 'reading', newestMs: 7_000 } },
		} as unknown as IDataObject;
		const { state: repaired, repairs } = read(broken);
		expect(repairs).toHaveLength(2);
		expect(repaired?.rev).toBe(0);
		expect(repaired?.choice).toBeUndefined();
		expect(repaired?.forms.f1).toMatchObject({ floor: { atMs: 7_000, id: LAST_ID } });
		expect(repaired?.forms.f1.choice).toBeUndefined();
	});

	it('a backfill of version 2 of the wrong shape is repaired the same way', () => {
		const broken = {
			...structuredClone(state),
			version: 2,
			backfill: { limit: 'ten' },
			forms: { f1: { ...state.forms.f1, backfillOffset: 3, newestMs: 7_000 } },
		} as unknown as IDataObject;
		const { state: repaired, repairs } = read(broken);
		expect(repairs).toHaveLength(1);
		expect(repaired?.choice).toBeUndefined();
		expect(repaired?.forms.f1).toMatchObject({ floor: { atMs: 7_000, id: LAST_ID } });
		expect(repaired?.forms.f1.choice).toBeUndefined();
		expect(repaired?.forms.f1).not.toHaveProperty('backfillOffset');
	});

	it('keeps the page size a cut read stopped with: its resume starts a part of that page early', () => {
		const cut = structuredClone(state);
		cut.forms.f1.resume = { offset: 17, anchors: [{ id: 'r1', submittedAt: 'x' }], pageSize: 4 };
		const staticData: IDataObject = {};
		writeState(staticData, cut);
		expect(read(staticData).state?.forms.f1.resume).toEqual(cut.forms.f1.resume);
	});

	it.each(['drift', 'restarts', 'reached'] as const)(
		"keeps a cut read's %s, and drops one that is not a positive whole number",
		(field) => {
			const cut = structuredClone(state);
			const resume = { offset: 17, anchors: [{ id: 'r1', submittedAt: 'x' }], pageSize: 4 };
			cut.forms.f1.resume = { ...resume, [field]: 2 };
			const staticData: IDataObject = {};
			writeState(staticData, cut);
			expect(read(staticData).state?.forms.f1.resume).toEqual({ ...resume, [field]: 2 });
			for (const value of [-1, 0, 1.5, '2']) {
				const odd = structuredClone(staticData);
				((odd.forms as IDataObject).f1 as IDataObject).resume = { ...resume, [field]: value };
				expect(read(odd).state?.forms.f1.resume).toEqual(resume);
			}
		},
	);

	it("keeps a search's mark on a resume point, and drops one that is not true", () => {
		const cut = structuredClone(state);
		const resume = { offset: 4, anchors: [{ id: 'r1', submittedAt: 'x' }] };
		cut.forms.f1.resume = { ...resume, searching: true };
		const staticData: IDataObject = {};
		writeState(staticData, cut);
		expect(read(staticData).state?.forms.f1.resume).toEqual({ ...resume, searching: true });
		for (const value of [false, 1, 'true']) {
			const odd = structuredClone(staticData);
			((odd.forms as IDataObject).f1 as IDataObject).resume = { ...resume, searching: value };
			expect(read(odd).state?.forms.f1.resume).toEqual(resume);
		}
	});

	it('keeps the responses a resume point found its place by before its anchors, and drops a list that is not one of anchors', () => {
		const cut = structuredClone(state);
		const resume = { offset: 9, anchors: [{ id: 'r5', submittedAt: 'x' }] };
		const earlier = [
			{ id: 'r1', submittedAt: 'a', offset: 1 },
			{ id: 'r3', submittedAt: 'b', offset: 3 },
		];
		cut.forms.f1.resume = { ...resume, earlier };
		const staticData: IDataObject = {};
		writeState(staticData, cut);
		expect(read(staticData).state?.forms.f1.resume).toEqual({ ...resume, earlier });
		const odds = [
			[],
			'r1',
			[{ id: 'r1', offset: 1 }],
			[{ id: 1, submittedAt: 'a', offset: 1 }],
			[{ id: 'r1', submittedAt: 'a' }],
			[{ id: 'r1', submittedAt: 'a', offset: -1 }],
			[null],
		];
		for (const value of odds) {
			const odd = structuredClone(staticData);
			((odd.forms as IDataObject).f1 as IDataObject).resume = { ...resume, earlier: value };
			expect(read(odd).state?.forms.f1.resume).toEqual(resume);
		}
	});

	it('migrates version 2 stored in the middle of choosing the newest existing responses', () => {
		const activatedAtMs = Date.parse('2026-11-20T10:00:00.000Z');
		// What the release before stored: f1 still reading the day before activation from a bare
		// offset, f2 done with it, f3 left out (its floor at activation), two candidates kept.
		const storedByVersion2: IDataObject = {
			version: 2,
			scope: 'selected',
			rev: 3,
			activatedAtMs,
			forms: {
				f1: { since: '2026-11-20T09:49:59.999Z', seen: {}, backfillOffset: 19 },
				f2: { since: '2026-11-20T09:49:59.999Z', seen: {} },
				f3: {
					since: '2026-11-20T09:49:59.999Z',
					seen: {},
					floor: { atMs: activatedAtMs, id: LAST_ID },
				},
			},
			backfill: {
				limit: 5,
				forms: ['f1', 'f2'],
				window: 1,
				newest: [
					['f1', 'a', activatedAtMs - 5_000],
					['f2', 'b', activatedAtMs - 9_000],
				],
			},
		};
		const { state: migrated, repairs } = readState(storedByVersion2, 'selected', LOOK_BACK_MS);
		expect(repairs).toEqual([]);
		expect(migrated?.version).toBe(STATE_VERSION);
		expect(migrated?.choice).toEqual({
			limit: 5,
			forms: ['f1', 'f2'],
			window: 1,
			chosen: [
				['f1', 'a', activatedAtMs - 5_000],
				['f2', 'b', activatedAtMs - 9_000],
			],
		});
		// The bare offset is not trusted: f1 reads the day before activation again from its start.
		const dayBefore = new Date(activatedAtMs - 86_400_000 - 1).toISOString();
		expect(migrated?.forms.f1).toEqual({ since: dayBefore, seen: {}, choice: 'reading' });
		expect(migrated?.forms.f2).toEqual({ since: dayBefore, seen: {}, choice: 'read' });
		expect(migrated?.forms.f3).toEqual(
			storedByVersion2.forms && (storedByVersion2.forms as IDataObject).f3,
		);
		// Written back, it is the new shape: no backfill, no offsets.
		const staticData: IDataObject = { ...storedByVersion2 };
		writeState(staticData, migrated as TriggerState);
		expect(staticData).not.toHaveProperty('backfill');
		expect(JSON.stringify(staticData)).not.toContain('backfillOffset');
	});
});

/** A promise and the function that settles it: an ordering hook, no timers. */
function gate(): { opened: Promise<void>; open: () => void } {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => (open = resolve));
	return { opened, open };
}

describe('overlapping polls of one trigger', () => {
	it('a poll that starts while another runs returns nothing and does not run', async () => {
		const first = gate();
		const running = unlessAlreadyPolling('wf:node', 60_000, async () => {
			await first.opened;
			return 'first';
		});
		let secondRan = false;
		const second = await unlessAlreadyPolling('wf:node', 60_000, async () => {
			secondRan = true;
			return 'second';
		});
		expect(second).toBeUndefined();
		expect(secondRan).toBe(false);
		first.open();
		expect(await running).toBe('first');
	});

	it('holds nothing once the poll ended, also when it failed: the next poll runs', async () => {
		await expect(
			unlessAlreadyPolling('wf:failing', 60_000, async () => {
				throw new Error('poll failed');
			}),
		).rejects.toThrow('poll failed');
		expect(await unlessAlreadyPolling('wf:failing', 60_000, async () => 'next')).toBe('next');
	});

	it('other triggers poll at the same time', async () => {
		const first = gate();
		const running = unlessAlreadyPolling('wf:a', 60_000, async () => await first.opened);
		expect(await unlessAlreadyPolling('wf:b', 60_000, async () => 'b')).toBe('b');
		first.open();
		await running;
	});

	it('a poll that hangs past the stale time no longer blocks the next', async () => {
		const hung = gate();
		const running = unlessAlreadyPolling('wf:hung', 0, async () => await hung.opened);
		expect(await unlessAlreadyPolling('wf:hung', 0, async () => 'next')).toBe('next');
		hung.open();
		await running;
	});
});
