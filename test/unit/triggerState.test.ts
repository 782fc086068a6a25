import type { IDataObject } from 'n8n-workflow';

import { compareVersions } from '../../nodes/FormsWtf/trigger/read';
import {
	cursorFrom,
	readState,
	STATE_VERSION,
	unlessAlreadyPolling,
	writeState,
} from '../../nodes/FormsWtf/trigger/state';
import type { FormCursor, TriggerState } from '../../nodes/FormsWtf/trigger/state';

const ACTIVATED_MS = Date.parse('2026-11-20T10:00:00.000Z');
const HOUR_MS = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

/** A state of the current version with every part filled in. */
const state: TriggerState = {
	version: STATE_VERSION,
	scope: 'all',
	rev: 4,
	activatedAtMs: ACTIVATED_MS,
	failures: 1,
	emitSinceMs: ACTIVATED_MS - 24 * HOUR_MS,
	forms: {
		f1: {
			since: at(ACTIVATED_MS - 60_001),
			seen: { r1: ACTIVATED_MS - 5_000, r2: ACTIVATED_MS },
			floor: { atMs: ACTIVATED_MS, id: '' },
			failedPolls: 2,
			servedPolls: 1,
			namedAt: 1,
			listed: '7/2026-11-01T00:00:00.000Z',
			readAtRev: 3,
			keptTurn: true,
			unlistedSinceMs: ACTIVATED_MS + HOUR_MS,
		},
		f2: { since: at(ACTIVATED_MS + HOUR_MS), seen: {} },
	},
	choice: {
		count: 3,
		pending: ['f2'],
		done: ['f1'],
		chosen: [['f1', 'r1', ACTIVATED_MS - 5_000]],
	},
};
const read = (staticData: IDataObject, scope = 'all') => readState(staticData, scope);
const stored = (value: TriggerState): IDataObject => {
	const staticData: IDataObject = {};
	writeState(staticData, value);
	return staticData;
};
/** What n8n would hold had `patch` been stored over the state (a part of an unexpected shape). */
const storedWith = (patch: IDataObject): IDataObject => ({ ...stored(state), ...patch });

/**
 * What the first release stored (state version 1), as n8n keeps it in the workflow's static
 * data: a cut read of form f2 with `resumeOffset`, an All Forms form with its listing, a
 * form missing from the listing.
 */
