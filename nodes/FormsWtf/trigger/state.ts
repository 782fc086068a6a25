import type { IDataObject } from 'n8n-workflow';

import type { Anchor } from '../shared/transport/paging';
import { existingWindowSince } from './time';

/**
 * The Forms.wtf Trigger's stored state: everything the trigger knows between two polls, kept in
 * the workflow's static data (node scope). n8n alone owns it. Every poll starts from what n8n
 * hands over, so a poll n8n discards or rolls back (a workflow saved while the poll ran, a
 * durable cursor that failed to commit, a restart before the state was written) is simply read
 * again, and the cursors' memory of handled responses keeps that from emitting twice.
 *
 * Lifecycle
 * - activate: the first poll takes the service's clock (`activatedAtMs`, the second of its first
 *   answer's Date header) and reads, per form, the responses of the look-back window before it,
 *   to remember them as handled. Existing — what that read saw, and anything submitted before
 *   the second began — is never emitted (unless On Activation asks for some); anything else is
 *   new, also when it arrives while the activation reads. A form the activation cannot read
 *   whole keeps what it read and its floor at the second's start.
 * - poll: each form is read from its cursor's `since` on; versions not in `seen` are emitted,
 *   oldest first; after a complete read `since` slides to trail the newest timestamp read by the
 *   look-back window, and `seen` forgets what fell out of it.
 * - cut / resume: a read stopped by the poll's page cap or budget keeps `since` where it was
 *   and remembers what it handled, and the next poll resumes at `resume`: a little before where
 *   the read stopped, and only once it finds one of the anchors, the last responses read (see
 *   Continuity in transport/paging.ts). Offsets alone are never trusted: responses deleted or
 *   moved by an update shift them.
 * - All Forms: the listing (one request) says which forms changed; unchanged ones are read in
 *   rotation (`readAtRev`); a form missing from a listing keeps its cursor for a while
 *   (`unlistedSinceMs`); one form failing or unable to move (`failedPolls`) never holds up the
 *   others, and is reported as an error naming it on its 5th such poll (`failureReportedAt`).
 * - Selected Forms: as All Forms, for the picked forms only; a picked form the listing lacks is
 *   read all the same (a cursor like any other).
 * - The newest N existing responses: `choice` holds the candidates while each form's cursor
 *   (`choice: 'reading'`) reads a window before activation with the same reader as any other
 *   read, over as many polls as needed; then each form's cursor starts at the oldest chosen one
 *   (`floor`), see existing.ts. A form that makes no progress on FORM_FAILURES_REPORTED of the
 *   choice's polls, in a row or not (`choiceStalls`), or is gone from the list or the selection,
 *   leaves the choice and goes on with its new responses.
 * - Every response since a date: each form's cursor starts a millisecond before the date, its
 *   `floor` there; the normal reading emits the backlog, cut and resumed over as many polls as it
 *   needs. Nothing else is stored for it.
 *
 * Changing the shape means a new `version` and a migration in `readState`, tested on the old
 * shape: what users have stored must keep working. A field added later that is optional, and
 * whose absence means what the state meant before it (`emitSinceMs`), needs no new version: the
 * state stays readable by the release before, should a user go back to it.
 */
export interface TriggerState {
	version: typeof STATE_VERSION;
	/**
	 * What is watched ("form:<id>", "selected" or "all"): another scope starts afresh. Selected
	 * Forms keeps one scope whatever is picked: a form added to the selection starts at the poll
	 * that first sees it, a form taken out of it loses its cursor.
	 */
	scope: string;
	/** Counts polls; All Forms uses it to know how long ago each form was read. */
	rev: number;
	/** The service's clock at activation: responses submitted after it are new. */
	activatedAtMs: number;
	forms: Record<string, FormCursor>;
	/** Passing failures of whole polls in a row, so that only a lasting one is reported. */
	failures?: number;
	/** The newest N existing responses, while they are being chosen. */
	choice?: NewestChoice;
	/**
	 * Every response since a date: the date (ms). A form that shows up later (All Forms: listed
	 * after activation) starts from it too, as the forms listed at activation did.
	 */
	emitSinceMs?: number;
}

