/**
 * A later poll: every form it reads, from its cursor on; versions not handled yet are emitted,
 * oldest first; a form that fails never holds up the others.
 */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { formatResponse } from '../shared/helpers/output';
import { isDeadlineError, isTransientError } from '../shared/transport/errors';
import type { FormResponse } from '../shared/transport/types';
import type { HandledVersion, ReadOfForm } from './cursor';
import {
	advanceCursor,
	compareOldestFirst,
	isNewUndated,
	isNewVersion,
	rememberHandled,
	submittedAtMs,
	without,
} from './cursor';
import type { FormCursor, TriggerState } from './state';
import { fromDate, startedAt } from './state';
import type { PollAllowance } from './allowance';
import { Candidates, settleChoice } from './existing';
import { formsToRead, keepUnlistedForms, listedAs, triedAt } from './formsToRead';
import type { Listing, WatchedForm } from './listing';
import { warn } from './log';
import type { TriggerSettings } from './settings';
import { watchesSeveral } from './settings';

export interface Candidate extends HandledVersion {
	response: FormResponse;
}

/** Responses without a usable date come after the dated ones of a poll. */
const UNDATED_ORDER = Number.MAX_SAFE_INTEGER;

/**
 * Polls in a row a form may make no progress (its read fails, or not one page of it can be read
 * within the poll's time) before it is reported as an error of the workflow (see
 * reportFailingForm in poll.ts); each such poll before is a warning in n8n's log.
 * FORM_FAILURES_REPORTED_AGAIN: how many more such polls before it is reported again. A form
 * choosing the newest existing responses leaves the choice then, so it never holds up the others.
 */
const FORM_FAILURES_REPORTED = 5;

/**
 * Selected Forms: a selected form that the listing lacks and the API does not find is gone for
 * good; it is reported on the first poll that finds it so.
 */
const GONE_FORM_FAILURES_REPORTED = 1;

/** Several forms: reads of different forms that may fail one after the other before a poll stops reading. */
const MAX_FAILED_READS_IN_A_ROW = 3;

const FORM_FAILURES_REPORTED_AGAIN = 60;

/** Why a form whose every read is edited under it cannot move. */
const keptMoving = new Error(
	'its responses kept moving while they were read (responses were edited or deleted between the pages of each read)',
);

/** A form whose failures are due to be reported as an error of the workflow. */
export interface FormFailure {
	formId: string;
	error: Error;
}

/**
 * Reads every form due this poll with one reader and one policy, whatever the cursor is for:
 * responses not handled yet are emitted, oldest first; a form whose read this poll only
 * learns what exists (`learning`: activation, a form added to the selection) handles them
 * without emitting; a form choosing the newest existing responses keeps them as candidates
 * (see existing.ts), and in `learning` (its activation) counts all it sees as existing. For
 * every form alike: a read cut short (page cap, budget, a wait longer than the budget) resumes
 * where it stopped, proven by its anchors; a read that is not proven reads again from its
 * cursor; a form that fails or cannot move never holds up the others and is reported by name
 * (FORM_FAILURES_REPORTED).
 */
