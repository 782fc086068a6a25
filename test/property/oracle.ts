/**
 * The oracle: the trigger's promise as docs/trigger-promise.md states it, checked on a Trace.
 * Each property is separate and named, so a failure says which promise broke. It imports
 * nothing from nodes/: it judges what a user could see (the service's record of responses and
 * requests, and what each poll emitted or reported).
 *
 * It never reads the trigger's stored state. The moment of activation is the service's clock
 * (its Date header, whole seconds) at n8n's activation poll, the first one n8n kept.
 *
 * Within the promise's assumptions (schedule.ts, assumptionsOf) every property is checked;
 * beyond them only never twice (P1, P1i, P3) and never silent (P9, P10).
 *
 * What it assumes about the trigger (and nothing more):
 * - Items are emitted in Raw output mode: the response as the API sent it (`id`,
 *   `submittedAt`, `answers`), with `formId` under Selected Forms and All Forms. The simulated
 *   service names the version of each response in its first answer (`<id>#<n>`).
 */
import type { ResponseVersion, SimResponse } from '../sim/server';
import type { Emitted, PollRecord, Trace } from './run';
import { emitSinceMs, REQUEST_MS } from './run';
import { assumptionsOf, MISSING_FORM_ID, selectedFormIds } from './schedule';

export const PROPERTIES = {
	P1: 'P1 no response version is emitted twice (an id again only as a newer version)',
	P1i: 'P1i with Updated Responses = Ignore, no response is emitted twice within the look-back window',
	P2b: 'P2b every new response is emitted (its current version): one submitted after the activation second is new, whenever the activation read its form',
	P2c: 'P2c nothing existing (submitted before the activation second, or in it and seen by the activation) is emitted unless On Activation asks for it, nothing of a form not watched',
	P2d: 'P2d New Response (Ignore): an update of an existing response that was never emitted is not emitted',
	P3: 'P3 a response without a usable submittedAt is emitted at most once',
	P4a: 'P4a no false alarm: no error names a form that is read fine',
	P4b: 'P4b with Selected Forms and All Forms, a form answering 403/404 does not stop the other forms',
	P4c: "P4c with Selected Forms and All Forms, one form's failure never fails n8n's activation poll (that would keep the trigger inactive)",
	P5: 'P5 a poll does not wait out a Retry-After longer than its budget',
	P6: 'P6 with Selected Forms, a selected form the service does not have is reported by its ID',
	P7a: 'P7a the newest N: no existing response older than the newest N over the forms in the choice is emitted (a form that left the choice may count or not), nor one of a form out of the selection',
	P7b: 'P7b the newest N: the newest N existing responses of the forms that stayed in the choice are emitted',
	P7c: "P7c the newest N: no more than N existing responses are emitted (one that may count either way may take a chosen one's place, not add to them)",
	P8: 'P8 convergence: once the service is healthy and quiet, the trigger goes quiet within a bound of polls',
	P8b: 'P8b liveness: while its form is read fine (other forms may fail), also under edits at human rates, every response due is emitted within a bound of polls, or its form is named by an error',
	P9: 'P9 telling: a form that gets no page, or whose reads fail without emitting what they held back or moving their since, for 5 polls in a row is named by an error by then',
	P10: 'P10 never a silent loss: a response due that is never emitted has its form named by an error',
} as const;

export type PropertyId = keyof typeof PROPERTIES;

/** Beyond the assumptions: never twice and never silent. */
export const CHECKED_BEYOND: readonly PropertyId[] = ['P1', 'P1i', 'P3', 'P9', 'P10'];

export interface Violation {
	property: PropertyId;
	message: string;
}

function usable(submittedAt: unknown): boolean {
	return typeof submittedAt === 'string' && !Number.isNaN(Date.parse(submittedAt));
}

function versionOf(tag: string): number {
	const n = Number(tag.slice(tag.lastIndexOf('#') + 1));
	return Number.isInteger(n) ? n : NaN;
}

function describe(e: Emitted): string {
	return `${e.tag} (submittedAt ${JSON.stringify(e.submittedAt)}, poll ${e.poll})`;
}