const STORED_BY_VERSION_1: IDataObject = {
	version: 1,
	scope: 'all',
	rev: 12,
	activatedAtMs: ACTIVATED_MS,
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

/**
 * Version 2, stored in the middle of choosing the newest existing responses: f1 still reading
 * the day before activation from a bare offset, f2 done with it, f3 left out (its floor, the
 * first version emitted, at activation), two candidates kept.
 */
const DAY_BEFORE_SINCE = at(ACTIVATED_MS - 24 * HOUR_MS - 1);
const STORED_BY_VERSION_2: IDataObject = {
	version: 2,
	scope: 'selected',
	rev: 3,
	activatedAtMs: ACTIVATED_MS,
	forms: {
		f1: { since: DAY_BEFORE_SINCE, seen: {}, backfillOffset: 19 },
		f2: { since: DAY_BEFORE_SINCE, seen: {} },
		f3: { since: DAY_BEFORE_SINCE, seen: {}, floor: { atMs: ACTIVATED_MS, id: '\uffff' } },
	},
	backfill: {
		limit: 5,
		forms: ['f1', 'f2'],
		window: 1,
		newest: [
			['f1', 'a', ACTIVATED_MS - 5_000],
			['f2', 'b', ACTIVATED_MS - 9_000],
		],
	},
};

/**
 * Version 3, the release before: a read cut short with its resume point, responses without a
 * date, floors (the first version emitted: the activation, the oldest chosen), a form in a run
 * of failed polls already reported.
 */
const NEWEST_READ_MS = Date.parse('2026-11-23T10:00:00.000Z');
const STORED_BY_VERSION_3: IDataObject = {
	version: 3,
	scope: 'all',
	rev: 30,
	activatedAtMs: ACTIVATED_MS,
	failures: 1,
	forms: {
		cut: {
			since: '2026-11-23T09:50:00.000Z',
			seen: { a: NEWEST_READ_MS - 60_000 },
			newestMs: NEWEST_READ_MS,
			resume: {
				offset: 40,
				anchors: [{ id: 'a', submittedAt: at(NEWEST_READ_MS - 60_000) }],
				startedAtMs: NEWEST_READ_MS,
				pageSize: 20,
				drift: 2,
				restarts: 1,
				searching: true,
				earlier: [{ id: 'e', submittedAt: at(NEWEST_READ_MS - 90_000), offset: 20 }],
				reached: 60,
			},
			listedCount: 7,
			listedUpdatedAt: '2026-11-01T00:00:00.000Z',
			readAtRev: 29,
		},
		undated: {
			since: '2026-11-23T09:50:00.000Z',
			seen: { b: NEWEST_READ_MS - 30_000 },
			newestMs: NEWEST_READ_MS,
			// `b` got a date later: what seen says of it stands.
			undated: ['u1', 'u2', 'b'],
		},
		undatedOnly: { since: '2026-11-23T09:50:00.000Z', seen: {}, undated: ['u3'] },
		activated: {
			since: at(ACTIVATED_MS - 600_001),
			seen: {},
			floor: { atMs: ACTIVATED_MS, id: '\uffff' },
		},
		chosenFrom: {
			since: at(ACTIVATED_MS - 24 * HOUR_MS - 1),
			seen: {},
			floor: { atMs: ACTIVATED_MS - 7_000, id: 'r7' },
		},
		stuck: {
			since: '2026-11-23T09:00:00.000Z',
			seen: {},
			failedPolls: 5,
			failureReportedAt: 5,
			failedFor: 'keptMoving',
		},
	},
};

/**
 * Version 3 in the middle of choosing the newest existing responses: `reading` reads the window
 * before activation, `read` has read it, `emptyForm` (no responses) was left out of the choice.
 */
const CHOOSING_BY_VERSION_3: IDataObject = {
	version: 3,
	scope: 'selected',
	rev: 2,
	activatedAtMs: ACTIVATED_MS,
	forms: {
		reading: {
			since: DAY_BEFORE_SINCE,
			seen: { c: ACTIVATED_MS - 2 * HOUR_MS },
			resume: { offset: 20, anchors: [{ id: 'c', submittedAt: at(ACTIVATED_MS - 2 * HOUR_MS) }] },
			choice: 'reading',
			choiceStalls: 2,
		},
		read: { since: DAY_BEFORE_SINCE, seen: {}, choice: 'read' },
		emptyForm: {
			since: at(ACTIVATED_MS - 600_001),
			seen: {},
			floor: { atMs: ACTIVATED_MS, id: '\uffff' },
		},
	},
	choice: {
		limit: 5,
		forms: ['reading', 'read'],
		window: 1,
		chosen: [
			['read', 'x', ACTIVATED_MS - HOUR_MS],
			['reading', 'c', ACTIVATED_MS - 2 * HOUR_MS],
		],
	},
};

/**
 * Whether reading from this cursor can emit a response submitted before the activation: a form
 * without a cursor starts at the activation (the poll's cursorFrom).
 */
const emitsExisting = (cursor: FormCursor | undefined) =>
	cursor !== undefined &&
	Date.parse(cursor.since) < ACTIVATED_MS &&
	(cursor.floor === undefined || cursor.floor.atMs < ACTIVATED_MS);

describe('trigger state in static data', () => {
	it('reads the state as it was written, every part kept', () => {
		expect(read(stored(state))).toEqual({ state, reset: [], warnings: [] });
	});

	it('reads a copy: changing it changes nothing stored until it is written', () => {
		const staticData = stored(state);
		const copy = read(staticData).state as TriggerState;
		copy.forms.f1.seen.r3 = 9;
		copy.forms.f1.floor = { atMs: 0, id: '' };
		copy.choice?.pending.push('f3');
		copy.rev = 99;
		expect(read(staticData).state).toEqual(state);
		writeState(staticData, copy);
		expect(read(staticData).state).toEqual(copy);
	});

	it("writes into n8n's object in place, a copy of the state, and removes keys the state lacks", () => {
		const staticData: IDataObject = { stale: true, backfill: { limit: 5 }, choice: 'old' };
		const n8nHolds = staticData;
		const written = structuredClone(state);
		delete written.choice;
		written.failures = undefined;
		writeState(staticData, written);
		expect(staticData).toBe(n8nHolds);
		expect(Object.keys(staticData).sort()).toEqual([
			'activatedAtMs',
			'emitSinceMs',
			'forms',
			'rev',
			'scope',
			'version',
		]);
		// Changing the state after it was written does not reach what n8n saves.
		written.forms.f1.seen.late = 1;
		expect(read(staticData).state?.forms.f1.seen).not.toHaveProperty('late');
	});

	it('reads no state, and says nothing, for another scope or nothing stored', () => {
		expect(read(stored(state), 'form:x')).toEqual({ reset: [], warnings: [] });
		expect(read({}, 'all')).toEqual({ reset: [], warnings: [] });
	});

	it.each<[string, IDataObject]>([
		['an unknown version', { version: 99 }],
		['no version', { version: undefined }],
		['forms that are not an object', { forms: [] }],
		['an activation time that is not a number', { activatedAtMs: 'soon' }],
		['a negative activation time', { activatedAtMs: -1 }],
	])('starts afresh, with a warning, on %s', (_name, patch) => {
		const { state: none, reset, warnings } = read(storedWith(patch));
		expect(none).toBeUndefined();
		expect(reset).toEqual([]);
		expect(warnings).toHaveLength(1);
	});
});

describe('a stored state of an earlier version', () => {
	it('version 4: every part kept, a run of polls without progress taken as failed reads', () => {
		const f1 = { ...state.forms.f1 };
		delete f1.servedPolls;
		delete f1.namedAt;
		const f3 = { since: at(ACTIVATED_MS), seen: {}, failedPolls: 7 };
		const forms = { ...state.forms, f1, f3 };
		const stored4 = { ...stored({ ...state, forms }), version: 4 };
		const { state: migrated, reset, warnings } = read(stored4);
		expect({ reset, warnings }).toEqual({ reset: [], warnings: [] });
		// Version 4 named a form on every 5th poll of its run: f3 was named on its 5th.
		expect(migrated).toEqual({ ...state, forms: { ...forms, f3: { ...f3, namedAt: 5 } } });
		expect(migrated?.version).toBe(STATE_VERSION);
		expect(migrated?.forms.f1).not.toHaveProperty('servedPolls');
		expect(migrated?.forms.f1).not.toHaveProperty('namedAt');
	});

	it('version 1: since and seen kept, a cut read goes on from its since (seen drops repeats), the listing as one mark', () => {
		const { state: migrated, reset, warnings } = read(structuredClone(STORED_BY_VERSION_1));
		expect(warnings).toEqual([]);
		expect(reset).toEqual([]);
		const forms = STORED_BY_VERSION_1.forms as Record<string, IDataObject>;
		expect(migrated).toEqual({
			version: STATE_VERSION,
			scope: 'all',
			rev: 12,
			activatedAtMs: ACTIVATED_MS,
			failures: 2,
			forms: {
				f1: {
					since: forms.f1.since,
					seen: forms.f1.seen,
					listed: '7/2026-11-01T00:00:00.000Z',
					readAtRev: 11,
				},
				f2: { since: forms.f2.since, seen: forms.f2.seen },
				f3: forms.f3,
			},
		});
	});

	it('version 2 while choosing: the choice goes on with its candidates, every form of it reads its newest again', () => {
		const {
			state: migrated,
			reset,
			warnings,
		} = read(structuredClone(STORED_BY_VERSION_2), 'selected');
		expect(warnings).toEqual([]);
		expect(reset).toEqual([]);
		expect(migrated?.choice).toEqual({
			count: 5,
			pending: ['f1', 'f2'],
			done: [],
			chosen: [
				['f1', 'a', ACTIVATED_MS - 5_000],
				['f2', 'b', ACTIVATED_MS - 9_000],
			],
		});
		// The bare offset is not kept; the forms still choosing get their cursor when the choice
		// ends (until then one from the activation): the window they read holds existing responses.
		expect(migrated?.forms).toEqual({
			f3: { since: DAY_BEFORE_SINCE, seen: {}, floor: { atMs: ACTIVATED_MS + 1, id: '' } },
		});
		const written = stored(migrated as TriggerState);
		expect(written).not.toHaveProperty('backfill');
		expect(JSON.stringify(written)).not.toContain('backfillOffset');
	});

	it('version 3: resume points dropped (read again from since), undated kept in seen, floors now the first version emitted', () => {
		const { state: migrated, reset, warnings } = read(structuredClone(STORED_BY_VERSION_3));
		expect(warnings).toEqual([]);
		expect(reset).toEqual([]);
		expect(migrated).toEqual({
			version: STATE_VERSION,
			scope: 'all',
			rev: 30,
			activatedAtMs: ACTIVATED_MS,
			failures: 1,
			forms: {
				cut: {
					since: '2026-11-23T09:50:00.000Z',
					seen: { a: NEWEST_READ_MS - 60_000 },
					listed: '7/2026-11-01T00:00:00.000Z',
					readAtRev: 29,
				},
				undated: {
					since: '2026-11-23T09:50:00.000Z',
					seen: { b: NEWEST_READ_MS - 30_000, u1: NEWEST_READ_MS, u2: NEWEST_READ_MS },
				},
				// No newest time read: just after since, where the next read starts.
				undatedOnly: {
					since: '2026-11-23T09:50:00.000Z',
					seen: { u3: Date.parse('2026-11-23T09:50:00.000Z') + 1 },
				},
				activated: {
					since: at(ACTIVATED_MS - 600_001),
					seen: {},
					floor: { atMs: ACTIVATED_MS + 1, id: '' },
				},
				chosenFrom: {
					since: at(ACTIVATED_MS - 24 * HOUR_MS - 1),
					seen: {},
					floor: { atMs: ACTIVATED_MS - 7_000, id: 'r7' },
				},
				stuck: { since: '2026-11-23T09:00:00.000Z', seen: {}, failedPolls: 5, namedAt: 5 },
			},
		});
		// Written back, it is the current version, read as it is.
		const written = stored(migrated as TriggerState);
		expect(written.version).toBe(STATE_VERSION);
		expect(read(written)).toEqual({ state: migrated, reset: [], warnings: [] });
	});

	it('a floor of version 3 keeps out exactly the versions it kept out before', () => {
		const floorAtMs = ACTIVATED_MS - 7_000;
		const versions = [floorAtMs - 1, floorAtMs, floorAtMs + 1].flatMap((atMs) =>
			['', 'a', 'r6', 'r7', 'r70', 'r8', 'z'].map((id) => ({ atMs, id })),
		);
		for (const oldFloor of [
			{ atMs: floorAtMs, id: '\uffff' },
			{ atMs: floorAtMs, id: 'r7' },
		]) {
			const stored3 = structuredClone(STORED_BY_VERSION_3);
			stored3.forms = { f: { since: at(floorAtMs - 1), seen: {}, floor: oldFloor } };
			const floor = read(stored3).state?.forms.f.floor;
			expect(floor).toBeDefined();
			for (const version of versions)
				expect({ version, keptOut: compareVersions(version, floor!) < 0 }).toEqual({
					version,
					keptOut: compareVersions(version, oldFloor) < 0,
				});
		}
	});

	it('version 3 while choosing: the choice as count, pending, done and chosen; the forms still choosing get no cursor', () => {
		const {
			state: migrated,
			reset,
			warnings,
		} = read(structuredClone(CHOOSING_BY_VERSION_3), 'selected');
		expect(warnings).toEqual([]);
		expect(reset).toEqual([]);
		expect(migrated?.choice).toEqual({
			count: 5,
			pending: ['reading', 'read'],
			done: [],
			chosen: [
				['read', 'x', ACTIVATED_MS - HOUR_MS],
				['reading', 'c', ACTIVATED_MS - 2 * HOUR_MS],
			],
		});
		expect(migrated?.forms).toEqual({
			emptyForm: {
				since: at(ACTIVATED_MS - 600_001),
				seen: {},
				floor: { atMs: ACTIVATED_MS + 1, id: '' },
			},
		});
	});

	it.each<[string, IDataObject]>([
		['a choice that does not fit', { choice: { limit: 'five', forms: ['reading', 'read'] } }],
		['no choice', { choice: undefined }],
	])('version 3 with %s: a form that was choosing emits no existing response', (_name, patch) => {
		const { state: migrated } = read(
			{ ...structuredClone(CHOOSING_BY_VERSION_3), ...patch },
			'selected',
		);
		expect(migrated?.choice).toBeUndefined();
		for (const formId of ['reading', 'read'])
			expect({ formId, emitsExisting: emitsExisting(migrated?.forms[formId]) }).toEqual({
				formId,
				emitsExisting: false,
			});
	});

	it('a version 3 cursor that does not fit is reset, the other forms migrated', () => {
		const stored3 = structuredClone(STORED_BY_VERSION_3);
		const forms = stored3.forms as IDataObject;
		forms.activated = { ...(forms.activated as IDataObject), floor: 7 };
		forms.stuck = { ...(forms.stuck as IDataObject), failedPolls: -1 };
		const { state: migrated, reset, warnings } = read(stored3);
		expect(reset).toEqual(['activated', 'stuck']);
		expect(warnings).toEqual([
			'the stored place of form "activated" did not fit: it goes on from now',
			'the stored place of form "stuck" did not fit: it goes on from now',
		]);
		expect(Object.keys(migrated?.forms ?? {})).toEqual([
			'cut',
			'undated',
			'undatedOnly',
			'chosenFrom',
		]);
	});

	it('a backfill of version 2 that does not fit is reset with a warning', () => {
		const { state: migrated, warnings } = read(
			{ ...structuredClone(STORED_BY_VERSION_2), backfill: { limit: 'ten' } },
			'selected',
		);
		expect(migrated?.choice).toBeUndefined();
		expect(warnings).toEqual([
			'the choice of the newest responses in the stored state did not fit: it was reset',
		]);
	});
});

describe('a stored state with parts that do not fit', () => {
	it.each<[string, unknown]>([
		['not an object', 'garbage'],
		['null', null],
		['without since', { seen: {} }],
		['with a since that is not a date', { since: 'yesterday', seen: {} }],
		['without seen', { since: '2026-01-01T00:00:00.000Z' }],
		['with seen not an object', { since: '2026-01-01T00:00:00.000Z', seen: ['a'] }],
		['with seen holding a string', { since: '2026-01-01T00:00:00.000Z', seen: { a: 'x' } }],
		['with a floor not an object', { since: '2026-01-01T00:00:00.000Z', seen: {}, floor: 7 }],
		[
			'with a floor without a time',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, floor: { atMs: 'x', id: '' } },
		],
		[
			'with a floor without an id',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, floor: { atMs: 5 } },
		],
		[
			'with negative failed polls',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, failedPolls: -1 },
		],
		[
			'with served polls as text',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, failedPolls: 2, servedPolls: '1' },
		],
		[
			'named at a poll beyond its count',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, failedPolls: 2, namedAt: 3 },
		],
		[
			'with more served polls than its count',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, failedPolls: 2, servedPolls: 3 },
		],
		[
			'with a fractional poll read at',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, readAtRev: 1.5 },
		],
		[
			'with an unlisted time as text',
			{ since: '2026-01-01T00:00:00.000Z', seen: {}, unlistedSinceMs: '5' },
		],
		['with a listing mark not text', { since: '2026-01-01T00:00:00.000Z', seen: {}, listed: 7 }],
		['with a kept turn not true', { since: '2026-01-01T00:00:00.000Z', seen: {}, keptTurn: false }],
	])('a cursor %s is reset with a warning, the other forms untouched', (_name, cursor) => {
		const {
			state: read1,
			reset,
			warnings,
		} = read(storedWith({ forms: { f1: cursor, f2: state.forms.f2, f3: state.forms.f1 } }));
		expect(reset).toEqual(['f1']);
		expect(warnings).toEqual(['the stored place of form "f1" did not fit: it goes on from now']);
		expect(read1?.forms).toEqual({ f2: state.forms.f2, f3: state.forms.f1 });
		expect(read1?.choice).toEqual(state.choice);
	});

	it.each<[string, IDataObject, Partial<TriggerState>]>([
		['the poll count', { rev: 'x' }, { rev: 0 }],
		['the poll count', { rev: -3 }, { rev: 0 }],
		['the count of failed polls', { failures: 1.5 }, { failures: undefined }],
		['the date to emit from', { emitSinceMs: 'soon' }, { emitSinceMs: undefined }],
		['the choice of the newest responses', { choice: { count: 'ten' } }, { choice: undefined }],
		[
			'the choice of the newest responses',
			{ choice: { ...state.choice, chosen: [['f1', 'r1']] } },
			{ choice: undefined },
		],
		[
			'the choice of the newest responses',
			{ choice: { ...state.choice, pending: 'f2' } },
			{ choice: undefined },
		],
		['the choice of the newest responses', { choice: 'newest' }, { choice: undefined }],
	])('%s that does not fit is reset with a warning (%j)', (part, patch, resetTo) => {
		const { state: read1, reset, warnings } = read(storedWith(patch));
		expect(warnings).toEqual([`${part} in the stored state did not fit: it was reset`]);
		expect(reset).toEqual([]);
		// toEqual takes a part set to undefined for one that is absent.
		expect(read1).toEqual({ ...state, ...resetTo });
	});
});

