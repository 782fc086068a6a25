import type { IDataObject } from 'n8n-workflow';

import { isObject } from '../shared/transport/errors';

import { POLLS_BEFORE_ERROR } from './report';

/**
 * The Forms.wtf Trigger's stored state, kept by n8n in the workflow's static data (node scope).
 * n8n alone owns it: every poll starts from what n8n hands over, so a poll n8n discards or rolls
 * back is simply read again, and `seen` keeps that from emitting twice.
 *
 * Changing the shape means a new `version` and a migration in `readState`, tested on the old
 * shape. A part that does not fit is reset with a warning, never repaired field by field.
 */
export interface TriggerState {
	version: typeof STATE_VERSION;
	/** What is watched ("form:<id>", "selected" or "all"): another scope starts afresh. */
	scope: string;
	/** Counts polls: All Forms reads the forms read longest ago first. */
	rev: number;
	/** The service's clock at activation, a whole second: what was submitted before it exists. */
	activatedAtMs: number;
	forms: Record<string, FormCursor>;
	/** Polls in a row whose list of forms could not be read. */
	failures?: number;
	/** Every response since a date: forms found later start from it too. */
	emitSinceMs?: number;
	/** The newest N existing responses, while they are chosen. */
	choice?: NewestChoice;
}

/** Where the trigger stands on one form. */
export interface FormCursor {
	/** The `since` of the next read: responses at or before it were all handled. */
	since: string;
	/** Every version handled at or after `since`: id → its `submittedAt` in ms (undated: the read's clock). */
	seen: Record<string, number>;
	/** The first version emitted: nothing older (the activation, the date asked for, the oldest chosen). */
	floor?: Floor;
	/** Polls in a row in which this form made no progress. */
	failedPolls?: number;
	/**
	 * Of those, the polls its pages were served on since its last failed read (a poll it was not
	 * asked on does not count); absent while its reads fail. It names a form read fine but not
	 * proven.
	 */
	servedPolls?: number;
	/** The poll of the run (`failedPolls`) whose error last named it. */
	namedAt?: number;
	/** Several forms: `responseCount/updatedAt` as listed before its last complete read. */
	listed?: string;
	/** Several forms: the poll (`rev`) of its last turn: forms are read in the order of it. */
	readAtRev?: number;
	/** Several forms: its last read, cut by the poll's pages, kept its turn for this poll. */
	keptTurn?: true;
	/** All Forms: since when (service clock) the list of forms lacks it. */
	unlistedSinceMs?: number;
}

export interface Floor {
	atMs: number;
	id: string;
}

/** The newest `count` existing responses over the watched forms, while they are chosen. */
export interface NewestChoice {
	count: number;
	/** Forms whose newest are still to be read. */
	pending: string[];
	/** Forms whose newest are read: they wait for the others. */
	done: string[];
	/** [formId, responseId, submittedAt ms] of the newest existing responses read, newest first. */
	chosen: Array<[string, string, number]>;
}

/**
 * 5: a run of polls without progress tells failed reads from reads served but not proven
 * (`servedPolls`) and keeps its last error (`namedAt`). 4 reads as is (its runs taken as failed
 * reads, named on their last 5th poll); 3 and earlier are migrated.
 */
export const STATE_VERSION = 5;

/**
 * A cursor that emits every response submitted at or after `firstMs`. It reads from the look-back
 * window before `fromMs` when that is earlier, so that it knows the responses there: an update of
 * one is then not taken for a new response.
 */
export function cursorFrom(firstMs: number, fromMs: number, lookBackMs: number): FormCursor {
	const sinceMs = Math.min(firstMs, fromMs - lookBackMs) - 1;
	return { since: new Date(sinceMs).toISOString(), seen: {}, floor: { atMs: firstMs, id: '' } };
}

/**
 * Whether a floor is the one of the moment its form started at (the activation, or the poll that
 * added or reset it), which the form's first whole read lets go: the stored shape does not say,
 * so it is told from the others: no id (not the oldest of the newest N), not the date to emit
 * from, and between the activation and now (a date still ahead is none).
 */
export function isStartFloor(
	floor: Floor | undefined,
	state: Pick<TriggerState, 'activatedAtMs' | 'emitSinceMs'>,
	nowMs: number,
): boolean {
	return (
		floor?.id === '' &&
		floor.atMs !== state.emitSinceMs &&
		floor.atMs >= state.activatedAtMs &&
		floor.atMs <= nowMs
	);
}

