import type { FormResponse } from '../shared/transport/types';
import type { FormCursor, ResumePoint } from './state';

export type UpdatedResponses = 'emit' | 'ignore';

export interface CursorOptions {
	lookBackMs: number;
	updatedResponses: UpdatedResponses;
}

/** The submission time of a response in epoch ms; undefined when it has none the trigger can use. */
export function submittedAtMs(response: FormResponse): number | undefined {
	const at: unknown = response.submittedAt;
	if (typeof at !== 'string') return undefined;
	const ms = Date.parse(at);
	return Number.isNaN(ms) ? undefined : ms;
}

/**
 * A response is new when this version of it was not handled yet: an id not in the window, or
 * (when updates are emitted) an id whose `submittedAt` moved past the handled version.
 */
export function isNewVersion(
	cursor: FormCursor,
	id: string,
	atMs: number,
	options: CursorOptions,
): boolean {
	if (cursor.floor && compareOldestFirst({ atMs, id }, cursor.floor) < 0) return false;
	const handled = cursor.seen[id];
	// Emitted before without a date: with Ignore, a dated version of it is an update.
	if (handled === undefined)
		return !(options.updatedResponses === 'ignore' && cursor.undated?.includes(id));
	return options.updatedResponses === 'emit' && atMs > handled;
}

/** A response without a usable `submittedAt` is new once: while the API returns it, it is remembered. */
export function isNewUndated(cursor: FormCursor, id: string): boolean {
	return cursor.seen[id] === undefined && !cursor.undated?.includes(id);
}

/** A copy of `value` without these fields (a cursor, a resume point). */
export function without<T extends object>(value: T, ...keys: Array<keyof T>): T {
	const copy = { ...value };
	for (const key of keys) delete copy[key];
	return copy;
}

/** Oldest first; ties (same millisecond) in a fixed order, by id. */
export function compareOldestFirst(
	a: { atMs: number; id: string },
	b: { atMs: number; id: string },
): number {
	return a.atMs - b.atMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** What one read of a form handled. */
export interface ReadOfForm {
	/** Every dated version read. */
	handled: Iterable<HandledVersion>;
	/** The ids of responses read without a usable `submittedAt`. */
	undated: Iterable<string>;
	/** Whether the read began at the start of `since` (not resumed from an earlier read). */
	fromStart: boolean;
	/**
	 * The service's clock when the read began (for a resumed read, when the first of its cut
	 * reads began), if the service sent it.
	 */
	startedAtMs?: number;
}

/**
 * The cursor after a complete read: the window slides to trail the newest timestamp seen, never
 * backwards, and forgets what fell out of it. The bound sits one millisecond before the window,
 * so a response in the window's first millisecond is read whether `since` is exclusive or not.
 * Nor does it pass a window before the read began: a response that showed up while the read
 * was under way, in a place the read had passed (its timestamp a little in the past), is then
 * still read by the next one.
 */
export function advanceCursor(
	cursor: FormCursor,
	read: ReadOfForm,
	options: CursorOptions,
): FormCursor {
	const { seen, newestMs } = mergeHandled(cursor, read.handled);
	const currentSinceMs = Date.parse(cursor.since);
	const trailing = newestMs === undefined ? currentSinceMs : newestMs - options.lookBackMs - 1;
	const beforeRead =
		read.startedAtMs === undefined ? trailing : read.startedAtMs - options.lookBackMs - 1;
	const sinceMs = Math.max(currentSinceMs, Math.min(trailing, beforeRead));
	const undated = read.fromStart ? [...new Set(read.undated)] : mergeUndated(cursor, read.undated);
	if (read.fromStart && read.startedAtMs !== undefined)
		holdUndatedNotServed(cursor, undated, seen, read.startedAtMs);
	const next: FormCursor = {
		...cursor,
		since: new Date(sinceMs).toISOString(),
		seen: pruneSeen(seen, sinceMs),
		newestMs,
	};
	delete next.resume;
	if (undated.length) next.undated = undated;
	else delete next.undated;
	if (next.floor && next.floor.atMs < sinceMs) delete next.floor;
	return next;
}

/**
 * The cursor after a read that stopped early: `since` must not move, since responses not read
 * yet may lie anywhere after it; what was handled is remembered, and the next poll goes on from
 * `resume` (see ResumePoint).
 */
export function rememberHandled(
	cursor: FormCursor,
	read: ReadOfForm,
	resume: ResumePoint,
): FormCursor {
	const next: FormCursor = { ...cursor, ...mergeHandled(cursor, read.handled), resume };
	const undated = mergeUndated(cursor, read.undated);
	if (undated.length) next.undated = undated;
	return next;
}

/**
 * A read from the start sees every undated response the API still returns, but one updated
 * while it read: dated now, it may have moved to where the read had passed, and only the next
 * read serves it. So a remembered undated response this read was not served at all (deleted, or
 * so moved) stays known, in `seen` as handled just before the read began: with Ignore its dated
 * version is not new (an update), with Emit it is (it is later); the window then forgets it, as
 * it does any response, where `undated` would keep a deleted one for ever.
 */
function holdUndatedNotServed(
	cursor: FormCursor,
	servedUndated: string[],
	seen: Record<string, number>,
	readStartedAtMs: number,
): void {
	for (const id of cursor.undated ?? [])
		if (!servedUndated.includes(id) && seen[id] === undefined) seen[id] = readStartedAtMs - 1;
}

function mergeUndated(cursor: FormCursor, undated: Iterable<string>): string[] {
	return [...new Set([...(cursor.undated ?? []), ...undated])];
}

export interface HandledVersion {
	id: string;
	atMs: number;
}

function mergeHandled(
	cursor: FormCursor,
	handled: Iterable<HandledVersion>,
): { seen: Record<string, number>; newestMs?: number } {
	const seen: Record<string, number> = { ...cursor.seen };
	let newestMs = cursor.newestMs;
	for (const { id, atMs } of handled) {
		if (seen[id] === undefined || atMs > seen[id]) seen[id] = atMs;
		if (newestMs === undefined || atMs > newestMs) newestMs = atMs;
	}
	return { seen, newestMs };
}

/**
 * Forgets what the next query cannot return. A server that compares `since` by whole seconds
 * returns the rest of that second too, so that second is kept: a response of it that comes back
 * without a usable date is then still known.
 */
function pruneSeen(seen: Record<string, number>, sinceMs: number): Record<string, number> {
	const keepFromMs = Math.floor(sinceMs / 1000) * 1000;
	const kept: Record<string, number> = {};
	for (const [id, atMs] of Object.entries(seen)) if (atMs >= keepFromMs) kept[id] = atMs;
	return kept;
}