describe('a cursor from a date', () => {
	const LOOK_BACK_MS = 600_000;

	it('from a date long before: reads from a millisecond before it, emits from the date on', () => {
		const sinceMs = ACTIVATED_MS - 24 * HOUR_MS;
		expect(cursorFrom(sinceMs, ACTIVATED_MS, LOOK_BACK_MS)).toEqual({
			since: at(sinceMs - 1),
			seen: {},
			floor: { atMs: sinceMs, id: '' },
		});
	});

	it('from the activation: reads the look-back window before it, to know the responses there', () => {
		expect(cursorFrom(ACTIVATED_MS, ACTIVATED_MS, LOOK_BACK_MS)).toEqual({
			since: at(ACTIVATED_MS - LOOK_BACK_MS - 1),
			seen: {},
			floor: { atMs: ACTIVATED_MS, id: '' },
		});
	});

	it('emits every version from its first millisecond on, none before it', () => {
		const { floor } = cursorFrom(ACTIVATED_MS, ACTIVATED_MS, LOOK_BACK_MS);
		for (const id of ['', '0', 'a', '\uffff']) {
			expect(compareVersions({ atMs: ACTIVATED_MS, id }, floor!)).toBeGreaterThanOrEqual(0);
			expect(compareVersions({ atMs: ACTIVATED_MS - 1, id }, floor!)).toBeLessThan(0);
		}
	});
});