export function check(trace: Trace): Violation[] {
	const violations: Violation[] = [];
	const add = (property: PropertyId, message: string) => violations.push({ property, message });
	const { settings } = trace.schedule;
	const byId = new Map<string, SimResponse>(trace.server.responses.map((r) => [r.id, r]));

	// P1 and P3: repeats.
	const emissions = new Map<string, Emitted[]>();
	for (const e of trace.emitted) emissions.set(e.id, [...(emissions.get(e.id) ?? []), e]);
	for (const [id, list] of emissions) {
		if (settings.updatedResponses === 'ignore') {
			// Ignore skips the new versions of responses the trigger still remembers: those handled
			// inside the look-back window (docs/trigger-promise.md, a limit of the promise). A version submitted more
			// than the window after the one emitted may come again.
			const lookBackMs = settings.lookBackMinutes * 60_000;
			const versions = byId.get(id)?.versions ?? [];
			const atOf = (e: Emitted) => versions.find((v) => v.n === versionOf(e.tag))?.atMs;
			for (let i = 1; i < list.length; i++) {
				if (startedAfresh(trace, list[i - 1], list[i])) continue;
				if (unseenSinceSelectedAgain(trace, list[i - 1], list[i])) continue;
				const [before, after] = [atOf(list[i - 1]), atOf(list[i])];
				if (before !== undefined && after !== undefined && after - before >= lookBackMs) continue;
				add(
					'P1i',
					`Updated Responses = Ignore, yet ${id} was emitted again within the look-back window: ${list.map(describe).join('; ')}`,
				);
				break;
			}
		}
		for (let i = 1; i < list.length; i++) {
			const [before, after] = [list[i - 1], list[i]];
			if (versionOf(after.tag) > versionOf(before.tag)) continue;
			if (startedAfresh(trace, before, after)) continue;
			if (!usable(before.submittedAt) && !usable(after.submittedAt) && before.tag === after.tag)
				continue; // P3's
			add(
				'P1',
				`${id} emitted again without a newer version: ${describe(before)} then ${describe(after)}`,
			);
		}
		const garbled = list.filter((e) => !usable(e.submittedAt));
		for (const tag of new Set(garbled.map((e) => e.tag))) {
			const times = garbled.filter((e) => e.tag === tag);
			// A form selected again started afresh: without a date, what it had is new to it.
			const again = times.slice(1).filter((e, i) => !startedAfresh(trace, times[i], e));
			if (again.length)
				add(
					'P3',
					`${tag} (submittedAt unusable) emitted ${times.length} times: ${times.map(describe).join('; ')}`,
				);
		}
	}

	// n8n's activation poll that n8n kept: its service clock is the moment of activation.
	const activation = activationPoll(trace);
	if (activation) checkActivation(trace, activation, add);
	checkConvergence(trace, add);
	const dueToBeTold = checkTelling(trace, add);

	// P6: a selected form the service does not have is named.
	const missingSelected =
		settings.watch === 'selectedForms' &&
		selectedFormIds(settings).includes(MISSING_FORM_ID) &&
		trace.selections.every((selection) => selection.formIds.includes(MISSING_FORM_ID));
	const namesMissing = (error: string) => error.includes(`"${MISSING_FORM_ID}"`);
	if (
		missingSelected &&
		activation !== undefined &&
		!trace.polls.some((poll) => poll.errors.some(namesMissing))
	) {
		add(
			'P6',
			`the selection holds ${MISSING_FORM_ID}, which the service does not have, and no poll reported it`,
		);
	}
	const leftAt = activation ? leftTheChoiceAt(trace, activation) : new Map<string, number>();
	/** Whether a form was out of the newest N's choice by a poll: it left, or was never in it. */
	const outOfTheChoiceBy = (formId: string, pollIndex: number): boolean =>
		activation !== undefined &&
		((leftAt.get(formId) ?? Infinity) <= pollIndex ||
			(settings.watch === 'selectedForms' &&
				trace.polls
					.slice(activation.index, pollIndex + 1)
					.some((p) => !selectionAt(trace, p.index).includes(formId))));
	for (const poll of trace.polls) {
		// P4a: no false alarm: no error while healthy (but the report of a selected form that
		// does not exist, and of a form whose reads failed and have not succeeded since).
		const missingThen =
			settings.watch === 'selectedForms' &&
			selectionAt(trace, poll.index).includes(MISSING_FORM_ID);
		const told = [...(dueToBeTold.get(poll.index) ?? [])];
		// A form that cannot be read in the time n8n gives a poll is not read fine: saying so, in
		// a poll that did run out of that time, is true.
		const outOfTime = spentPoll(poll);
		const failures = poll.errors.filter(
			(error) =>
				!(missingThen && namesMissing(error)) &&
				!told.some((formId) => error.includes(formId)) &&
				!(outOfTime && / made no progress: /.test(error)),
		);
		if (poll.healthyAtStart && failures.length) {
			add(
				'P4a',
				`poll ${poll.index} (${describePoll(poll)}) failed with nothing pending on the server: ${failures.join(' | ')}`,
			);
		}
		// P4c: the report of one failing form never fails n8n's activation poll.
		const aboutOneForm = poll.errors.filter((error) =>
			/^(Selected form|Form|Access to form) "/.test(error),
		);
		if (settings.watch !== 'form' && poll.activationFailed && aboutOneForm.length) {
			add(
				'P4c',
				`n8n's activation poll ${poll.index} (${describePoll(poll)}) failed on one form: ${aboutOneForm.join(' | ')}`,
			);
		}
		// P4b: a denied form does not stop the others: what the same poll emits for the other
		// forms when no form is denied, it emits (failing, it emits nothing).
		// While the newest N are chosen, a denied form leaves the choice at once; choosing among
		// the others may then take another poll (a failing form may hold the others back for no
		// more than 5 polls): the first poll it is denied in (of those whose state n8n kept) may
		// hold them back, no later one (the same poll without the denial starts from a state it
		// has left by then).
		// The choice is over at the first poll that emits a response of a form still in it: a form
		// that left it emits its new responses while the others are still chosen ("its new
		// responses still come").
		const choosing =
			settings.newestCount !== undefined &&
			emitSinceMs(settings) === undefined &&
			!trace.polls
				.slice(0, poll.index)
				.some((p) => p.emitted.some((e) => !outOfTheChoiceBy(e.formId, p.index)));
		const deniedFormIds = new Set(poll.requests.filter((r) => r.denied).map((r) => r.formId));
		const leavingNow =
			choosing &&
			[...deniedFormIds].some(
				(formId) =>
					!trace.polls
						.slice(0, poll.index)
						// A poll whose state n8n threw away (discarded, or lost to a restart) left the
						// choice as it was.
						.some(
							(p) =>
								keptUntil(trace, p, poll.index) &&
								p.requests.some((r) => r.denied && r.formId === formId),
						),
			);
		if (
			settings.watch !== 'form' &&
			poll.onlyDenialsAtStart &&
			poll.withoutDenials &&
			!leavingNow
		) {
			const denied = [
				...new Set(poll.requests.filter((r) => r.denied).map((r) => `${r.formId} (${r.status})`)),
			];
			const emittedTags = new Set(poll.emitted.map((e) => e.tag));
			const held = poll.withoutDenials.otherTags.filter((tag) => !emittedTags.has(tag));
			if (denied.length && held.length) {
				const failed = poll.errors.length ? ` (it failed: ${poll.errors.join(' | ')})` : '';
				add(
					'P4b',
					`poll ${poll.index} (${describePoll(poll)}): while ${denied.join(', ')} answered, it did not emit ${held.join(' ')} of the other forms, which the same poll emits when no form is denied${failed}`,
				);
			}
		}
		// P5: waits fit the budget. The poll's own time is its requests (REQUEST_MS each) and its
		// waits; the clock moving on by itself (a server event armed inside the poll) is not the poll's.
		const asked = Math.max(-1, ...poll.requests.map((r) => r.retryAfterMs ?? -1));
		if (asked > poll.budgetMs && poll.waitedMs > poll.budgetMs) {
			const took = poll.waitedMs + REQUEST_MS * poll.requests.length;
			add(
				'P5',
				`poll ${poll.index} (${describePoll(poll)}, budget ${poll.budgetMs} ms) got Retry-After ${asked / 1000} s and took ${took} ms of virtual time: ${poll.requests.length} requests of ${REQUEST_MS} ms and ${poll.waitedMs} ms of waiting (at most its budget plus its requests allowed)`,
			);
		}
	}
	const within = (trace.schedule.assumptions ?? assumptionsOf(trace.schedule)) === 'within';
	return within ? violations : violations.filter((v) => CHECKED_BEYOND.includes(v.property));
}

/**
 * n8n's activation poll that n8n kept: the first activation poll that did not fail n8n's
 * activation (one that did leaves the workflow inactive, and the next poll is an activation).
 */
function activationPoll(trace: Trace): PollRecord | undefined {
	return trace.polls.find((poll) => poll.activationTick && !poll.activationFailed);
}

type Add = (property: PropertyId, message: string) => void;

/**
 * The forms that really left the newest N's choice at some poll from the activation on: denied
 * (403/404), missing from a list of forms (All Forms), or without a page of responses on
 * TOLD_AFTER_POLLS polls from a failed read on: in a row, or, while the choice is under way, in
 * a row or not (a poll that did not ask it counts once a read of it failed; docs/trigger-promise.md).
 * A form left out of the selection is not in the choice at all (see inChoice).
 */
function leftTheChoice(trace: Trace, activation: PollRecord): Set<string> {
	return new Set(leftTheChoiceAt(trace, activation).keys());
}

/**
 * A poll that spent what it may read: four fifths of the time n8n gives it (the rest is left to
 * hand the items over), or its 40 pages.
 */
