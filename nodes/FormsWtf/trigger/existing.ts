/**
 * The Newest Existing Responses (On Activation): choosing them is finding a floor. Each form's
 * cursor reads a window of time before activation (the last hour, then a day, a week, a month,
 * a year, then all) with the same reader, proof of continuity, failure and deadline policy as
 * every other read (see pollOnce); what it reads is not emitted but kept as a candidate. Once
 * every form has read the window whole, a window holding at least `limit` existing responses
 * holds the newest `limit` of all: the oldest of them is the floor, and each form's cursor
 * starts there, so that the normal reading emits the chosen ones and everything newer. A window
 * holding fewer gives way to the next, larger one.
 */
import { compareOldestFirst, without } from './cursor';
import type { FormCursor, NewestChoice, TriggerState } from './state';
import { choosingCursor, LAST_ID, startedAt } from './state';
import { LAST_EXISTING_WINDOW } from './time';

/** [formId, responseId, submittedAt ms]: an existing response that may be among the newest. */
export type ExistingResponse = [string, string, number];

/** The lowest `since` there is: every response of the form. */
const BEGINNING = new Date(0).toISOString();

/** Starts choosing the newest `limit` existing responses of these forms. */
export function startChoice(state: TriggerState, formIds: string[], limit: number): void {
	state.choice = { limit, window: 0, forms: [...formIds], chosen: [] };
	for (const formId of formIds) state.forms[formId] = choosingCursor(state.activatedAtMs, 0);
}

/** The candidates of one poll: what the choice holds, and what this poll's reads add. */
export class Candidates {
	private readonly byKey = new Map<string, ExistingResponse>();
	/** Every response this window's reads visited, kept or not (see visit). */
	private readonly visited = new Set<string>();

	constructor(
		private readonly choice: NewestChoice,
		private readonly activatedAtMs: number,
	) {
		for (const entry of choice.chosen) this.byKey.set(keyOf(entry), entry);
	}

	/** An existing response a choosing read saw. */
	visit(formId: string, id: string, atMs: number): void {
		const entry: ExistingResponse = [formId, id, atMs];
		const key = keyOf(entry);
		// Updated while the activation read it (served again, later in the read, in a version from
		// after activation): it ranks by the version it had before, which may have given way to
		// newer candidates already, and must not come back newer.
		const visitedBefore = this.visited.has(key);
		this.visited.add(key);
		const known = this.byKey.get(key);
		if (atMs >= this.activatedAtMs && (known ? known[2] < this.activatedAtMs : visitedBefore))
			return;
		this.byKey.set(key, entry);
		if (this.byKey.size > 2 * this.choice.limit) this.keepNewest();
	}

	/** Writes the newest `limit` candidates back into the choice. */
	save(): void {
		this.keepNewest();
		this.choice.chosen = [...this.byKey.values()];
	}

	private keepNewest(): void {
		const kept = [...this.byKey.values()].sort(newestFirst).slice(0, this.choice.limit);
		this.byKey.clear();
		for (const entry of kept) this.byKey.set(keyOf(entry), entry);
	}
}

/**
 * After a poll's reads: forms that left the choice (taken out of the selection, missing from
 * the list of forms or denied — not in `listedFormIds` —, or making no progress — a choosing
 * read counted it in `choiceStalls` — on `leaveOutAfterPolls` of the choice's polls, in a row or
 * not, so that a form failing often but not always cannot hold up the others either) go on
 * with their new responses only; when every form still in the choice has read the window
 * whole, the choice goes on to the next window or ends with the floor.
 */
export function settleChoice(
	state: TriggerState,
	listedFormIds: Set<string>,
	lookBackMs: number,
	leaveOutAfterPolls: number,
): 'waiting' | 'nextWindow' | 'chosen' {
	// Called only while there is a choice (pollOnce).
	const choice = state.choice as NewestChoice;
	let lostCandidates = false;
	for (const formId of [...choice.forms]) {
		const cursor = state.forms[formId] as FormCursor | undefined;
		const stays =
			cursor?.choice !== undefined &&
			listedFormIds.has(formId) &&
			(cursor.choiceStalls ?? 0) < leaveOutAfterPolls;
		if (stays) continue;
		choice.forms = choice.forms.filter((id) => id !== formId);
		if (cursor) state.forms[formId] = leftOut(cursor, state.activatedAtMs, lookBackMs);
		lostCandidates ||= choice.chosen.some((entry) => entry[0] === formId);
	}
	if (lostCandidates) {
		// The candidates of the forms that stay may have given way to those of the form that left:
		// the window is read again (what is known stays; nothing is emitted twice, nothing yet is).
		choice.chosen = choice.chosen.filter((entry) => choice.forms.includes(entry[0]));
		for (const formId of choice.forms) readWindow(state, formId, choice.window);
		return 'waiting';
	}
	if (!choice.forms.every((formId) => state.forms[formId].choice === 'read')) return 'waiting';
	if (choice.chosen.length < choice.limit && choice.window < LAST_EXISTING_WINDOW) {
		choice.window++;
		for (const formId of choice.forms) readWindow(state, formId, choice.window);
		return 'nextWindow';
	}
	const chosen = [...choice.chosen].sort(newestFirst).slice(0, choice.limit);
	const oldest = chosen[chosen.length - 1];
	// Fewer than asked for exist: all of them are emitted. Chosen among what the activation's read
	// saw after its moment, the floor stays at the moment: a response submitted since that the read
	// did not see is new (those it saw stay in `seen`, below).
	const floor =
		chosen.length < choice.limit
			? undefined
			: oldest[2] < state.activatedAtMs
				? { atMs: oldest[2], id: oldest[1] }
				: { atMs: state.activatedAtMs - 1, id: LAST_ID };
	// Existing responses the choosing reads handled in the look-back window, the chosen ones aside,
	// stay handled, and the first read looks back that far: an update of one is not new (as with
	// Only New Responses).
	const since = floor
		? new Date(Math.min(floor.atMs, state.activatedAtMs - lookBackMs) - 1).toISOString()
		: BEGINNING;
	for (const formId of choice.forms) {
		const seen = { ...state.forms[formId].seen };
		for (const [chosenForm, id] of chosen) if (chosenForm === formId) delete seen[id];
		state.forms[formId] = floor ? { since, seen, floor } : { since, seen };
	}
	delete state.choice;
	return 'chosen';
}

/** A form of the choice reads a window from its start, keeping what its reads handled. */
function readWindow(state: TriggerState, formId: string, window: number): void {
	const cursor = state.forms[formId];
	const reading = choosingCursor(state.activatedAtMs, window, cursor.seen);
	state.forms[formId] = without({ ...cursor, ...reading }, 'resume');
}

/**
 * A form out of the choice: its existing responses are left out (those its choosing reads
 * handled stay in `seen`, whatever their time), its new ones count.
 */
function leftOut(cursor: FormCursor, activatedAtMs: number, lookBackMs: number): FormCursor {
	const next = { ...cursor, ...startedAt(activatedAtMs - 1, lookBackMs), seen: cursor.seen };
	return without(next, 'choice', 'choiceStalls', 'resume');
}

function keyOf(entry: ExistingResponse): string {
	return `${entry[0]}/${entry[1]}`;
}

function newestFirst(a: ExistingResponse, b: ExistingResponse): number {
	return compareOldestFirst({ atMs: b[2], id: b[1] }, { atMs: a[2], id: a[1] });
}
