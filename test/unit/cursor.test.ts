import {
	advanceCursor,
	compareOldestFirst,
	isNewVersion,
	rememberHandled,
} from '../../nodes/FormsWtfTrigger/cursor';
import type { CursorOptions, FormCursor } from '../../nodes/FormsWtfTrigger/cursor';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const options: CursorOptions = { lookBackMs: 60_000, updatedResponses: 'emit' };

describe('trigger cursor', () => {
	it('slides since to trail the newest timestamp and forgets what fell out of the window', () => {
		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: { old: T0 + 1 } };
		const next = advanceCursor(
			cursor,
			[
				{ id: 'a', atMs: T0 + 120_000 },
				{ id: 'b', atMs: T0 + 200_000 },
			],
			options,
		);
		expect(next.since).toBe(new Date(T0 + 140_000).toISOString());
		expect(next.seen).toEqual({ b: T0 + 200_000 });
		expect(next.newestMs).toBe(T0 + 200_000);
	});

	it('never moves since backwards, and keeps entries at the bound (inclusive since)', () => {
		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: {}, newestMs: T0 + 30_000 };
		const next = advanceCursor(cursor, [{ id: 'a', atMs: T0 }], options);
		expect(next.since).toBe(new Date(T0).toISOString());
		expect(next.seen).toEqual({ a: T0 });
	});

	it('tells new versions from handled ones, per the updates option', () => {
		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: { a: T0 + 5 } };
		expect(isNewVersion(cursor, 'b', T0 + 5, options)).toBe(true);
		expect(isNewVersion(cursor, 'a', T0 + 5, options)).toBe(false);
		expect(isNewVersion(cursor, 'a', T0 + 9, options)).toBe(true);
		expect(isNewVersion(cursor, 'a', T0 + 9, { ...options, updatedResponses: 'ignore' })).toBe(false);
	});

	it('keeps since in place after a partial read and says where to go on', () => {
		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: {} };
		const next = rememberHandled(cursor, [{ id: 'a', atMs: T0 + 500_000 }], 1000);
		expect(next.since).toBe(cursor.since);
		expect(next.seen).toEqual({ a: T0 + 500_000 });
		expect(next.resumeOffset).toBe(1000);
		expect(advanceCursor(next, [], options).resumeOffset).toBeUndefined();
	});

	it('emits nothing older than the floor of Emit Existing Responses, and drops the floor once since is past it', () => {
		const cursor: FormCursor = { since: new Date(T0 - 1).toISOString(), seen: {}, floor: { atMs: T0, id: 'm' } };
		expect(isNewVersion(cursor, 'z', T0 - 1, options)).toBe(false); // returned by an inclusive since
		expect(isNewVersion(cursor, 'a', T0, options)).toBe(false); // same millisecond, not chosen
		expect(isNewVersion(cursor, 'm', T0, options)).toBe(true);
		expect(isNewVersion(cursor, 'n', T0, options)).toBe(true);
		expect(advanceCursor(cursor, [{ id: 'm', atMs: T0 }], options).floor).toEqual({ atMs: T0, id: 'm' });
		expect(advanceCursor(cursor, [{ id: 'x', atMs: T0 + 200_000 }], options).floor).toBeUndefined();
	});

	it('keeps what else the cursor carries (All Forms listing, unlisted since) when it moves', () => {
		const cursor: FormCursor = { since: new Date(T0).toISOString(), seen: {}, listedCount: 3, unlistedSinceMs: T0 };
		expect(advanceCursor(cursor, [{ id: 'a', atMs: T0 + 1 }], options)).toMatchObject({ listedCount: 3, unlistedSinceMs: T0 });
		expect(rememberHandled(cursor, [], 5)).toMatchObject({ listedCount: 3, resumeOffset: 5 });
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