function spentPoll(poll: PollRecord): boolean {
	const pages = poll.requests.filter((r) => r.path.endsWith('/responses')).length;
	return poll.endMs - poll.startMs >= 0.8 * poll.budgetMs || pages >= 40;
}

/** A poll that read the list of forms (or needs none): one that could not fails as a whole. */
function listRead(poll: PollRecord): boolean {
	const lists = poll.requests.filter((r) => r.path === '/forms');
	return !lists.length || lists.some((r) => r.status === 200 && !r.faulted);
}

/**
 * A poll the service stopped: it got a Retry-After longer than what was left of its time to
 * read, or its last request failed (not tried again: the wait before a retry did not fit, or
 * the failures ended the reading).
 */
function stoppedByTheService(poll: PollRecord): boolean {
	const last = poll.requests.at(-1);
	const failedLast =
		last !== undefined && (last.faulted || last.status === 'ECONNRESET' || last.status >= 500);
	return (
		failedLast ||
		poll.requests.some(
			(r) =>
				r.status === 429 &&
				r.retryAfterMs !== undefined &&
				r.retryAfterMs > 0.8 * poll.budgetMs - (r.atMs - poll.startMs),
		)
	);
}

/** The forms of leftTheChoice, each with the first poll by which it had left. */
function leftTheChoiceAt(trace: Trace, activation: PollRecord): Map<string, number> {
	const { settings } = trace.schedule;
	const left = new Map<string, number>();
	/** Polls without a page in a row, from a failed read on. */
	const noPage = new Map<string, number>();
	/** The choice's polls without a page from a failed read on, in a row or not: a page does not reset it. */
	const stalls = new Map<string, number>();
	/** Forms whose newest were read: a poll gave them a page and neither failed nor cut them. */
	const chosen = new Set<string>();
	// The choice is under way until a poll emits a response of a form still in it.
	let choosing = true;
	for (const poll of trace.polls.slice(activation.index)) {
		for (const formId of trace.watchedFormIds) {
			const leaves = () => {
				if (!left.has(formId)) left.set(formId, poll.index);
			};
			const own = poll.requests.filter((r) => r.formId === formId);
			if (own.some((r) => r.denied)) leaves();
			if (settings.watch === 'allForms' && !poll.listedFormIds.includes(formId)) leaves();
			const page = own.some((r) => r.status === 200 && r.ids !== undefined && !r.faulted);
			const failed = own.some((r) => r.status !== 200 || r.faulted);
			// A poll that failed counts even when a page followed: the form may have left first
			// (and two polls at once may be one that failed and one that read).
			const noProgress = failed || ((noPage.get(formId) ?? 0) > 0 && !page);
			if (noProgress) noPage.set(formId, (noPage.get(formId) ?? 0) + 1);
			// A choosing read the poll cut (its time or its pages spent) made no progress either, nor
			// did a form the poll did not reach while it was stalling, or, still to be chosen, when
			// the service stopped the poll after its list of forms.
			const stalling = (stalls.get(formId) ?? 0) > 0;
			const spent = spentPoll(poll);
			const cut = own.length > 0 && spent;
			const unreached =
				own.length === 0 &&
				((!chosen.has(formId) && listRead(poll) && stoppedByTheService(poll)) ||
					(stalling && spent));
			if (choosing && (noProgress || cut || unreached))
				stalls.set(formId, (stalls.get(formId) ?? 0) + 1);
			if (
				(noPage.get(formId) ?? 0) >= TOLD_AFTER_POLLS ||
				(stalls.get(formId) ?? 0) >= TOLD_AFTER_POLLS
			)
				leaves();
			if (page) noPage.set(formId, 0);
			// A page on a poll that neither failed nor cut it: its newest are read.
			if (page && !noProgress && !cut) chosen.add(formId);
		}
		const stillIn = (formId: string) =>
			!left.has(formId) &&
			(settings.watch !== 'selectedForms' ||
				trace.polls
					.slice(activation.index, poll.index + 1)
					.every((p) => selectionAt(trace, p.index).includes(formId)));
		if (poll.emitted.some((e) => stillIn(e.formId))) choosing = false;
	}
	return left;
}

/**
 * Selected Forms: the form was taken out of the selection and selected again in between, and
 * started afresh: only a response without a date, or one of the second it started in (the
 * moment of the first poll that read the list of forms after it was selected again, or of a
 * later activation that started from before that poll), may come again (docs/trigger-promise.md).
 */
function startedAfresh(trace: Trace, before: Emitted, after: Emitted): boolean {
	if (!usable(after.submittedAt)) return trace.selections.some((s) => takenOut(s, before, after));
	const atMs = Date.parse(after.submittedAt as string);
	return trace.selections.some((selection, k) => {
		if (!takenOut(selection, before, after)) return false;
		const again = trace.selections.slice(k + 1).find((s) => s.formIds.includes(after.formId));
		if (again === undefined || again.fromPoll > after.poll) return false;
		const between = trace.polls.slice(again.fromPoll, after.poll + 1);
		const firstRead = between.find((poll) =>
			poll.requests.some((r) => r.path === '/forms' && r.status === 200 && !r.faulted),
		);
		const starts = [firstRead, ...between.filter((poll) => poll.activationTick)];
		return starts.some((poll) => {
			if (poll === undefined) return false;
			const { momentMs } = activationFacts(poll);
			return atMs >= momentMs && atMs < momentMs + 1000;
		});
	});
}

/**
 * Ignore, a form taken out of the selection and selected again between two emissions of a
 * response: it started afresh, and its reads since never showed an earlier version of the
 * response (they failed, or the first sight was already this one). As with P2d, an id whose
 * first sight is its update looks like a new response: the API shows no earlier version.
 */
function unseenSinceSelectedAgain(trace: Trace, before: Emitted, after: Emitted): boolean {
	const response = trace.server.responses.find((r) => r.id === after.id);
	if (response === undefined) return false;
	return trace.selections.some((selection, k) => {
		if (!takenOut(selection, before, after)) return false;
		const again = trace.selections.slice(k + 1).find((s) => s.formIds.includes(after.formId));
		if (again === undefined || again.fromPoll > after.poll) return false;
		return !trace.polls
			.slice(again.fromPoll, after.poll)
			.filter((poll) => keptUntil(trace, poll, after.poll))
			.some((poll) =>
				poll.requests.some((r) => {
					if (r.since === undefined || r.faulted || !r.ids?.includes(after.id)) return false;
					const shown = shownAt(response, r.atMs);
					return shown !== undefined && shown.n < versionOf(after.tag);
				}),
			);
	});
}

/**
 * Whether n8n kept what a poll's reads learned until `untilPoll`: not of a discarded poll, nor of
 * a poll that emitted nothing when a new activation (a restart) came before `untilPoll`.
 */
function keptUntil(trace: Trace, poll: PollRecord, untilPoll: number): boolean {
	return (
		poll.kind !== 'discarded' &&
		(poll.emitted.length > 0 ||
			!trace.polls.slice(poll.index + 1, untilPoll + 1).some((p) => p.activationTick))
	);
}

