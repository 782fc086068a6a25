/** The newest N existing responses (On Activation, Emit), found over as many polls as needed. */
import { isTransientError } from '../shared/transport/errors';
import { compareOldestFirst, submittedAtMs } from './cursor';
import type { FormCursor, TriggerState } from './state';
import { LAST_ID } from './state';
import { PollAllowance } from './allowance';
import type { Listing } from './listing';
import type { TriggerSettings } from './settings';
import { DAY_MS, HOUR_MS } from './time';

/** Growing windows before activation in which Emit Existing Responses looks for the newest ones; undefined: all. */
const EXISTING_WINDOWS_MS = [HOUR_MS, DAY_MS, 7 * DAY_MS, 31 * DAY_MS, 366 * DAY_MS, undefined];

/** The lowest `since` there is: every response of the form. */
const BEGINNING = new Date(0).toISOString();

/**
 * Emit Existing Responses: finds the newest `limit` existing responses without reading every
 * response of a large form. It reads the responses of a recent window of time (the last hour
 * before activation, then a day, a week, a month, a year, then all) from every form, page by page
 * within the poll budget and across as many polls as needed (each form goes on from its
 * `backfillOffset`), keeping the newest `limit`. A window that holds `limit` of them holds the
 * newest `limit` of all; a window that holds fewer gives way to the next, larger one. Then each
 * form's cursor starts at the oldest chosen response (its `floor`): the normal reading emits the
 * chosen ones and everything newer, also what arrived meanwhile.
 */
export async function readExisting(
	settings: TriggerSettings,
	state: TriggerState,
	listing: Listing,
	allowance: PollAllowance,
): Promise<void> {
	const progress = state.backfill;
	if (!progress) return;
	const listed = new Set(listing.forms.map((form) => form.id));
	const newest = new Map<string, [string, string, number]>();
	for (const entry of progress.newest) newest.set(`${entry[0]}/${entry[1]}`, entry);
	const oldestFirst = (a: [string, string, number], b: [string, string, number]) =>
		compareOldestFirst({ atMs: a[2], id: a[1] }, { atMs: b[2], id: b[1] });
	const keepNewestExisting = (force: boolean) => {
		if (newest.size <= progress.limit * (force ? 1 : 2)) return;
		const kept = [...newest.values()].sort((a, b) => oldestFirst(b, a)).slice(0, progress.limit);
		newest.clear();
		for (const entry of kept) newest.set(`${entry[0]}/${entry[1]}`, entry);
	};

	for (;;) {
		const windowMs = EXISTING_WINDOWS_MS[progress.window];
		const since =
			windowMs === undefined ? undefined : new Date(state.activatedAtMs - windowMs).toISOString();
		for (const formId of [...progress.forms]) {
			const cursor = state.forms[formId];
			if (cursor?.backfillOffset === undefined) continue;
			const leaveOut = () => {
				progress.forms = progress.forms.filter((id) => id !== formId);
				state.forms[formId] = {
					since: cursor.since,
					seen: {},
					floor: { atMs: state.activatedAtMs, id: LAST_ID },
				};
			};
			if (!listed.has(formId)) {
				// Gone from the listing: its existing responses are left out, its new ones still count.
				leaveOut();
				continue;
			}
			if (!allowance.mayRead()) break;
			// Choosing the newest existing ones needs no proof of continuity: what they choose is
			// only where emitting starts, and everything after it is read by the cursor.
			const start =
				cursor.backfillOffset > 0 ? { offset: cursor.backfillOffset, anchors: [] } : undefined;
			const read = await allowance.readForm({ formId, since }, start, (page) => {
				for (const response of page) {
					const atMs = submittedAtMs(response);
					// Responses after activation are new ones, emitted in any case.
					if (atMs !== undefined && atMs <= state.activatedAtMs) {
						newest.set(`${formId}/${response.id}`, [formId, response.id, atMs]);
					}
				}
				keepNewestExisting(false);
			});
			if (read.failure !== undefined) {
				// A form that is missing or denied never holds up the others' existing responses:
				// its own are left out, its new ones count once it can be read.
				if (isTransientError(read.failure) || settings.watch === 'form') throw read.failure;
				leaveOut();
				continue;
			}
			const reread: FormCursor = { ...cursor, backfillOffset: read.end };
			if (!read.cut) delete reread.backfillOffset;
			state.forms[formId] = reread;
		}
		keepNewestExisting(true);
		progress.newest = [...newest.values()];
		if (progress.forms.some((formId) => state.forms[formId]?.backfillOffset !== undefined)) return;
		if (newest.size >= progress.limit || windowMs === undefined) break;
		// Fewer than asked for in this window: read the next, larger one from its start.
		progress.window++;
		for (const formId of progress.forms)
			state.forms[formId] = { ...state.forms[formId], backfillOffset: 0 };
	}

	const chosen = progress.newest.sort(oldestFirst);
	const floor =
		chosen.length >= progress.limit ? { atMs: chosen[0][2], id: chosen[0][1] } : undefined;
	for (const formId of progress.forms) {
		if (!state.forms[formId]) continue;
		const since = floor ? new Date(floor.atMs - 1).toISOString() : BEGINNING;
		state.forms[formId] = floor ? { since, seen: {}, floor } : { since, seen: {} };
	}
	delete state.backfill;
}
