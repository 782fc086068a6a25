import {
	advanceCursor,
	compareOldestFirst,
	isNewUndated,
	isNewVersion,
	rememberHandled,
	submittedAtMs,
} from '../../nodes/FormsWtf/trigger/cursor';
import type {
	CursorOptions,
	HandledVersion,
	ReadOfForm,
} from '../../nodes/FormsWtf/trigger/cursor';
import type { FormCursor } from '../../nodes/FormsWtf/trigger/state';
import type { FormResponse } from '../../nodes/FormsWtf/shared/transport/types';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const options: CursorOptions = { lookBackMs: 60_000, updatedResponses: 'emit' };
/** A complete read from the start of `since` that handled these dated versions. */
const readOf = (
	handled: HandledVersion[],
	undated: string[] = [],
	fromStart = true,
): ReadOfForm => ({ handled, undated, fromStart });

describe('trigger cursor', () => {
	it('slides since to trail the newest timestamp and forgets what fell out of the window', () => {
		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: { old: T0 + 1 } };
		const next = advanceCursor(
			cursor,
			readOf([
				{ id: 'a', atMs: T0 + 120_000 },
				{ id: 'b', atMs: T0 + 200_000 },
			]),
			options,
		);
		// One millisecond before the window: its first millisecond is read whether since is exclusive or not.
		expect(next.since).toBe(new Date(T0 + 140_000 - 1).toISOString());
		expect(next.seen).toEqual({ b: T0 + 200_000 });
		expect(next.newestMs).toBe(T0 + 200_000);
	});

	it('does not slide past the window before the read began: what showed up during a long read is read again', () => {
		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: {} };
		// The read began at T0 + 100 s and read a response updated at T0 + 300 s.
		const read = { ...readOf([{ id: 'a', atMs: T0 + 300_000 }]), startedAtMs: T0 + 100_000 };
		expect(advanceCursor(cursor, read, options).since).toBe(
			new Date(T0 + 100_000 - 60_000 - 1).toISOString(),
		);
	});

	it('never moves since backwards, and keeps entries at the bound (inclusive since)', () => {
		const cursor: FormCursor = {
			since: new Date(T0).toISOString(),
			seen: {},
			newestMs: T0 + 30_000,
		};
		const next = advanceCursor(cursor, readOf([{ id: 'a', atMs: T0 }]), options);
		expect(next.since).toBe(new Date(T0).toISOString());
		expect(next.seen).toEqual({ a: T0 });
	});

	it('tells new versions from handled ones, per the updates option', () => {
		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: { a: T0 + 5 } };
		expect(isNewVersion(cursor, 'b', T0 + 5, options)).toBe(true);
		expect(isNewVersion(cursor, 'a', T0 + 5, options)).toBe(false);
		expect(isNewVersion(cursor, 'a', T0 + 9, options)).toBe(true);
		expect(isNewVersion(cursor, 'a', T0 + 9, { ...options, updatedResponses: 'ignore' })).toBe(
			false,
		);
	});

	it('keeps since in place after a partial read and says where to go on, and with which anchors', () => {
		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: {} };
		const resume = {
			offset: 1000,
			anchors: [{ id: 'a', submittedAt: new Date(T0 + 500_000).toISOString() }],
		};
		const next = rememberHandled(cursor, readOf([{ id: 'a', atMs: T0 + 500_000 }]), resume);
		expect(next.since).toBe(cursor.since);
		expect(next.seen).toEqual({ a: T0 + 500_000 });
		expect(next.resume).toEqual(resume);
		expect(advanceCursor(next, readOf([]), options).resume).toBeUndefined();
	});

	it('a response without a usable submittedAt is new once, and remembered while the API returns it', () => {
		const undated = (submittedAt: unknown) => ({ id: 'u', submittedAt }) as unknown as FormResponse;
		for (const value of [undefined, null, 'not a date', 42, ''])
			expect(submittedAtMs(undated(value))).toBeUndefined();
		expect(submittedAtMs(undated('2026-01-01T00:00:00.000Z'))).toBe(T0);

		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: {} };
		expect(isNewUndated(cursor, 'u')).toBe(true);
		// A cut read adds to what is remembered; a resumed read that completes keeps it too.
		const cut = rememberHandled(cursor, readOf([], ['u']), { offset: 5, anchors: [] });
		expect(isNewUndated(cut, 'u')).toBe(false);
		const resumed = advanceCursor(cut, readOf([], [], false), options);
		expect(resumed.undated).toEqual(['u']);
		// A read from the start that no longer sees it forgets it.
		expect(advanceCursor(resumed, readOf([]), options).undated).toBeUndefined();
		// ...as undated: updated while the read went on, it may have moved where the read had passed.
		// Held as handled just before the read began, its dated version is an update, until the
		// window passes it.
		const missed = advanceCursor(resumed, { ...readOf([]), startedAtMs: T0 + 10 }, options);
		expect(missed.undated).toBeUndefined();
		expect(isNewUndated(missed, 'u')).toBe(false);
		expect(isNewVersion(missed, 'u', T0 + 10, options)).toBe(true);
		expect(isNewVersion(missed, 'u', T0 + 10, { ...options, updatedResponses: 'ignore' })).toBe(
			false,
		);
		const later = { ...readOf([{ id: 'a', atMs: T0 + 200_000 }]), startedAtMs: T0 + 200_000 };
		expect(advanceCursor(missed, later, options).seen).toEqual({ a: T0 + 200_000 });
		// Once dated, it is an update: emitted again with Emit Again, skipped with Ignore.
		expect(isNewVersion(resumed, 'u', T0 + 5, options)).toBe(true);
		expect(isNewVersion(resumed, 'u', T0 + 5, { ...options, updatedResponses: 'ignore' })).toBe(
			false,
		);
	});

	it('emits nothing older than the floor of Emit Existing Responses, and drops the floor once since is past it', () => {
		const cursor: FormCursor = {
			since: new Date(T0 - 1).toISOString(),
			seen: {},
			floor: { atMs: T0, id: 'm' },
		};
		expect(isNewVersion(cursor, 'z', T0 - 1, options)).toBe(false); // returned by an inclusive since
		expect(isNewVersion(cursor, 'a', T0, options)).toBe(false); // same millisecond, not chosen
		expect(isNewVersion(cursor, 'm', T0, options)).toBe(true);
		expect(isNewVersion(cursor, 'n', T0, options)).toBe(true);
		expect(advanceCursor(cursor, readOf([{ id: 'm', atMs: T0 }]), options).floor).toEqual({
			atMs: T0,
			id: 'm',
		});
		expect(
			advanceCursor(cursor, readOf([{ id: 'x', atMs: T0 + 200_000 }]), options).floor,
		).toBeUndefined();
	});

	it('keeps what else the cursor carries (All Forms listing, unlisted since) when it moves', () => {
		const cursor: FormCursor = {
			since: new Date(T0).toISOString(),
			seen: {},
			listedCount: 3,
			unlistedSinceMs: T0,
		};
		expect(advanceCursor(cursor, readOf([{ id: 'a', atMs: T0 + 1 }]), options)).toMatchObject({
			listedCount: 3,
			unlistedSinceMs: T0,
		});
		expect(rememberHandled(cursor, readOf([]), { offset: 5, anchors: [] })).toMatchObject({
			listedCount: 3,
			resume: { offset: 5 },
		});
	});

	it('orders oldest first with ties broken by id', () => {
		const list = [
			{ id: 'b', atMs: 2 },
			{ id: 'c', atMs: 1 },
			{ id: 'a', atMs: 2 },
		];
		expect(list.sort(compareOldestFirst).map((x) => x.id)).toEqual(['c', 'a', 'b']);
	});
});
