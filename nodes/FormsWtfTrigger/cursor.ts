import type { FormResponse } from '../FormsWtf/transport/types';

/**
 * Where the trigger stands on one form, kept in the workflow's static data.
 *
 * `since` is the bound of the next query, taken from the service's own timestamps (never the
 * n8n host's clock). It trails the newest timestamp seen by a look-back window, so that a
 * response that becomes visible a little after its timestamp is still found. `seen` holds, for
 * each response in that window, the `submittedAt` of the version already handled, so the
 * overlap is never emitted twice whether the API's `since` is exclusive or inclusive and
 * however many responses share one millisecond. Entries older than `since` can never be
 * returned again and are dropped: the state is bounded by the responses of one window.
 */
export interface FormCursor {
	since: string;
	seen: Record<string, number>;
	newestMs?: number;
	/** Where a read cut short by the poll budget goes on; absent when the last read was complete. */
	resumeOffset?: number;
	/**
	 * Emit Existing Responses: the oldest (time, id) to emit. Older responses the query returns
	 * (the bound sits 1 ms before it, whether `since` is inclusive or not) are existing ones
	 * that were not chosen. Dropped once `since` has moved past it.
	 */
	floor?: { atMs: number; id: string };
	/** Emit Existing Responses: this form's existing responses are still being read, from here on. */
	backfillOffset?: number;
	/** All Forms: `responseCount` and `updatedAt` of the listing before this form's last complete read. */
	listedCount?: number;
	listedUpdatedAt?: string;
	/** All Forms: the poll (state `rev`) of this form's last complete read. */
	readAtRev?: number;
	/** All Forms: since when (service clock, ms) the listing of forms lacks this form. */
	unlistedSinceMs?: number;
}

export type UpdatedResponses = 'emit' | 'ignore';

export interface CursorOptions {
	lookBackMs: number;
	updatedResponses: UpdatedResponses;
}

/** The submission time of a response in epoch ms; a garbled one counts as "now" of the window. */
export function submittedAtMs(response: FormResponse, fallbackMs: number): number {
	const ms = Date.parse(response.submittedAt);
	return Number.isNaN(ms) ? fallbackMs : ms;
}

/**
 * A response is new when this version of it was not handled yet: an id not in the window, or
 * (when updates are emitted) an id whose `submittedAt` moved past the handled version.
 */
export function isNewVersion(cursor: FormCursor, id: string, atMs: number, options: CursorOptions): boolean {
	if (cursor.floor && compareOldestFirst({ atMs, id }, cursor.floor) < 0) return false;
	const handled = cursor.seen[id];
	if (handled === undefined) return true;
	return options.updatedResponses === 'emit' && atMs > handled;
}

/** Oldest first; ties (same millisecond) in a fixed order, by id. */
export function compareOldestFirst(a: { atMs: number; id: string }, b: { atMs: number; id: string }): number {
	return a.atMs - b.atMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * The cursor after a complete read: the window slides to trail the newest timestamp seen, never
 * backwards, and forgets what fell out of it.
 */
export function advanceCursor(cursor: FormCursor, handled: Iterable<HandledVersion>, options: CursorOptions): FormCursor {
	const { seen, newestMs } = mergeHandled(cursor, handled);
	const currentSinceMs = Date.parse(cursor.since);
	const sinceMs = newestMs === undefined ? currentSinceMs : Math.max(currentSinceMs, newestMs - options.lookBackMs);
	const next: FormCursor = { ...cursor, since: new Date(sinceMs).toISOString(), seen: pruneSeen(seen, sinceMs), newestMs };
	delete next.resumeOffset;
	if (next.floor && next.floor.atMs < sinceMs) delete next.floor;
	return next;
}

/**
 * The cursor after a read that stopped early (poll time budget): `since` must not move, since
 * responses not read yet may lie anywhere after it; what was handled is remembered, and the
 * next poll goes on from `resumeOffset`. New responses only push others to later offsets, so
 * going on from there re-reads a few (they are in `seen`) and skips none.
 */
export function rememberHandled(
	cursor: FormCursor,
	handled: Iterable<HandledVersion>,
	resumeOffset: number,
): FormCursor {
	return { ...cursor, ...mergeHandled(cursor, handled), resumeOffset };
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

function pruneSeen(seen: Record<string, number>, sinceMs: number): Record<string, number> {
	const kept: Record<string, number> = {};
	for (const [id, atMs] of Object.entries(seen)) if (atMs >= sinceMs) kept[id] = atMs;
	return kept;
}