function takenOut(
	selection: { fromPoll: number; formIds: string[] },
	before: Emitted,
	after: Emitted,
): boolean {
	return (
		selection.fromPoll > before.poll &&
		selection.fromPoll <= after.poll &&
		!selection.formIds.includes(after.formId)
	);
}

/** The version of a response the API showed at `atMs` (undefined: not shown then). */
function shownAt(response: SimResponse, atMs: number): ResponseVersion | undefined {
	if (response.visibleAtMs > atMs) return undefined;
	if (response.deletedAtMs !== undefined && response.deletedAtMs <= atMs) return undefined;
	let shown: ResponseVersion | undefined;
	for (const version of response.versions)
		if ((version.n === 1 ? response.visibleAtMs : version.atMs) <= atMs) shown = version;
	return shown;
}

function tagOf(response: SimResponse, version: ResponseVersion): string {
	return `${response.id}#${version.n}`;
}

/** The selection in force at a poll (Selected Forms), from the trace's history. */
function selectionAt(trace: Trace, poll: number): string[] {
	let formIds = trace.selections[0]?.formIds ?? [];
	for (const selection of trace.selections)
		if (selection.fromPoll <= poll) formIds = selection.formIds;
	return formIds;
}

/**
 * What the activation poll tells about existing and new responses: the second of its moment
 * and what each form's read saw. The moment is the service's Date at the activation poll: the
 * second of its first answer, whatever its status (a 429 waited out after it does not move it).
 * Without a Date header the moment is the host's clock during the poll.
 */
function activationFacts(activation: PollRecord, dateAbsent = false, choosing = false) {
	const second = (ms: number) => Math.floor(ms / 1000) * 1000;
	const answers = activation.requests.filter((r) => typeof r.status === 'number');
	const [momentMs, lastMomentMs] =
		dateAbsent || !answers.length
			? [second(activation.startMs), second(activation.endMs)]
			: [second(answers[0].atMs), second(answers[0].atMs)];
	/**
	 * Per form: when its read first saw each response and every sight (the read: its pages with
	 * `since` up to the first that says no more follow; with the newest N, the read that chooses
	 * them, its pages without `since`), and what any request of it served.
	 */
	const reads = new Map<
		string,
		{
			seen: Map<string, number>;
			sights: Map<string, number[]>;
			served: Map<string, number[]>;
			done: boolean;
		}
	>();
	for (const request of activation.requests) {
		if (request.formId === undefined || !request.path.endsWith('/responses')) continue;
		const read = reads.get(request.formId) ?? {
			seen: new Map<string, number>(),
			sights: new Map<string, number[]>(),
			served: new Map<string, number[]>(),
			done: false,
		};
		for (const id of request.ids ?? []) {
			read.served.set(id, [...(read.served.get(id) ?? []), request.atMs]);
			// A page without `since` may be a probe of the clock, not a read of the form; a page
			// after the read came to its end reads the form again. With the newest N, the pages
			// with `since` read the form again to emit the chosen ones.
			const ofTheRead = choosing ? request.since === undefined : request.since !== undefined;
			if (!ofTheRead || read.done) continue;
			if (!read.seen.has(id)) read.seen.set(id, request.atMs);
			read.sights.set(id, [...(read.sights.get(id) ?? []), request.atMs]);
		}
		if (!choosing && request.since !== undefined && request.hasMore === false) read.done = true;
		reads.set(request.formId, read);
	}
	return { momentMs, lastMomentMs, reads };
}

/** The most newest existing responses the promise takes (docs/trigger-promise.md). */
const NEWEST_AT_MOST = 2000;

/** What a version is at activation: existing, new, or either (the promise allows both). */
type Standing = 'existing' | 'new' | 'either';