/** A promise and the function that settles it: an ordering hook, no timers. */
function gate(): { opened: Promise<void>; open: () => void } {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => (open = resolve));
	return { opened, open };
}

describe('overlapping polls of one trigger', () => {
	afterEach(() => jest.restoreAllMocks());

	it('a poll that starts while another runs gets nothing and does not run', async () => {
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

	it('a poll older than the stale time is replaced: it is no longer current, the new one is', async () => {
		const now = jest.spyOn(Date, 'now').mockReturnValue(ACTIVATED_MS);
		const hung = gate();
		let hungIsCurrent!: () => boolean;
		const hanging = unlessAlreadyPolling('wf:hung', 60_000, async (stillCurrent) => {
			hungIsCurrent = stillCurrent;
			await hung.opened;
			return stillCurrent();
		});
		now.mockReturnValue(ACTIVATED_MS + 59_999);
		expect(await unlessAlreadyPolling('wf:hung', 60_000, async () => 'too early')).toBeUndefined();
		expect(hungIsCurrent()).toBe(true);

		now.mockReturnValue(ACTIVATED_MS + 60_001);
		const next = gate();
		let nextIsCurrent!: () => boolean;
		const replacing = unlessAlreadyPolling('wf:hung', 60_000, async (stillCurrent) => {
			nextIsCurrent = stillCurrent;
			await next.opened;
			return 'replaced';
		});
		expect(hungIsCurrent()).toBe(false);
		expect(nextIsCurrent()).toBe(true);
		// The old poll ending does not let go of the new one's place.
		hung.open();
		expect(await hanging).toBe(false);
		expect(nextIsCurrent()).toBe(true);
		expect(await unlessAlreadyPolling('wf:hung', 60_000, async () => 'third')).toBeUndefined();
		next.open();
		expect(await replacing).toBe('replaced');
	});
});