export interface StoredState {
	state?: TriggerState;
	/** Forms whose cursor did not fit: they go on from this poll's clock. */
	reset: string[];
	warnings: string[];
}

/** The state n8n stored for this scope, as a copy; earlier versions migrated, misfits reset. */
export function readState(staticData: IDataObject, scope: string): StoredState {
	const result: StoredState = { reset: [], warnings: [] };
	const raw = JSON.parse(JSON.stringify(staticData)) as IDataObject;
	if (raw.scope !== scope) return result;
	const fits = [1, 2, 3, 4, STATE_VERSION].includes(raw.version as number) && isObject(raw.forms);
	if (!fits || !isCount(raw.activatedAtMs)) {
		const part = fits ? 'the activation time' : 'the stored state';
		result.warnings.push(`${part} did not fit: started afresh`);
		return result;
	}
	const migrating = (raw.version as number) < 4;
	const choice = migrating ? migrateChoice(raw) : readChoice(raw.choice);
	const { rev, failures, emitSinceMs } = raw;
	const state: TriggerState = {
		version: STATE_VERSION,
		scope,
		rev: 0,
		activatedAtMs: raw.activatedAtMs,
		forms: {},
	};
	const misfits = {
		'the poll count': !takeCount(state, 'rev', rev),
		'the count of failed polls': !takeCount(state, 'failures', failures),
		// Forms listed later then start at the activation.
		'the date to emit from': !takeCount(state, 'emitSinceMs', emitSinceMs),
		// No more existing responses are emitted.
		'the choice of the newest responses': (raw.choice ?? raw.backfill) !== undefined && !choice,
	};
	for (const [part, misfit] of Object.entries(misfits))
		if (misfit) result.warnings.push(`${part} in the stored state did not fit: it was reset`);
	if (choice) state.choice = choice;
	for (const [formId, stored] of Object.entries(raw.forms as IDataObject)) {
		// A form still choosing (versions 2 and 3) gets its cursor when the choice ends.
		if (migrating && choice?.pending.includes(formId)) continue;
		const cursor = migrating ? migrateCursor(stored) : readCursor(stored);
		// Up to version 4 a form was named on every 5th poll of its run.
		const polls = cursor?.failedPolls ?? 0;
		if (cursor && raw.version !== STATE_VERSION && polls >= POLLS_BEFORE_ERROR)
			cursor.namedAt = polls - (polls % POLLS_BEFORE_ERROR);
		// One whose choice is gone: its window holds existing responses, none of which is emitted.
		if (cursor && migrating && isObject(stored) && stored.choice !== undefined)
			cursor.floor = { atMs: state.activatedAtMs + 1, id: '' };
		if (cursor) state.forms[formId] = cursor;
		else {
			result.reset.push(formId);
			result.warnings.push(`the stored place of form "${formId}" did not fit: it goes on from now`);
		}
	}
	result.state = state;
	return result;
}

/** Sets an optional count when it fits; false when it is there and does not. */
function takeCount<T extends object>(target: T, key: keyof T, value: unknown): boolean {
	if (isCount(value)) Object.assign(target, { [key]: value });
	return value === undefined || isCount(value);
}

function readCursor(value: unknown): FormCursor | undefined {
	if (!isObject(value) || typeof value.since !== 'string' || Number.isNaN(Date.parse(value.since)))
		return undefined;
	const { seen, floor, listed, keptTurn } = value;
	if (!isObject(seen) || !Object.values(seen).every(isFiniteNumber)) return undefined;
	const cursor: FormCursor = { since: value.since, seen: seen as Record<string, number> };
	const floorFits = isObject(floor) && isFiniteNumber(floor.atMs) && typeof floor.id === 'string';
	if (floorFits) cursor.floor = { atMs: floor.atMs as number, id: floor.id as string };
	const counts = (
		['failedPolls', 'servedPolls', 'namedAt', 'readAtRev', 'unlistedSinceMs'] as const
	).every((key) => takeCount(cursor, key, value[key]));
	if (typeof listed === 'string') cursor.listed = listed;
	if (keptTurn === true) cursor.keptTurn = true;
	const fits =
		(floor === undefined || floorFits) &&
		(listed === undefined || typeof listed === 'string') &&
		(keptTurn === undefined || keptTurn === true) &&
		Math.max(cursor.servedPolls ?? 0, cursor.namedAt ?? 0) <= (cursor.failedPolls ?? 0);
	return counts && fits ? cursor : undefined;
}