function checkActivation(trace: Trace, activation: PollRecord, add: Add): void {
	const { settings } = trace.schedule;
	const sinceMs = emitSinceMs(settings);
	// The newest N are at most 2,000; version 1 reads at most 2,000 of what it asks.
	const newestCount =
		sinceMs === undefined && settings.newestCount !== undefined
			? Math.min(settings.newestCount, NEWEST_AT_MOST)
			: undefined;
	const { momentMs, lastMomentMs, reads } = activationFacts(
		activation,
		settings.dateAbsent,
		newestCount !== undefined,
	);
	const byId = new Map<string, SimResponse>(trace.server.responses.map((r) => [r.id, r]));
	const watchedEver = new Set(trace.watchedFormIds);
	const finalPoll = trace.polls.length;
	// Selected Forms: watched from activation on = in every selection from the activation's on.
	const watchedThroughout = (formId: string): boolean =>
		settings.watch !== 'selectedForms' ||
		trace.selections.every(
			(selection, i) =>
				selection.formIds.includes(formId) ||
				(trace.selections[i + 1] !== undefined &&
					trace.selections[i + 1].fromPoll <= activation.index),
		);
	const servedVersion = (
		response: SimResponse,
		version: ResponseVersion,
		by: 'sights' | 'served',
	): boolean =>
		(reads.get(response.formId)?.[by].get(response.id) ?? []).some(
			(atMs) => shownAt(response, atMs) === version,
		);
	/**
	 * Existing: submitted before the activation second (and shown then: one that shows up late
	 * may count either way), or in that second and seen by the activation's read of its form
	 * (not with the newest N). New: submitted after that second, whenever the activation read
	 * its form.
	 */
	const standing = (response: SimResponse, version: ResponseVersion): Standing => {
		if (version.atMs < momentMs)
			return shownAt(response, activation.startMs) === version ? 'existing' : 'either';
		// With the newest N, the activation's second is new: they are chosen among the responses
		// submitted before it.
		if (newestCount !== undefined) return version.atMs >= lastMomentMs ? 'new' : 'either';
		if (version.atMs >= lastMomentMs + 1000) return 'new';
		if (momentMs !== lastMomentMs) return 'either';
		if (servedVersion(response, version, 'sights')) return 'existing';
		return servedVersion(response, version, 'served') ? 'either' : 'new';
	};
	const existing = (response: SimResponse, version: ResponseVersion): boolean =>
		standing(response, version) === 'existing';
	const describeAt = `activation at ${iso(momentMs)} (poll ${activation.index})`;

	// The newest N: the existing responses, newest first, of the forms the choice reads.
	const inChoice = (formId: string) =>
		watchedThroughout(formId) &&
		(settings.watch !== 'allForms' || activation.listedFormIds.includes(formId));
	const existingVersions: Array<{ response: SimResponse; version: ResponseVersion }> = [];
	/** The ids of the existing responses the newest N may hold (in whichever version was read). */
	let allowedExisting = new Set<string>();
	/** How many responses may count either way (band), and whether the choice's count is judged. */
	let eitherWay = 0;
	let countJudged = false;
	const undatedExisting: string[] = [];
	if (newestCount !== undefined) {
		for (const response of trace.server.responses) {
			if (!watchedEver.has(response.formId) || !inChoice(response.formId)) continue;
			// Ranked by its latest version that is existing, or that may be (one that showed up
			// late); an update after it is a new version and does not make it newer.
			const version = [...response.versions]
				.reverse()
				.find((v) => standing(response, v) !== 'new' && v.atMs < lastMomentMs + 1000);
			if (!version || (response.deletedAtMs ?? Infinity) <= activation.startMs) continue;
			// Without a date at some time, the trigger may or may not have ranked it.
			if (version.garble !== undefined) undatedExisting.push(response.id);
			else existingVersions.push({ response, version });
		}
		existingVersions.sort(
			(a, b) => b.version.atMs - a.version.atMs || (a.response.id < b.response.id ? 1 : -1),
		);
		// Each response that may count either way (its version between the seconds the moment
		// may be, served by the activation's probe only, or shown late), and each existing one
		// deleted or updated since, may take the place of one chosen; ties in the last millisecond
		// may go either way.
		const band =
			trace.server.responses.filter(
				(r) =>
					inChoice(r.formId) &&
					r.versions.some((v) => v.atMs < lastMomentMs + 1000 && standing(r, v) === 'either'),
			).length + undatedExisting.length;
		const changed = existingVersions.filter(
			({ response, version }) =>
				response.deletedAtMs !== undefined || response.versions.at(-1) !== version,
		).length;
		const reach = newestCount + band + changed;
		const newest = (among: typeof existingVersions): string[] => {
			const edge = among[Math.min(reach, among.length) - 1]?.version.atMs;
			return among.filter((e, i) => i < reach || e.version.atMs === edge).map((e) => e.response.id);
		};
		// A form that really left may be left out of the choice: then the newest N come from the
		// other forms. It left when it answered 403/404, was missing from a list of forms (All
		// Forms), or got no page for 5 polls after a failed read, in a row or, while the choice is
		// under way, not (docs/trigger-promise.md).
		const unreadable = leftTheChoice(trace, activation);
		// Any of them may have been left out. Leaving out more forms only moves a response up, so
		// a response is among the newest for some choice of them when it is with all of them left
		// out but its own form.
		const maybeLeftOut = [...unreadable];
		allowedExisting = new Set(undatedExisting);
		for (const kept of [undefined, ...maybeLeftOut]) {
			const out = maybeLeftOut.filter((formId) => formId !== kept);
			for (const id of newest(existingVersions.filter((e) => !out.includes(e.response.formId))))
				allowedExisting.add(id);
		}
		// P7b: the newest N - band - changed of the forms that stayed in the choice are all
		// emitted. Faults, denials and hidden forms do not excuse it: a form that left is out of
		// the choice, and the others only move up. Selection changes and garbled dates do.
		const disturbed = trace.schedule.steps.some((step) =>
			['select', 'garble', 'submitGarbled'].includes(step.kind),
		);
		eitherWay = band;
		countJudged = !disturbed;
		if (!disturbed) {
			const emittedTags = new Set(trace.emitted.map((e) => e.tag));
			const sure = existingVersions.slice(0, Math.max(0, newestCount - band - changed));
			for (const { response, version } of sure) {
				const tag = tagOf(response, version);
				if (response.deletedAtMs !== undefined || response.versions.at(-1) !== version) continue;
				if (unreadable.has(response.formId)) continue;
				// A version that may count either way is one of the band: an update after activation
				// when the moment is the earlier second, it may not be among the newest at all.
				if (standing(response, version) === 'either') continue;
				const emittedOne = emittedTags.has(tag);
				if (!emittedOne)
					add(
						'P7b',
						`${tag} of ${response.formId} (submitted ${iso(version.atMs)}) is among the newest ${newestCount} existing responses (${describeAt}) and was never emitted`,
					);
			}
		}
	}

	// P2b: every new response is emitted, in its current version.
	const emittedTags = new Set(trace.emitted.map((e) => e.tag));
	const emittedIds = new Set(trace.emitted.map((e) => e.id));
	const finalSelection = selectionAt(trace, finalPoll);
	/** P10: a response due and never emitted is a loss; named by an error from when it showed, it is not silent. */
	const lost = (response: SimResponse, version: ResponseVersion, message: string): void => {
		add('P2b', message);
		const shownFrom = version.n === 1 ? response.visibleAtMs : version.atMs;
		const named = trace.polls.some(
			(poll) => poll.endMs >= shownFrom && poll.errors.some((e) => e.includes(response.formId)),
		);
		if (!named) add('P10', `${message}, and no error named ${response.formId}`);
	};
	/** New: to be emitted (the activation's definitions; a form selected later from the poll that first saw it). */
	const isNewVersion = (response: SimResponse, v: ResponseVersion): boolean => {
		if (!watchedThroughout(response.formId)) {
			// Added to the selection later: new once it shows up after the poll that first saw the form.
			let from = 0;
			for (const [k, selection] of trace.selections.entries())
				if (!selection.formIds.includes(response.formId)) from = k + 1;
			// The first poll that read the list of forms after the selection changed, and whose
			// state n8n kept: n8n saves no poll that emits nothing, so a later activation (a
			// restart, a discarded poll) starts from before it; after the last one, it lives on.
			const lastActivation = trace.polls.filter((poll) => poll.activationTick).at(-1)?.index ?? 0;
			const firstPoll = trace.polls.find(
				(poll) =>
					poll.index >= Math.max(trace.selections[from].fromPoll, lastActivation) &&
					poll.requests.some((r) => r.status === 200 && !r.faulted),
			);
			const shownFrom = v.n === 1 ? response.visibleAtMs : v.atMs;
			// Visible late with a timestamp before that poll's moment: either way (as at activation).
			return (
				firstPoll !== undefined &&
				shownFrom > firstPoll.endMs &&
				v.atMs >= activationFacts(firstPoll).momentMs &&
				(sinceMs === undefined || v.atMs >= sinceMs)
			);
		}
		if (sinceMs !== undefined) return v.atMs >= sinceMs;
		return standing(response, v) === 'new';
	};
	for (const response of trace.server.responses) {
		if (!watchedEver.has(response.formId) || response.deletedAtMs !== undefined) continue;
		if (settings.watch === 'selectedForms' && !finalSelection.includes(response.formId)) continue;
		const version = response.versions[response.versions.length - 1];
		if (version.garble !== undefined) continue;
		const isNew = (v: ResponseVersion): boolean => isNewVersion(response, v);
		if (!isNew(version)) continue;
		if (settings.updatedResponses === 'emit') {
			const tag = tagOf(response, version);
			if (!emittedTags.has(tag)) {
				const others = trace.emitted.filter((e) => e.id === response.id).map(describe);
				lost(
					response,
					version,
					`${tagOf(response, version)} of ${response.formId} (submitted ${iso(version.atMs)}, ${describeAt}) was never emitted` +
						(others.length ? `; emitted: ${others.join('; ')}` : ''),
				);
			}
			continue;
		}
		// Ignore: required once, if it was new when it first appeared (an undated first version
		// shown at activation cannot be told from an existing one).
		const first = response.versions[0];
		const firstNew = response.versions.every(isNew);
		if (
			firstNew &&
			!response.versions.some((v) => v.garble !== undefined && v.atMs <= activation.endMs) &&
			!emittedIds.has(response.id)
		)
			lost(
				response,
				first,
				`${response.id} of ${response.formId} (first submitted ${iso(first.atMs)}, ${describeAt}) was never emitted`,
			);
	}

	// P8b: liveness under edits at human rates. While its form is read fine, a response due (a
	// new version shown, and none as new emitted since) is out within a bound of polls, or an
	// error names its form by then; polls with edits in between count, not only quiet ones, and
	// so do polls in which other forms fail: a failing form holds back no other form for more
	// than the polls it takes to name it.
	// The bound is tight while every poll of the wait reads what the promise says a poll reads
	// (fullPolls), and pessimistic as soon as one could read less.
	const bound = livenessBound(trace) + TOLD_AFTER_POLLS;
	const fullBound = fullPollsBound(trace) + TOLD_AFTER_POLLS;
	const formsWithDeletions = new Set(
		trace.server.responses.filter((r) => r.deletedAtMs !== undefined).map((r) => r.formId),
	);
	for (const response of trace.server.responses) {
		if (!watchedEver.has(response.formId) || !watchedThroughout(response.formId)) continue;
		if (response.versions.some((v) => v.garble !== undefined)) continue;
		let waiting = 0;
		let emittedUpTo = 0;
		/** Every poll counted in the wait so far read 40 pages or 2,000 items (fullPoll). */
		let onlyFullPolls = true;
		for (const poll of trace.polls.slice(activation.index)) {
			const shown = shownAt(response, poll.startMs);
			const owed =
				shown !== undefined &&
				(settings.updatedResponses === 'emit'
					? isNewVersion(response, shown) && emittedUpTo < shown.n
					: emittedUpTo === 0 &&
						response.versions
							.filter((v) => v.n <= shown.n)
							.every((v) => isNewVersion(response, v)));
			const watched =
				settings.watch === 'allForms'
					? poll.listedFormIds.includes(response.formId)
					: selectionAt(trace, poll.index).includes(response.formId) || settings.watch === 'form';
			const readFine =
				!poll.failingAtStart.all && !poll.failingAtStart.formIds.includes(response.formId);
			if (!owed) waiting = 0;
			else if (watched && readFine && (poll.kind === 'poll' || poll.kind === 'final')) {
				if (waiting === 0) onlyFullPolls = true;
				onlyFullPolls &&= fullPoll(trace, poll);
				waiting++;
			}
			if (poll.errors.some((error) => error.includes(response.formId))) waiting = 0;
			// Each emission of it is progress (under steady updates a newer version is due at once).
			for (const e of poll.emitted)
				if (e.id === response.id) {
					emittedUpTo = Math.max(emittedUpTo, versionOf(e.tag));
					waiting = 0;
				}
			// An update, or a response submitted while another is deleted, leaves the form's count
			// in the list of forms as it was: with several forms it may be found only when the
			// form's turn comes round (convergenceBound's room).
			const countKept =
				(shown !== undefined && shown.n > 1) || formsWithDeletions.has(response.formId);
			const rotation = countKept && settings.watch !== 'form' ? 20 : 0;
			const allowed = onlyFullPolls ? fullBound + rotation : bound;
			if (waiting > allowed) {
				add(
					'P8b',
					`${tagOf(response, shown as ResponseVersion)} of ${response.formId} was due for ${waiting} polls that read its form fine (to poll ${poll.index}, ${describePoll(poll)}) and was not emitted, nor was its form named by an error; at most ${allowed} for ${trace.server.responses.length} responses in pages of ${settings.pageCap}${onlyFullPolls ? ', every poll of the wait reading 40 pages or 2,000 items' : ''}`,
				);
				break;
			}
		}
	}

	// P2c and P7a: nothing existing (but what On Activation asks for), nothing unwatched.
	/** P7c: the existing responses the newest N emitted (each once, whichever version). */
	const existingEmitted = new Map<string, Emitted>();
	for (const e of trace.emitted) {
		const response = byId.get(e.id);
		const version = response?.versions.find((v) => v.n === versionOf(e.tag));
		const watchedThen =
			settings.watch !== 'selectedForms' || selectionAt(trace, e.poll).includes(e.formId);
		if (!response || !version) {
			add('P2c', `emitted something the service never had: ${describe(e)}`);
		} else if (!watchedEver.has(response.formId) || e.formId !== response.formId || !watchedThen) {
			add(
				'P2c',
				`emitted ${describe(e)} of ${response.formId} as ${e.formId}, which is not watched`,
			);
		} else if (!usable(e.submittedAt)) {
			// Without a date the trigger cannot tell an existing response from a new one: it is
			// emitted once (P3).
			continue;
		} else if (sinceMs !== undefined) {
			// Every response submitted at or after the date, existing or not: none before it, of a
			// form watched from the start or later.
			if (version.atMs < sinceMs)
				add(
					'P2c',
					`emitted ${describe(e)}, submitted ${iso(version.atMs)} before the date ${iso(sinceMs)}`,
				);
		} else if (!watchedThroughout(response.formId)) {
			// A form selected later is judged from the poll that first saw it.
			continue;
		} else if (newestCount !== undefined && inChoice(response.formId)) {
			// The newest N: an existing version is one of the chosen (a new version of a chosen
			// response, an update since, is new).
			const existingBefore = existing(response, version);
			if (existingBefore && !existingEmitted.has(e.id)) existingEmitted.set(e.id, e);
			if (existingBefore && !allowedExisting.has(e.id))
				add(
					'P7a',
					`emitted ${describe(e)}, submitted ${iso(version.atMs)}: existing (${describeAt}) and older than the newest ${newestCount}`,
				);
		} else if (existing(response, version)) {
			add(
				'P2c',
				`emitted ${describe(e)}, submitted ${iso(version.atMs)}: existing (${describeAt}${reads.get(response.formId)?.seen.has(response.id) ? ', seen by its read' : ''})`,
			);
		}
	}
	// P7c: a response deleted or updated while they are chosen gives its place to the next older
	// one, and one that may count either way takes the oldest chosen one's: never more than N
	// (the band of those that may count either way allowed, as P7b allows it).
	if (newestCount !== undefined && countJudged && existingEmitted.size > newestCount + eitherWay)
		add(
			'P7c',
			`${existingEmitted.size} existing responses were emitted for the newest ${newestCount} (${describeAt}; ${eitherWay} may count either way): ${[...existingEmitted.values()].map(describe).join(', ')}`,
		);
	// Existing at activation and watched from it; the newest N may choose it, a date may ask for it.
	checkIgnoredUpdates(
		trace,
		activation,
		momentMs,
		(response, version) =>
			!watchedThroughout(response.formId) ||
			(settings.watch === 'allForms' && !activation.listedFormIds.includes(response.formId)) ||
			(newestCount !== undefined && allowedExisting.has(response.id)) ||
			(sinceMs !== undefined && version.atMs >= sinceMs),
		add,
	);
}