export async function pollOnce(
	context: IPollFunctions,
	settings: TriggerSettings,
	state: TriggerState,
	listing: Listing,
	allowance: PollAllowance,
	learning: ReadonlySet<string> = new Set(),
): Promise<{ items: INodeExecutionData[]; next: TriggerState; failingForms: FormFailure[] }> {
	const next: TriggerState = { ...state, rev: state.rev + 1, forms: { ...state.forms } };
	if (state.choice) next.choice = { ...state.choice, forms: [...state.choice.forms] };
	if (settings.watch === 'allForms') keepUnlistedForms(next, listing);

	/** The responses to emit, by form and response: one item a response a poll. */
	const fresh = new Map<string, Candidate>();
	/**
	 * A response to emit. Served again in another version (updated while the read went on), the
	 * version served last takes its place: never an older version after a newer one.
	 */
	/** How many versions this poll handed to `emit` so far (a read that emitted is one that moved). */
	let emitted = 0;
	const emit = (form: WatchedForm, candidate: Candidate): void => {
		emitted++;
		const key = `${form.id}/${candidate.id}`;
		if (!fresh.has(key)) allowance.onItem();
		// A Map keeps the place of the first version: the sort below is stable.
		fresh.set(key, withForm(candidate, form, settings));
	};
	const failingForms: FormFailure[] = [];
	const unreadable = new Set<string>();
	// Existing responses older than the look-back window are not remembered by a choosing read:
	// an update of one is new (as with Only New Responses).
	const lookBackFromMs = state.activatedAtMs - settings.lookBackMs - 1;
	// A form due this poll that it did not get to: the read of others spent the poll, or failed.
	const tried = new Set<string>();
	const notReached = new Map<string, WatchedForm>();
	/** What stopped this poll's reading early: a wait it had no time for, or failing reads. */
	let stoppedBy: unknown;
	/** Whether reads failing one after the other stopped this poll's reading. */
	let stoppedByFailures = false;
	const cursorOf = (formId: string): FormCursor =>
		next.forms[formId] ??
		// A form that appeared after activation: all of its responses are new (or since the date asked for).
		(state.emitSinceMs === undefined
			? startedAt(state.activatedAtMs, settings.lookBackMs)
			: fromDate(state.emitSinceMs, state.activatedAtMs, settings.lookBackMs));
	/**
	 * The form's cursor after a poll in which it made no progress: counts the poll, warns, and
	 * reports the form once it is due (FORM_FAILURES_REPORTED). A run of such polls is of one
	 * kind (FormCursor.failedFor): polls whose reads kept losing their place, or polls that got
	 * nowhere else; a poll of the other kind starts a new run, counted and reported on its own.
	 */
	const noProgress = (
		form: WatchedForm,
		cursor: FormCursor,
		cause: unknown,
		atLeast = 0,
	): FormCursor => {
		const kind = cause === keptMoving ? 'keptMoving' : undefined;
		const sameRun = cursor.failedFor === kind;
		// One Form: the polls that failed as a whole before this one count too (see poll.ts).
		const failedBefore = settings.watch === 'form' && !kind ? (state.failures ?? 0) : 0;
		const failedPolls = Math.max(
			atLeast,
			(sameRun ? (cursor.failedPolls ?? 0) : 0) + failedBefore + 1,
		);
		const error = errorForStuckForm(context, settings, form, cause, failedPolls);
		const hint = watchesSeveral(settings)
			? 'The other forms go on; this one is read again on the next poll.'
			: 'It is read again on the next poll.';
		warn(context, `${error.message} (${failedPolls} polls in a row). ${hint}`);
		const gone = form.unlisted && httpCodeOf(cause) === '404';
		const reportedAt = sameRun ? cursor.failureReportedAt : undefined;
		const reportedFrom = gone ? GONE_FORM_FAILURES_REPORTED : FORM_FAILURES_REPORTED;
		// A gone form's early report does not stand in for the one due on the 5th poll without
		// progress: the cause may have changed since (a rate limit, a denial), and a poll that
		// moved the form in between may have been discarded by n8n.
		const due =
			failedPolls >= reportedFrom &&
			(reportedAt === undefined ||
				reportedAt < reportedFrom ||
				failedPolls - reportedAt >= FORM_FAILURES_REPORTED_AGAIN);
		if (due) failingForms.push({ formId: form.id, error });
		const counted: FormCursor = { ...cursor, failedPolls };
		if (kind) counted.failedFor = kind;
		else delete counted.failedFor;
		if (!sameRun) delete counted.failureReportedAt;
		return counted;
	};
	const readForms = async (
		candidates?: Candidates,
		only?: string[],
		learnedBy: ReadonlySet<string> = learning,
	): Promise<void> => {
		let failedInARow = 0;
		let lastFailure: unknown;
		for (const form of formsToRead(next, listing, settings)) {
			if (only && !only.includes(form.id)) continue;
			const cursor = cursorOf(form.id);
			// Read whole for the choice already: it waits for the other forms.
			if (cursor.choice === 'read') continue;
			// Forms failing one after the other (the service is struggling): the rest wait for the
			// next poll rather than add to the load.
			if (failedInARow >= MAX_FAILED_READS_IN_A_ROW) {
				stoppedBy = lastFailure;
				stoppedByFailures = true;
			}
			if (!allowance.mayRead() || failedInARow >= MAX_FAILED_READS_IN_A_ROW) {
				notReached.set(form.id, form);
				continue;
			}
			tried.add(form.id);
			const choosing = cursor.choice === 'reading' && candidates !== undefined;
			const emits = !choosing && !learnedBy.has(form.id);
			const handled: HandledVersion[] = [];
			const undated: string[] = [];
			const sinceMs = Date.parse(cursor.since);
			const emittedBefore = emitted;
			const read = await allowance.readForm(
				{ formId: form.id, since: cursor.since },
				cursor.resume,
				(page) => {
					for (const response of page) {
						const atMs = submittedAtMs(response);
						// Before the bound: a server that compares `since` coarsely (or not at all) returns
						// responses the window has let go of, and that may have been emitted long ago.
						if (atMs !== undefined && atMs < sinceMs) continue;
						if (choosing) {
							// Existing: submitted before activation, or seen by the activation's read (this one,
							// or one before that the form's cursor remembers: a window read again after a form
							// that left took the candidates). A version from after it is new, emitted anyway;
							// the version that existed, if a read saw it, stays a candidate: dropping it would
							// choose an older response in its place.
							const sawIt = learnedBy.has(form.id) || cursor.seen[response.id] === atMs;
							if (atMs === undefined || (atMs >= state.activatedAtMs && !sawIt)) continue;
							candidates.visit(form.id, response.id, atMs);
							if (atMs >= lookBackFromMs) handled.push({ id: response.id, atMs });
							continue;
						}
						if (atMs === undefined) {
							undated.push(response.id);
							if (emits && isNewUndated(cursor, response.id))
								emit(form, { id: response.id, atMs: UNDATED_ORDER, response });
							continue;
						}
						handled.push({ id: response.id, atMs });
						if (emits && isNewVersion(cursor, response.id, atMs, settings))
							emit(form, { id: response.id, atMs, response });
					}
				},
			);
			// One Form: the user sees at once why it cannot be read; a passing failure is counted by
			// the poll (FAILURES_REPORTED in poll.ts) with the state left as it was.
			if (read.failure !== undefined && settings.watch === 'form') throw read.failure;
			const readOfForm: ReadOfForm = { ...read, handled, undated };
			const complete = read.failure === undefined && read.proven && !read.cut;
			let updated: FormCursor;
			if (!complete) {
				// Cut short, failed after what it read, or responses before where it went on were
				// deleted or moved (see resumeAfter): what it read is remembered, and the next poll goes
				// on from where it got to, as proven as its pages were. It counts as the form's turn
				// (triedAt).
				updated = {
					...rememberHandled(cursor, readOfForm, read.resume),
					...triedAt(next.rev, settings),
				};
				// One that failed before its first page stays as it was.
				if (read.failure !== undefined && !cursor.resume && read.end === 0) delete updated.resume;
			} else if (choosing) {
				updated = without(
					{ ...rememberHandled(cursor, readOfForm, read.resume), choice: 'read' },
					'resume',
				);
			} else {
				updated = {
					...advanceCursor(cursor, readOfForm, settings),
					...listedAs(form, next.rev, settings),
				};
				// Read whole, what existed is known one by one: a response that shows up later with an
				// earlier timestamp (visible late) was not there to count as existing, and a service
				// whose Date runs ahead of its timestamps loses nothing. Not so a read that took a
				// boundary on trust: a response it skipped existed, and the floor keeps it out.
				if (learnedBy.has(form.id) && !read.onTrust) delete updated.floor;
				// A pass that spanned polls left what was added or updated before where it had got to
				// (newer than its start) to the next read: that read is the next poll's, not the
				// rotation's, or the same responses, updated during every pass, would wait pass after
				// pass. Once: a pass that was itself such a read hands on to the rotation, or a form
				// whose every pass spans polls (a long look-back window) would be read on every poll.
				if (cursor.resume && cursor.listedCount !== undefined) delete updated.listedCount;
			}
			// Moving forward: a proven read, complete or cut past where it resumed; or one still
			// looking for where it goes on from (`seeking`: responses were edited or added around
			// it, see resumeAfter), which reads and emits what it finds and ends in a proven read
			// within a bounded number of polls. A read that lost a page boundary to responses
			// pulled back (movedUnder) is not: the form's responses kept moving while it read. Nor is
			// a read of a pass that lost its place and began again, until it finds its place or
			// completes the pass: it reads again what it had read (`lostPlace`), and a pass whose
			// every place is edited away before the next poll would begin again for ever. A read cut
			// by a wait it had no time for, or by a failure, moved if it read past where it stood
			// before: the user got its responses, and the next poll goes on from there.
			if (read.stoppedBy !== undefined) stoppedBy = read.stoppedBy;
			// (A read of a pass begun again that emits something new moves all the same: what arrives
			// ahead of a newest-first read is read by it. Not the read that began the pass again:
			// each beginning again counts, or a place edited every few polls, whose new versions that
			// read emits, was never named.)
			const moved =
				complete ||
				((!read.lostPlace || (emitted > emittedBefore && !read.beganAgain)) &&
					(read.proven ? read.end > (cursor.resume?.offset ?? 0) : read.seeking));
			// A read of a pass begun again that found its own place and got past where the last one
			// ended: the form's responses did not move since, but it reads again what was read. It is
			// neither progress nor a poll without progress: the run the form is in stands as it was.
			// Counted, a long pass read again after the edits stopped named the form ("kept moving")
			// while it went on; the passes that begin again, each counted, still name it. Only a run
			// of that kind stands (neither ended nor counted): the read got a page, so it ends a run
			// of polls that got none.
			const readAgainOn =
				read.lostPlace &&
				!read.beganAgain &&
				read.proven &&
				read.failure === undefined &&
				read.end > (cursor.resume?.offset ?? 0);
			const runEnds = moved || (readAgainOn && cursor.failedFor !== 'keptMoving');
			if (runEnds) updated = without(updated, 'failedPolls', 'failureReportedAt', 'failedFor');
			else if (
				!readAgainOn &&
				(read.proven ||
					read.failure !== undefined ||
					read.stoppedBy !== undefined ||
					read.movedUnder ||
					read.lostPlace)
			) {
				// (The last two: a read that found its place but not a later page boundary, read again
				// from where it began, or a pass begun again: the form's responses kept moving.)
				const cause =
					read.failure ??
					read.stoppedBy ??
					(read.proven && !read.lostPlace ? undefined : keptMoving);
				// A pass that began again as often as a run is named for has not moved either, however
				// far it got back in between: its place is edited each time it gets there.
				const passBeganAgain = read.beganAgain ? (read.resume.restarts ?? 0) : 0;
				updated = noProgress(form, updated, cause, passBeganAgain);
				// A choosing read without progress stalls the choice (choiceStalls, see settleChoice).
				if (choosing) updated.choiceStalls = (updated.choiceStalls ?? 0) + 1;
			}
			if (read.failure === undefined) {
				if (runEnds) failedInARow = 0;
			} else if (isTransientError(read.failure)) {
				// A struggling service costs retries, and still ends the poll's reading after a read
				// that moved (MAX_FAILED_READS_IN_A_ROW); a denied or missing form costs one request.
				failedInARow++;
				lastFailure = read.failure;
			} else if (!runEnds) {
				// Denied or missing and not moved, it cannot hold up the newest existing responses of
				// the others.
				unreadable.add(form.id);
			}
			next.forms[form.id] = updated;
		}
	};
	// The choice's object stays next.choice until settleChoice deletes it (it is then 'chosen').
	const choice = next.choice;
	if (!choice) await readForms();
	else {
		// Choosing the newest existing responses: window after window while the poll may, then
		// the chosen ones are read (and emitted) at once.
		const chosenForms = choice.forms;
		let settled: ReturnType<typeof settleChoice>;
		let only: string[] | undefined;
		do {
			const candidates = new Candidates(choice, next.activatedAtMs);
			// A larger window: only the forms of the choice are read again.
			await readForms(candidates, only);
			candidates.save();
			settled = settleChoice(
				next,
				new Set(listing.forms.map((form) => form.id).filter((id) => !unreadable.has(id))),
				settings.lookBackMs,
				FORM_FAILURES_REPORTED,
			);
			only = choice.forms;
		} while (settled === 'nextWindow' && allowance.mayRead());
		if (settled === 'chosen') await readForms(undefined, chosenForms, new Set());
	}
	// A form this poll did not get to made no progress either when what stopped the reading holds
	// back every form (failing reads one after the other: a struggling service; the key's rate
	// limit), or when it is already in a run of polls without progress: such a form comes first
	// on every poll but the one right after its own read (formsToRead), so it is read again
	// before it is named. Any other form not reached (one form's failure or wait, or healthy
	// reads, spent the poll) waits its turn: the next poll takes the forms unread longest first.
	// One Form that no read was tried for: only its own probe of the service's clock (activation,
	// a restart) can have spent the poll, which is the form's own poll without progress.
	const holdsBackEveryForm =
		stoppedByFailures ||
		(stoppedBy !== undefined && httpCodeOf(stoppedBy) === '429') ||
		(settings.watch === 'form' && tried.size === 0);
	for (const [formId, form] of notReached) {
		const cursor = cursorOf(formId);
		if (tried.has(formId)) continue;
		if (!holdsBackEveryForm && !cursor.failedPolls) continue;
		// Whether a form's responses keep moving, only its reads tell: a poll that did not get to
		// it (the reads of the others spent it) leaves that run as it stands.
		if (!holdsBackEveryForm && cursor.failedFor === 'keptMoving') continue;
		// Not reached, it goes on with the run it is in: one of polls whose responses kept moving
		// (a pass begun again among them) is named for that. Named by a kind of its own, a poll it
		// was not reached in started a new run each time, and a form whose reads failed in between
		// was never named.
		const cause = stoppedBy ?? (cursor.failedFor === 'keptMoving' ? keptMoving : undefined);
		next.forms[formId] = noProgress(form, cursor, cause);
	}
	const items = [...fresh.values()].sort(compareOldestFirst);
	return { items: items.map((candidate) => toItem(candidate, settings)), next, failingForms };
}

