/**
 * On Activation, Emit the newest N existing responses: those submitted before the activation's
 * second (what comes in that second or later is new). Each form's newest are read where they
 * are — the first page of a newest-first list, the last pages of an oldest-first one — and the
 * N newest of them all give one floor: the oldest chosen. Every form's cursor then starts at that
 * floor, and the normal reading emits the chosen ones with the new ones.
 */
import type { FetchedPage } from '../shared/transport/paging';
import type { PollBudget, Version } from './read';
import { FormPages, orderOf, submittedAtMs } from '../shared/transport/paging';
import { compareVersions, NOT_WHOLE } from './read';
import type { NewestChoice, TriggerState } from './state';
import { cursorFrom } from './state';

/**
 * The existing responses of a form (submitted before `beforeMs`) read to find its newest `count`,
 * newest first; undefined when the poll ran out of pages before they were known. Throws
 * NOT_WHOLE when the pages kept moving.
 * They are read where they are, until the read holds an existing response older than the
 * `count`-th newest and than `backToMs`: all of that one's millisecond is then read too.
 */
export async function readNewest(
	budget: PollBudget,
	formId: string,
	count: number,
	beforeMs: number,
	backToMs = beforeMs,
): Promise<Version[] | undefined> {
	const pages = new FormPages(budget, formId);
	const existing = new Map<string, Version>();
	const take = ({ responses }: FetchedPage) => {
		for (const response of responses) {
			const atMs = submittedAtMs(response);
			if (atMs !== undefined && atMs < beforeMs)
				existing.set(response.id, { id: response.id, atMs, response });
		}
	};
	const newest = () => [...existing.values()].sort((a, b) => compareVersions(b, a));
	// Read on past the count-th newest's millisecond, and back to `backToMs` as far as the poll goes.
	const pastMs = (ms: (sorted: Version[]) => number) => {
		const sorted = newest();
		return sorted.length > count && sorted[sorted.length - 1].atMs < ms(sorted);
	};
	const newestKnown = () => pastMs((sorted) => sorted[count - 1].atMs);
	const enough = () => pastMs((sorted) => Math.min(sorted[count - 1].atMs, backToMs));
	let known: Version[] | undefined;
	const first = await pages.at(0);
	const order = orderOf(first.responses) || (await pages.orderByLast(first));
	let walked: Awaited<ReturnType<FormPages['walk']>> = 'whole';
	if (order === 1 && first.hasMore && first.total !== undefined) {
		// Oldest first: the newest are the last, read from a little before them to the end.
		for (let span = count + Math.ceil(count / 10) + 10; ; span *= 2) {
			const offset = Math.max(0, first.total - span);
			if (offset && !budget.mayRead()) return known;
			existing.clear();
			walked = await pages.walk(offset ? await pages.at(offset) : first, offset, take);
			if (walked !== 'whole' || offset === 0 || enough()) break;
			if (newestKnown()) known = newest();
		}
	} else walked = await pages.walk(first, 0, take, () => order === -1 && enough());
	if (walked === 'notWhole') throw NOT_WHOLE;
	if (walked !== 'cut') return newest();
	// Cut while reading back through the look-back window: the newest are known all the same.
	return known ?? (order === -1 && newestKnown() ? newest() : undefined);
}

/** Adds a form's newest to the choice: the newest `count` of all read so far are kept. */
export function addChosen(choice: NewestChoice, formId: string, versions: Version[]): void {
	const entries = new Map(choice.chosen.map((entry) => [`${entry[0]}/${entry[1]}`, entry]));
	for (const { id, atMs } of versions.slice(0, choice.count))
		entries.set(`${formId}/${id}`, [formId, id, atMs]);
	const byNewest = (a: NewestChoice['chosen'][0], b: NewestChoice['chosen'][0]) =>
		compareVersions({ atMs: b[2], id: b[1] }, { atMs: a[2], id: a[1] });
	choice.chosen = [...entries.values()].sort(byNewest).slice(0, choice.count);
	choice.pending = choice.pending.filter((id) => id !== formId);
	if (!choice.done.includes(formId)) choice.done.push(formId);
}

/**
 * A form leaves the choice (it keeps failing, is denied, or is no longer watched): none of its
 * responses count. When the choice was full, responses of the other forms it pushed out are
 * gone from it, so those forms are read again.
 */
export function leaveChoice(choice: NewestChoice, formId: string): void {
	const had = choice.chosen.some((entry) => entry[0] === formId);
	if (had && choice.chosen.length >= choice.count) {
		choice.pending.push(...choice.done.filter((id) => id !== formId));
		choice.done = [];
	}
	choice.chosen = choice.chosen.filter((entry) => entry[0] !== formId);
	choice.pending = choice.pending.filter((id) => id !== formId);
	choice.done = choice.done.filter((id) => id !== formId);
}

/**
 * Once every form is read: each form of the choice starts at the floor, the oldest chosen (or
 * at its beginning when fewer exist), and the choice is over. What the choosing read saw of the
 * look-back window and did not choose stays in `seen`, so that an update of one is known as such.
 */
export function settleChoice(state: TriggerState, lookBackMs: number): void {
	const { choice, activatedAtMs } = state;
	if (!choice || choice.pending.length) return;
	const oldest = choice.chosen.length >= choice.count ? choice.chosen.at(-1) : undefined;
	const floor = oldest ? { atMs: oldest[2], id: oldest[1] } : { atMs: 0, id: '' };
	const chosen = new Set(choice.chosen.map(([formId, id]) => `${formId}/${id}`));
	for (const formId of choice.done) {
		const seen = Object.entries(state.forms[formId]?.seen ?? {});
		const notChosen = seen.filter(([id]) => !chosen.has(`${formId}/${id}`));
		const cursor = cursorFrom(floor.atMs, activatedAtMs, lookBackMs);
		state.forms[formId] = { ...cursor, floor, seen: Object.fromEntries(notChosen) };
	}
	delete state.choice;
}