/**
 * P2d: with New Response (Ignore), an existing response that was not emitted stays out when it
 * is updated: an update is not a new response. The documented limit: the trigger remembers only
 * what is inside the look-back window, so an update more than the look-back window after the
 * version before it, or of an existing response older than the look-back window at activation
 * (only the newest N's reads look that far back, and they do not keep it), may come as new. A
 * response without a date at some time is left out (P3's).
 */
function checkIgnoredUpdates(
	trace: Trace,
	activation: PollRecord,
	momentMs: number,
	mayBeChosen: (response: SimResponse, version: ResponseVersion) => boolean,
	add: Add,
): void {
	const { settings } = trace.schedule;
	if (settings.updatedResponses !== 'ignore') return;
	const lookBackMs = settings.lookBackMinutes * 60_000;
	const first = new Map<string, Emitted>();
	for (const e of trace.emitted) if (!first.has(e.id)) first.set(e.id, e);
	for (const response of trace.server.responses) {
		const e = first.get(response.id);
		if (e === undefined || response.versions.some((v) => v.garble !== undefined)) continue;
		const existingVersion = shownAt(response, activation.startMs);
		if (existingVersion === undefined || existingVersion.atMs >= momentMs) continue;
		if (mayBeChosen(response, existingVersion)) continue;
		// Only what the trigger could tell: an id whose first sight is already its update looks
		// like a new response (the API shows no earlier version); one it read before is not,
		// until the update is more than the look-back window after the version it last read. An
		// existing version it read older than the look-back window at activation is no sight of it:
		// it was never inside the window, and a later read of its update is a first sight.
		const n = versionOf(e.tag);
		let sawExisting = false;
		// The version before the one emitted, as last read: a read of the emitted version itself is
		// no memory of an earlier one (seed 79002).
		let lastReadAtMs = -Infinity;
		// n8n keeps no state of a poll that emits nothing past a new activation (a restart), nor
		// of a discarded poll: what such a poll read is not remembered.
		const kept = (poll: PollRecord) => keptUntil(trace, poll, e.poll);
		for (const poll of trace.polls.slice(activation.index, e.poll).filter(kept))
			for (const r of poll.requests) {
				// A probe of the clock (no `since`) is not a read.
				const read = r.since !== undefined && r.ids?.includes(response.id);
				const shown = read ? shownAt(response, r.atMs) : undefined;
				if (shown === undefined || shown.n >= n) continue;
				sawExisting ||= shown.atMs < momentMs && shown.atMs >= momentMs - lookBackMs;
				lastReadAtMs = Math.max(lastReadAtMs, shown.atMs);
			}
		const emittedVersion = response.versions.find((v) => v.n === n);
		if (!sawExisting || !emittedVersion || n <= existingVersion.n) continue;
		if (emittedVersion.atMs - lastReadAtMs >= lookBackMs) continue;
		add(
			'P2d',
			`${describe(e)} is an update of ${tagOf(response, existingVersion)} of ${response.formId}, existing at activation (${iso(momentMs)}, poll ${activation.index}) and never emitted`,
		);
	}
}