/** Where the trigger stands on one form. */
export interface FormCursor {
	// The cursor.
	/**
	 * The bound of the next query, from the service's own timestamps (never the n8n host's
	 * clock): it trails the newest timestamp read by the look-back window, so that a response
	 * that becomes visible a little after its timestamp is still found.
	 */
	since: string;
	/**
	 * For each response read at or after `since`: the `submittedAt` (ms) of the version handled.
	 * The overlap of two reads is never emitted twice, whether the API's `since` is exclusive or
	 * inclusive and however many responses share one millisecond. A remembered undated response
	 * that a read from the start was not served is held here too, as handled just before that
	 * read began (see advanceCursor).
	 */
	seen: Record<string, number>;
	/** The newest `submittedAt` (ms) read. */
	newestMs?: number;
	/**
	 * Nothing at or before this (time, id) is emitted: the activation moment, or the oldest
	 * response Emit Existing Responses chose. Dropped once `since` has moved past it.
	 */
	floor?: { atMs: number; id: string };
	/**
	 * Responses the API returned without a usable `submittedAt`: emitted once, and remembered
	 * for as long as the API keeps returning them (a complete read keeps only those it saw).
	 */
	undated?: string[];

	// Resume.
	/** Where a read cut short goes on; absent when the last read was complete. */
	resume?: ResumePoint;

	// The newest N existing responses.
	/** This form's cursor reads the choice's window (`reading`), or has read it whole (`read`). */
	choice?: 'reading' | 'read';
	/** Polls of the choice on which this form made no progress, in a row or not (see existing.ts). */
	choiceStalls?: number;

	// All Forms bookkeeping.
	/** `responseCount` and `updatedAt` of the listing before this form's last complete read. */
	listedCount?: number;
	listedUpdatedAt?: string;
	/** The poll (`rev`) of this form's last read, complete or not: the forms read longest ago come first. */
	readAtRev?: number;
	/** Since when (service clock, ms) the listing of forms lacks this form. */
	unlistedSinceMs?: number;
	/**
	 * Polls in a row in which this form could not move forward: its read failed, or not one page
	 * of it could be read within the poll's time (a wait longer than the budget). Reported at 5.
	 */
	failedPolls?: number;
	/** The value of `failedPolls` when the failures were last reported as an error of the workflow. */
	failureReportedAt?: number;
	/**
	 * Set while the run of `failedPolls` is of polls whose reads got pages but kept losing their
	 * place (its responses kept moving). A poll that gets nowhere else (a denial, a failing
	 * service, no time) starts a new run, and the other way round: each kind is counted and
	 * reported on its own, so a report of one never stands in for the other, nor do polls of one
	 * make the other due.
	 */
	failedFor?: 'keptMoving';
}

/** A read cut short: where to go on, and what must be found there (see Continuity). */
export interface ResumePoint {
	/** The offset after the last response read. */
	offset: number;
	/** The last responses read before it; empty: read again from the start of `since`. */
	anchors: Anchor[];
	/** The service's clock when the first of the cut reads began (see advanceCursor). */
	startedAtMs?: number;
	/** How many responses the server's last page held: the resumed read starts a part of it early. */
	pageSize?: number;
	/**
	 * How many places later the last resumed read found where it went on from: responses added or
	 * updated before that place (a newest-first order) push it on between polls. The next read
	 * starts that much later, so a steady stream of them cannot eat the part of a page it reads.
	 */
	drift?: number;
	/**
	 * How many times this pass lost its place and began again from the start of `since` (every
	 * anchor it looked for was updated or deleted), kept until the pass ends. While `reached` is
	 * set with it, only getting back there or completing the pass counts as moving: a form whose
	 * responses keep moving under a long read is named (see newResponses.ts), also when its place
	 * is edited each time it gets back there (the 5th beginning again names it).
	 */
	restarts?: number;
	/**
	 * Set by a read that did not find its anchors: `offset` is where the search for them starts
	 * (before where they were), not where a read stopped, so the next read measures no drift
	 * from it; a drift measured from there, a page too far back, sent the read after it past its
	 * anchors again, and the two alternated for ever.
	 */
	searching?: true;
	/**
	 * Responses this pass read before its anchors, in the version read, where they were read:
	 * a page, two, four ... back (oldest first). The order holds still but for edits, so everything before a response a
	 * proven read handled was handled too, or is newer than the pass and read by the next one: a
	 * page holding one of them shows where the pass had been as well as an anchor does. When
	 * edits took every anchor away, the search finds one of these a page or so back, where
	 * without them the pass began again from the start, and a few edits every 20 polls made it
	 * go round for ever.
	 */
	earlier?: Checkpoint[];
	/**
	 * How far the pass had read when a read last lost its place (set on a search point, and while
	 * `restarts` is). A pass begun again reads what it had read until it gets there, whatever
	 * place it finds on the way, so only getting there (or completing the pass) ends the count of
	 * restarts: the place a read from the start set itself did, and a pass whose every place was
	 * edited away every 20 polls went round for ever, unnamed.
	 */
	reached?: number;
}