/** Words for a form that cannot be read, or cannot move forward within the poll's time, naming it. */
export function errorForStuckForm(
	context: IPollFunctions,
	settings: TriggerSettings,
	form: WatchedForm,
	cause: unknown,
	polls: number,
): NodeOperationError {
	const name = form.title ? `"${form.title}" (${form.id})` : `"${form.id}"`;
	const status = httpCodeOf(cause);
	const others = watchesSeveral(settings) ? ' The trigger goes on with the other forms.' : '';
	let message: string;
	let description: string;
	if (cause === undefined || isDeadlineError(cause)) {
		const why = cause instanceof Error ? cause.message : 'the poll ran out of time';
		message = `Form ${name} made no progress: ${why}`;
		description = `No page of its responses could be read within the time n8n gives a poll: the service asked to wait longer (a rate limit: the API key's 60 requests per minute may be used by other workflows), or answered too slowly.${others}`;
	} else if (status === '404' && settings.watch === 'selectedForms') {
		message = `Selected form ${name} could not be found`;
		description = form.unlisted
			? 'It is not in the list of your forms either: it may have been deleted, or the ID may be wrong. Remove it from "Form Names or IDs" (or fix its ID). The trigger goes on with the other selected forms.'
			: 'It may have been deleted since the list of forms was read. The trigger goes on with the other selected forms and tries this one again on every poll.';
	} else if (status === '404') {
		message = `Form ${name} could not be found`;
		description =
			'It may have been deleted since the list of forms was read. The trigger goes on with the other forms and stops trying this one once it is no longer listed.';
	} else if (status === '403') {
		message = `Access to form ${name} was denied`;
		description =
			"The API key's account may no longer be a member of the team that owns the form. The trigger goes on with the other forms and tries this one again on every poll.";
	} else {
		const text = cause instanceof Error ? cause.message : String(cause);
		message = `Form ${name} could not be read: ${text}`;
		description = `It is tried again on every poll.${others}`;
	}
	return new NodeOperationError(context.getNode(), message, {
		description: `${description} It has made no progress on ${polls} polls in a row; its responses are not lost, they are emitted once it can be read again.`,
	});
}

function httpCodeOf(failure: unknown): unknown {
	return failure && typeof failure === 'object'
		? (failure as { httpCode?: unknown }).httpCode
		: undefined;
}

export function withForm(
	candidate: Candidate,
	form: WatchedForm,
	settings: TriggerSettings,
): Candidate {
	if (!watchesSeveral(settings)) return candidate;
	return {
		...candidate,
		response: { ...candidate.response, formId: form.id, formTitle: form.title ?? null },
	};
}

export function toItem(candidate: Candidate, settings: TriggerSettings): INodeExecutionData {
	return { json: formatResponse(candidate.response, settings.outputMode) };
}