/**
 * How many final polls a healthy, quiet service may take to drain what is due (see P8): a
 * generous bound from outside, on the service's pages alone (at least 40 pages a poll; every
 * page of every form read 7 times over for the newest N, however the trigger chooses them).
 */
function convergenceBound(trace: Trace): number {
	const { settings } = trace.schedule;
	const responses = trace.server.responses.filter((r) => r.deletedAtMs === undefined).length;
	const perPage = Math.max(1, Math.min(settings.pageCap, 1000));
	const pagesPerForm = Math.ceil(responses / perPage) + 1;
	const passes = settings.newestCount !== undefined ? 7 : 1;
	// Several forms: a form whose count in the listing did not change (an update) may be read in
	// rotation (the idle cost of All Forms): room for 20 polls.
	const rotation = settings.watch === 'form' ? 0 : 20;
	return 10 + rotation + Math.ceil((passes * pagesPerForm * settings.formCount) / 40) * 2;
}

/**
 * How many polls a due response may wait while its form is read fine (see P8b): the
 * convergence bound, with room for polls that read one page each (a budget cut after the first
 * page), twice over on a service that lists newest first (an update lands above a read under
 * way and may wait for the next).
 */
function livenessBound(trace: Trace): number {
	const { settings } = trace.schedule;
	const responses = trace.server.responses.length;
	const perPage = Math.max(1, Math.min(settings.pageCap, 1000));
	const pagesPerForm = Math.ceil(responses / perPage) + 1;
	const passes = settings.newestCount !== undefined ? 7 : 1;
	const overtaken = settings.order === 'newestFirst' ? 2 : 1;
	return convergenceBound(trace) + overtaken * passes * pagesPerForm * settings.formCount;
}

/**
 * Whether a poll reads what the promise's fifth assumption says one poll reads: 40 pages (or
 * 2,000 items) in four fifths of its budget, at the service's pace; n8n's normal budget (5
 * minutes) and its durable scheduler's 36 s when 36 s covers 40 requests. A smaller budget may
 * cut a poll after any page (livenessBound).
 */
function fullPoll(trace: Trace, poll: PollRecord): boolean {
	const requestMs = trace.schedule.settings.requestMs ?? REQUEST_MS;
	return poll.budgetMs >= 36_000 && (0.8 * poll.budgetMs) / requestMs >= 40;
}

/**
 * How many polls that each read 40 pages or 2,000 items (fullPoll) a due response may wait
 * while its form is read fine (see P8b). Every form's look-back window fits in one poll's 40
 * pages (the fifth assumption), and what a poll cuts behind other forms comes first on the
 * next: each watched form needs a poll for its read, one more for each 2,000 of its responses
 * (the items a poll hands over), 7 times over for the newest N (as convergenceBound); then 3
 * more: the activation's poll, a read that an edit overtakes (newest first), and one to spare.
 * Counted on every response the form ever had, deleted or not: an over-count, never an under.
 */
function fullPollsBound(trace: Trace): number {
	const { settings } = trace.schedule;
	const passes = settings.newestCount !== undefined ? 7 : 1;
	const forms = settings.watch === 'form' ? ['form0'] : trace.watchedFormIds;
	const pollsForForms = forms.reduce((sum, formId) => {
		const responses = trace.server.responses.filter((r) => r.formId === formId).length;
		return sum + 1 + Math.floor(responses / 2_000);
	}, 0);
	return passes * pollsForForms + 3;
}