/** A response a pass read (see ResumePoint.earlier), at the offset it was read at. */
export interface Checkpoint extends Anchor {
	offset: number;
}

/**
 * The newest `limit` existing responses, while their floor is being found (see existing.ts):
 * only the newest `limit` candidates are kept.
 */
export interface NewestChoice {
	limit: number;
	/** The forms whose existing responses count (those listed at activation, still readable). */
	forms: string[];
	/** Which window of time before activation is being read (see time.ts). */
	window: number;
	/** [formId, responseId, submittedAt ms] of the newest existing responses read so far. */
	chosen: Array<[string, string, number]>;
}

/**
 * 3: the newest N existing responses are chosen by cursors (`choice`); version 2 kept `backfill`
 * and a bare `backfillOffset` per form, migrated by readState.
 */
export const STATE_VERSION = 3;

const STATE_KEYS: Array<keyof TriggerState> = [
	'version',
	'scope',
	'rev',
	'activatedAtMs',
	'forms',
	'failures',
	'choice',
	'emitSinceMs',
];

/** Sorts after every response id: a floor at a moment with this id keeps out all of that moment. */
export const LAST_ID = '\uffff';

export interface ReadStateResult {
	/** The state as a copy this poll may change freely; undefined when there is none for this scope. */
	state?: TriggerState;
	/**
	 * Forms whose cursor could not be read at all: nothing tells what was emitted, so they go
	 * on from the service's clock of this poll (`startedAt`), left out of `state.forms` until then.
	 */
	restartAtNow: string[];
	/** What was wrong with the stored state and how it was repaired, for a warning in n8n's log. */
	repairs: string[];
}

/**
 * The state n8n stored, checked part by part. A part of an unexpected shape is repaired so
 * that nothing already emitted is emitted again (see repairCursor), and named in `repairs`;
 * state of an earlier version is migrated.
 */
export function readState(
	staticData: IDataObject,
	scope: string,
	lookBackMs: number,
): ReadStateResult {
	const result: ReadStateResult = { restartAtNow: [], repairs: [] };
	const { repairs } = result;
	if (staticData.scope !== scope) return result;
	const version = staticData.version;
	if (version !== 1 && version !== 2 && version !== STATE_VERSION) {
		if (version !== undefined)
			repairs.push(`unknown state version ${JSON.stringify(version)}: started afresh`);
		return result;
	}
	const copy = JSON.parse(JSON.stringify(staticData)) as IDataObject;
	if (!isPlainObject(copy.forms)) {
		repairs.push('the forms were unreadable: started afresh');
		return result;
	}
	let activatedAtMs = copy.activatedAtMs;
	if (!isFiniteNumber(activatedAtMs)) {
		// The cursors still say where each form stands; the earliest of them stands in for the
		// activation (it only dates forms that appear later).
		const starts = Object.values(copy.forms as IDataObject)
			.map((cursor) =>
				isPlainObject(cursor) && typeof cursor.since === 'string' ? Date.parse(cursor.since) : NaN,
			)
			.filter((ms) => !Number.isNaN(ms));
		if (!starts.length) {
			repairs.push('the activation time was unreadable: started afresh');
			return result;
		}
		activatedAtMs = Math.min(...starts);
		repairs.push('the activation time was unreadable: taken from the earliest cursor');
	}
	const state: TriggerState = {
		version: STATE_VERSION,
		scope,
		rev: isFiniteNumber(copy.rev) ? copy.rev : 0,
		activatedAtMs,
		forms: {},
	};
	if (!isFiniteNumber(copy.rev)) repairs.push('the poll count was unreadable: counted from 0');
	if (isFiniteNumber(copy.failures)) state.failures = copy.failures;
	if (isFiniteNumber(copy.emitSinceMs)) state.emitSinceMs = copy.emitSinceMs;
	else if (copy.emitSinceMs !== undefined)
		repairs.push(
			'the date to emit from was unreadable: forms listed later start at the activation',
		);
	const choice =
		version === STATE_VERSION ? readChoice(copy.choice) : migrateBackfill(copy.backfill);
	if (choice) state.choice = choice;
	else if (copy.choice !== undefined || copy.backfill !== undefined)
		repairs.push(
			'the progress of choosing the newest existing responses was unreadable: no more existing responses are emitted',
		);

	for (const [formId, stored] of Object.entries(copy.forms as IDataObject)) {
		const cursor = version === 1 ? migrateCursorV1(stored) : stored;
		const { repaired, problem } = repairCursor(cursor, lookBackMs);
		if (problem) repairs.push(`form "${formId}": ${problem}`);
		if (repaired === 'now') result.restartAtNow.push(formId);
		else state.forms[formId] = repaired;
		if (repaired === 'now' || !isPlainObject(stored) || version === STATE_VERSION) continue;
		// Versions 1 and 2: a form still reading existing responses went on from a bare offset,
		// which deletions and updates shift; it reads its window again from the start.
		const stillReading = (stored as IDataObject).backfillOffset !== undefined;
		if (state.choice?.forms.includes(formId))
			state.forms[formId] = {
				...choosingCursor(state.activatedAtMs, state.choice.window),
				...(!stillReading && { choice: 'read' as const }),
			};
		else if (stillReading) state.forms[formId] = { ...repaired, choice: 'reading' };
	}
	for (const [formId, cursor] of Object.entries(state.forms)) {
		if (cursor.choice === undefined || state.choice?.forms.includes(formId)) continue;
		// A form waiting for a choice that is not there (any more): its new responses count.
		state.forms[formId] = startedAt(
			Math.max(state.activatedAtMs, cursor.newestMs ?? 0),
			lookBackMs,
		);
	}
	if (state.choice)
		state.choice.forms = state.choice.forms.filter((formId) => state.forms[formId] !== undefined);
	result.state = state;
	return result;
}