/**
 * Versions 1–3: `since`, `seen` and the floor keep their meaning; a read cut short (a resume
 * point, an offset) is read again from `since`, which `seen` keeps from emitting twice.
 * Undated responses handled are remembered at the newest time read.
 */
function migrateCursor(value: unknown): FormCursor | undefined {
	if (!isObject(value)) return undefined;
	const { listedCount, listedUpdatedAt, newestMs, undated, floor } = value;
	const cursor = readCursor({
		since: value.since,
		seen: value.seen,
		// Up to version 3 a floor at a millisecond's last id kept out all of that millisecond.
		floor:
			isObject(floor) && floor.id === '\uffff' && isFiniteNumber(floor.atMs)
				? { atMs: floor.atMs + 1, id: '' }
				: floor,
		failedPolls: value.failedPolls,
		readAtRev: value.readAtRev,
		unlistedSinceMs: value.unlistedSinceMs,
	});
	if (!cursor) return undefined;
	if (isCount(listedCount)) cursor.listed = `${listedCount}/${String(listedUpdatedAt)}`;
	const undatedAtMs = isFiniteNumber(newestMs) ? newestMs : Date.parse(cursor.since) + 1;
	if (Array.isArray(undated))
		for (const id of undated) if (typeof id === 'string') cursor.seen[id] ??= undatedAtMs;
	return cursor;
}

function readChoice(value: unknown): NewestChoice | undefined {
	if (!isObject(value) || !isCount(value.count)) return undefined;
	const { pending, done } = value;
	const chosen = readChosen(value.chosen);
	if (!chosen || !isIdList(pending) || !isIdList(done)) return undefined;
	return { count: value.count, pending, done, chosen };
}

function isIdList(value: unknown): value is string[] {
	return Array.isArray(value) && value.every((id) => typeof id === 'string');
}

/**
 * Version 3's `choice` (version 2's `backfill`): every form of it reads its newest again, the
 * candidates found so far are kept.
 */
function migrateChoice(raw: IDataObject): NewestChoice | undefined {
	const old = isObject(raw.choice) ? raw.choice : isObject(raw.backfill) ? raw.backfill : undefined;
	if (!old || !isCount(old.limit) || !isIdList(old.forms)) return undefined;
	const chosen = readChosen(old.chosen ?? old.newest);
	return chosen && { count: old.limit, pending: old.forms, done: [], chosen };
}

function readChosen(value: unknown): NewestChoice['chosen'] | undefined {
	if (!Array.isArray(value)) return undefined;
	const fits = (entry: unknown) =>
		Array.isArray(entry) &&
		entry.length === 3 &&
		typeof entry[0] === 'string' &&
		typeof entry[1] === 'string' &&
		isFiniteNumber(entry[2]);
	return value.every(fits) ? (value as NewestChoice['chosen']) : undefined;
}

/** Writes the state into n8n's static data object in place: n8n saves that very object. */
export function writeState(staticData: IDataObject, state: TriggerState): void {
	for (const key of Object.keys(staticData)) delete staticData[key];
	Object.assign(staticData, JSON.parse(JSON.stringify(state)) as IDataObject);
}

function isFiniteNumber(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value);
}

function isCount(value: unknown): value is number {
	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The polls of this process that are running now, by trigger. n8n starts a poll on every tick
 * whether or not the last one finished; both would start from the same stored state and emit
 * the same responses. A poll that finds another running returns nothing and leaves the state
 * alone. Nothing here is state: an entry lives only while its poll runs (or, should a poll hang,
 * until its budget has long passed).
 */
const runningPolls = new Map<string, { startedAt: number }>();

export async function unlessAlreadyPolling<T>(
	key: string,
	staleAfterMs: number,
	poll: (stillCurrent: () => boolean) => Promise<T>,
): Promise<T | undefined> {
	const running = runningPolls.get(key);
	if (running !== undefined && Date.now() - running.startedAt < staleAfterMs) return undefined;
	// Each poll's own entry: a later poll that takes over replaces it, whatever the clock says.
	const mine = { startedAt: Date.now() };
	runningPolls.set(key, mine);
	try {
		// A poll that ran so long that another took over must neither write state nor emit.
		return await poll(() => runningPolls.get(key) === mine);
	} finally {
		if (runningPolls.get(key) === mine) runningPolls.delete(key);
	}
}