function checkConvergence(trace: Trace, add: Add): void {
	const finals = trace.polls.filter((poll) => poll.kind === 'final');
	if (!trace.converged) {
		add(
			'P8',
			`after ${finals.length} polls on a healthy, quiet service the trigger still emits or reads (last emitted: poll ${finals.filter((p) => p.emitted.length).at(-1)?.index ?? '-'})`,
		);
		return;
	}
	const lastBusy = finals.reduce((last, poll, i) => (poll.emitted.length ? i + 1 : last), 0);
	const bound = convergenceBound(trace);
	if (lastBusy > bound)
		add(
			'P8',
			`the healthy, quiet service took ${lastBusy} polls to drain; at most ${bound} for ${trace.server.responses.length} responses in pages of ${trace.schedule.settings.pageCap}`,
		);
}

/** Polls in a row a form may make no progress before an error must name it. */
const TOLD_AFTER_POLLS = 5;

/**
 * P9, and for each poll the forms whose reads failed and have not succeeded since: an error
 * naming one of them tells the truth (P9 asks for it by the 5th such poll), never a failure P4a
 * judges.
 */
function checkTelling(trace: Trace, add: Add): Map<number, Set<string>> {
	const { settings } = trace.schedule;
	const dueToBeTold = new Map<number, Set<string>>();
	/** When each version (by its tag) showed up in the API. */
	const shownFrom = new Map(
		trace.server.responses.flatMap((r) =>
			r.versions.map((v) => [tagOf(r, v), v.n === 1 ? r.visibleAtMs : v.atMs] as const),
		),
	);
	for (const formId of trace.watchedFormIds) {
		let stuck = 0;
		let runStart = 0;
		let told = false;
		/** Since a read of the form failed, no read of it succeeded (in the state n8n has). */
		let failing = false;
		/** What n8n stored last: a new activation starts from it (what was told then stays told). */
		let stored = { told, failing };
		for (const [i, poll] of trace.polls.entries()) {
			if (i > 0 && poll.activationTick) ({ told, failing } = stored);
			tellingAt(i, poll);
			const stores =
				poll.kind !== 'discarded' &&
				(poll.emitted.length > 0 || (poll.activationTick && !poll.activationFailed));
			if (stores) stored = { told, failing };
		}
		/**
		 * Whether a read that ended in a failure moved the form: it emitted a version shown before
		 * the poll before began, or the form's next read asks a later `since` that passes responses
		 * or comes with what the poll emitted.
		 */
		function movedDespiteFailure(i: number, poll: PollRecord): boolean {
			const before = i > 0 ? trace.polls[i - 1].startMs : -Infinity;
			const held = (e: Emitted) =>
				e.formId === formId && (shownFrom.get(e.tag) ?? Infinity) <= before;
			if (poll.emitted.some(held)) return true;
			const sinceOf = (p: PollRecord) =>
				p.requests.find((r) => r.formId === formId && r.since !== undefined)?.since;
			const asked = sinceOf(poll);
			const next = trace.polls.slice(i + 1).find((p) => sinceOf(p) !== undefined);
			if (asked === undefined || next === undefined) return false;
			const [fromMs, toMs] = [Date.parse(asked), Date.parse(sinceOf(next) as string)];
			// A since that passes responses, or moves while the poll emits: not one that only
			// follows the clock.
			if (toMs > fromMs && poll.emitted.some((e) => e.formId === formId)) return true;
			return trace.server.responses.some(
				(r) => r.formId === formId && r.versions.some((v) => v.atMs > fromMs && v.atMs <= toMs),
			);
		}
		function tellingAt(i: number, poll: PollRecord): void {
			// The count lives in the state n8n keeps: a new activation, a discarded poll, two
			// polls at once start it again. A form no longer watched (not listed, not selected)
			// has nothing to tell.
			// (What was told since the last progress stays told: a report repeats only every 60 polls.)
			const watched =
				settings.watch === 'allForms'
					? poll.listedFormIds.includes(formId)
					: settings.watch !== 'selectedForms' || selectionAt(trace, poll.index).includes(formId);
			if (poll.activationTick || poll.kind === 'discarded' || poll.kind === 'together' || !watched)
				stuck = 0;
			if (!watched) return;
			// A poll that could not read the list of forms fails as a whole, told by its own rule
			// (the 5th such poll in a row): it neither moves the form nor counts against it.
			if (!listRead(poll)) return;
			const reads = poll.requests.filter(
				(r) => r.formId === formId && r.path.endsWith('/responses'),
			);
			const served = (r: (typeof reads)[0]) => r.status === 200 && r.ids !== undefined;
			const lastServed = reads.length > 0 && served(reads[reads.length - 1]);
			// A page read with `since` is progress. One without (a probe of the clock, or a read of
			// the newest) is progress only when no read of the form failed after it. A read that
			// ended in a failure is progress only when it moved the form: the newest page read on
			// every poll while the pages past it fail is none.
			const gotPage = reads.some((r) => served(r) && r.since !== undefined) || lastServed;
			if (gotPage && (lastServed || movedDespiteFailure(i, poll))) {
				stuck = 0;
				told = false;
				// A read whose last request failed, after pages that were served, failed: the form is
				// not read fine until a read of it is served to its end.
				failing = !lastServed;
				if (failing)
					dueToBeTold.set(poll.index, (dueToBeTold.get(poll.index) ?? new Set()).add(formId));
				runStart = i + 1;
				return;
			}
			// A form whose reads failed and have not succeeded since may be named on any poll.
			failing ||= reads.length > 0;
			if (failing)
				dueToBeTold.set(poll.index, (dueToBeTold.get(poll.index) ?? new Set()).add(formId));
			// No progress: a poll that failed to read it, or any poll after one (asked or not: a
			// poll that spends itself on other forms does not move this one either).
			if (!reads.length && stuck === 0) return;
			if (stuck === 0) runStart = Math.min(runStart, i);
			stuck++;
			// The error names the form, also with One Form (docs/trigger-promise.md).
			told ||= trace.polls
				.slice(runStart, i + 1)
				.some((p) => p.errors.some((error) => error.includes(formId)));
			if (stuck === TOLD_AFTER_POLLS && !told)
				add(
					'P9',
					`${formId} made no progress (no page, or a read that failed and neither emitted what it held nor moved since) on ${stuck} polls in a row (polls ${trace.polls
						.slice(i + 1 - stuck, i + 1)
						.map(
							(p) =>
								`${p.index} (${describePoll(p)}${p.requests.some((r) => r.formId === formId) ? '' : ', not asked'})`,
						)
						.join(', ')}) and no error named it`,
				);
		}
	}
	return dueToBeTold;
}

function describePoll(poll: PollRecord): string {
	const where = poll.step >= 0 ? `step ${poll.step + 1}` : 'final polls';
	return `${poll.kind}${poll.activationTick ? ', activation tick' : ''}, ${where}`;
}

function iso(ms: number): string {
	return Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms);
}

export function formatViolations(violations: Violation[], max = 8): string {
	const lines = violations.slice(0, max).map((v) => `- [${PROPERTIES[v.property]}] ${v.message}`);
	if (violations.length > max) lines.push(`- … and ${violations.length - max} more`);
	return lines.join('\n');
}