/**
 * Version 1 (the first release) kept `resumeOffset`, an offset alone. Going on from it can skip
 * a response (see ResumePoint), so a cut read of version 1 is read again from its `since`:
 * what it handled is in `seen`, so nothing is emitted twice.
 */
function migrateCursorV1(stored: unknown): unknown {
	if (!isPlainObject(stored)) return stored;
	const { resumeOffset, ...rest } = stored as IDataObject;
	return resumeOffset === undefined ? rest : { ...rest, resume: { offset: 0, anchors: [] } };
}

/**
 * A cursor as stored, or the nearest safe one. Whatever was handled was at or before the
 * newest time read, so a cursor that lost its `since` or its memory of handled responses
 * starts with a floor at that time: nothing already emitted comes again, and everything newer
 * is read. Without that time, 'now': the form goes on from the service's clock of this poll.
 */
function repairCursor(
	stored: unknown,
	lookBackMs: number,
): { repaired: FormCursor | 'now'; problem?: string } {
	if (!isPlainObject(stored)) {
		return { repaired: 'now', problem: 'its cursor was unreadable: it goes on from now' };
	}
	const raw = stored as IDataObject;
	const sinceMs = typeof raw.since === 'string' ? Date.parse(raw.since) : NaN;
	const newestMs = isFiniteNumber(raw.newestMs) ? raw.newestMs : undefined;
	const seenOk =
		isPlainObject(raw.seen) && Object.values(raw.seen as IDataObject).every(isFiniteNumber);
	const problems: string[] = [];
	let cursor: FormCursor;

	// Responses without a date that were emitted: whatever else is lost, these are kept.
	const undated = Array.isArray(raw.undated)
		? raw.undated.filter((id): id is string => typeof id === 'string')
		: [];
	if (
		raw.undated !== undefined &&
		(!Array.isArray(raw.undated) || undated.length !== raw.undated.length)
	) {
		problems.push('its list of responses without a date was partly unreadable');
	}

	if (Number.isNaN(sinceMs) || !seenOk) {
		const what = Number.isNaN(sinceMs)
			? '"since" was not a date'
			: 'its memory of handled responses was unreadable';
		if (newestMs === undefined) return { repaired: 'now', problem: `${what}: it goes on from now` };
		cursor = { ...startedAt(newestMs, lookBackMs), newestMs };
		if (undated.length) cursor.undated = undated;
		problems.push(`${what}: it goes on after the newest response it had read`);
	} else {
		cursor = { since: raw.since as string, seen: raw.seen as Record<string, number> };
		if (newestMs !== undefined) cursor.newestMs = newestMs;
		if (raw.floor !== undefined) {
			const floor = raw.floor as IDataObject;
			if (isPlainObject(floor) && isFiniteNumber(floor.atMs) && typeof floor.id === 'string') {
				cursor.floor = { atMs: floor.atMs, id: floor.id };
			} else {
				// Emitting nothing before the bound is the safe side of a floor.
				cursor.floor = { atMs: Math.max(newestMs ?? sinceMs, sinceMs), id: LAST_ID };
				problems.push('its floor was unreadable');
			}
		}
		if (undated.length) cursor.undated = undated;
		if (raw.resume !== undefined) {
			const resume = readResume(raw.resume);
			// Without a readable resume point the read starts again at `since`: `seen` drops repeats.
			cursor.resume = resume ?? { offset: 0, anchors: [] };
			if (!resume) problems.push('its resume point was unreadable');
		}
	}
	if (raw.choice === 'reading' || raw.choice === 'read') cursor.choice = raw.choice;
	else if (raw.choice !== undefined) {
		// Reading the window again loses nothing: nothing of it was emitted yet.
		cursor.choice = 'reading';
		problems.push('its part in choosing the newest existing responses was unreadable');
	}
	if (isFiniteNumber(raw.listedCount)) cursor.listedCount = raw.listedCount;
	if (typeof raw.listedUpdatedAt === 'string') cursor.listedUpdatedAt = raw.listedUpdatedAt;
	if (isFiniteNumber(raw.readAtRev)) cursor.readAtRev = raw.readAtRev;
	if (isFiniteNumber(raw.unlistedSinceMs)) cursor.unlistedSinceMs = raw.unlistedSinceMs;
	if (isCount(raw.choiceStalls)) cursor.choiceStalls = raw.choiceStalls;
	if (isCount(raw.failedPolls)) cursor.failedPolls = raw.failedPolls;
	if (isCount(raw.failureReportedAt)) cursor.failureReportedAt = raw.failureReportedAt;
	if (raw.failedFor === 'keptMoving') cursor.failedFor = 'keptMoving';
	return { repaired: cursor, problem: problems.length ? problems.join('; ') : undefined };
}

/**
 * A cursor that emits nothing at or before `atMs` and everything after it; its first read
 * looks back one window before it, so late-visible responses after `atMs` are found.
 */
export function startedAt(atMs: number, lookBackMs: number): FormCursor {
	return {
		since: new Date(atMs - lookBackMs - 1).toISOString(),
		seen: {},
		floor: { atMs, id: LAST_ID },
	};
}

function readResume(value: unknown): ResumePoint | undefined {
	if (!isPlainObject(value)) return undefined;
	const { offset, anchors } = value as IDataObject;
	const read = readAnchors(anchors);
	if (!isCount(offset) || read === undefined) return undefined;
	const { startedAtMs, pageSize, drift, restarts, searching, earlier, reached } =
		value as IDataObject;
	const resume: ResumePoint = { offset, anchors: read };
	if (isFiniteNumber(startedAtMs)) resume.startedAtMs = startedAtMs;
	if (isCount(pageSize) && pageSize > 0) resume.pageSize = pageSize;
	if (isCount(drift) && drift > 0) resume.drift = drift;
	if (isCount(restarts) && restarts > 0) resume.restarts = restarts;
	if (searching === true) resume.searching = true;
	if (isCount(reached) && reached > 0) resume.reached = reached;
	const checkpoints = readCheckpoints(earlier);
	if (checkpoints?.length) resume.earlier = checkpoints;
	return resume;
}

function readCheckpoints(value: unknown): Checkpoint[] | undefined {
	const anchors = readAnchors(value);
	if (!anchors) return undefined;
	const read: Checkpoint[] = [];
	for (const [i, anchor] of anchors.entries()) {
		const { offset } = (value as IDataObject[])[i];
		if (!isCount(offset)) return undefined;
		read.push({ ...anchor, offset });
	}
	return read;
}

function readAnchors(value: unknown): Anchor[] | undefined {
	if (!Array.isArray(value)) return undefined;
	const read: Anchor[] = [];
	for (const anchor of value as unknown[]) {
		if (!isPlainObject(anchor)) return undefined;
		const { id, submittedAt } = anchor as IDataObject;
		if (typeof id !== 'string' || typeof submittedAt !== 'string') return undefined;
		read.push({ id, submittedAt });
	}
	return read;
}

function readChoice(value: unknown): NewestChoice | undefined {
	if (!isPlainObject(value)) return undefined;
	const { chosen, ...rest } = value as IDataObject;
	return readChoiceParts({ ...rest, entries: chosen });
}

/** Version 2's `backfill` (its `newest` are the candidates; its offsets are not trusted). */
function migrateBackfill(value: unknown): NewestChoice | undefined {
	if (!isPlainObject(value)) return undefined;
	const { newest, ...rest } = value as IDataObject;
	return readChoiceParts({ ...rest, entries: newest });
}

function readChoiceParts(value: IDataObject): NewestChoice | undefined {
	const { limit, forms, window, entries } = value;
	if (!isCount(limit) || limit < 1 || !isCount(window)) return undefined;
	if (!Array.isArray(forms) || !forms.every((id) => typeof id === 'string')) return undefined;
	if (!Array.isArray(entries)) return undefined;
	const list = entries as unknown[];
	const valid = list.every(
		(entry) =>
			Array.isArray(entry) &&
			entry.length === 3 &&
			typeof entry[0] === 'string' &&
			typeof entry[1] === 'string' &&
			isFiniteNumber(entry[2]),
	);
	if (!valid) return undefined;
	return {
		limit,
		forms: forms as string[],
		window,
		chosen: list as Array<[string, string, number]>,
	};
}

/**
 * A cursor that reads a window of existing responses from its start (see existing.ts), keeping
 * the existing responses its earlier reads handled (`seen`).
 */
export function choosingCursor(
	activatedAtMs: number,
	window: number,
	seen: Record<string, number> = {},
): FormCursor {
	return { since: existingWindowSince(activatedAtMs, window), seen, choice: 'reading' };
}

function isPlainObject(value: unknown): value is IDataObject {
	return !!value && typeof value === 'object' && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value);
}

function isCount(value: unknown): value is number {
	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Writes the state into n8n's static data object in place: n8n watches that very object for
 * changes and saves it after the poll returns.
 */
export function writeState(staticData: IDataObject, state: TriggerState): void {
	for (const key of Object.keys(staticData)) {
		if (!(STATE_KEYS as string[]).includes(key)) delete staticData[key];
	}
	const copy = JSON.parse(JSON.stringify(state)) as IDataObject;
	for (const key of STATE_KEYS) {
		if (copy[key] === undefined) delete staticData[key];
		else staticData[key] = copy[key];
	}
}

/**
 * A cursor that emits every response submitted at or after `sinceMs`, the floor keeping out the
 * millisecond before it. It reads from a millisecond before the date (whether the API's `since`
 * is exclusive or not), or from the look-back window before activation when that is earlier:
 * the responses before the date it reads are remembered (`seen`), so that an update of one is
 * not taken for a new response, as with Only New Responses.
 */
export function fromDate(sinceMs: number, activatedAtMs: number, lookBackMs: number): FormCursor {
	return {
		since: new Date(Math.min(sinceMs, activatedAtMs - lookBackMs) - 1).toISOString(),
		seen: {},
		floor: { atMs: sinceMs - 1, id: LAST_ID },
	};
}

/**
 * The polls of this process that are running now, by trigger. n8n's own scheduler starts a
 * poll on every tick whether or not the last one finished, and both would start from the same
 * stored state and emit the same responses. A poll that finds another poll of the same trigger
 * running returns nothing and leaves the state as n8n stored it: the running poll reads what
 * this one would have, and anything it misses the next poll reads again. Nothing here is ever
 * used as state: an entry lives only while its poll runs (or, should a poll hang, until its
 * budget has long passed).
 */
const runningPolls = new Map<string, { startedAt: number }>();

export async function unlessAlreadyPolling<T>(
	key: string,
	staleAfterMs: number,
	poll: (stillCurrent: () => boolean) => Promise<T>,
): Promise<T | undefined> {
	const running = runningPolls.get(key);
	if (running !== undefined && Date.now() - running.startedAt < staleAfterMs) return undefined;
	const mine = { startedAt: Date.now() };
	runningPolls.set(key, mine);
	try {
		// A poll that ran so long that another took over must neither write state nor emit.
		return await poll(() => runningPolls.get(key) === mine);
	} finally {
		if (runningPolls.get(key) === mine) runningPolls.delete(key);
	}
}
