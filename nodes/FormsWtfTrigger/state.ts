import type { IDataObject } from 'n8n-workflow';

import type { FormCursor } from './cursor';

/**
 * What the trigger keeps in the workflow's static data (node scope). n8n alone owns it: every
 * poll starts from what n8n hands over, so a poll n8n discards or rolls back (a workflow saved
 * while the poll ran, a durable cursor that failed to commit, a restart before the state was
 * written) is simply read again, and the cursor's ids window keeps that from emitting twice.
 */
export interface TriggerState {
	version: 1;
	/** What is watched ("form:<id>" or "all"): another scope starts afresh. */
	scope: string;
	/** Counts polls; All Forms uses it to know how long ago each form was read. */
	rev: number;
	/** The service's clock at the first poll: responses after it are new. */
	activatedAtMs: number;
	forms: Record<string, FormCursor>;
	/** Passing failures in a row, so that only a lasting one is reported. */
	failures?: number;
	/** Emit Existing Responses, while the existing responses are still being read. */
	backfill?: BackfillProgress;
}

/**
 * Emit Existing Responses reads existing responses to find the newest `limit` of them, over as
 * many polls as the poll budget needs. Only the newest `limit` (form, id, time) are
 * kept; the forms still to read carry `backfillOffset` in their cursor.
 */
export interface BackfillProgress {
	limit: number;
	/** The forms whose existing responses count (those listed at activation). */
	forms: string[];
	/** Which window of time before activation is being read (see readExisting). */
	window: number;
	/** [formId, responseId, submittedAt ms] of the newest existing responses read so far. */
	newest: Array<[string, string, number]>;
}

const STATE_KEYS: Array<keyof TriggerState> = ['version', 'scope', 'rev', 'activatedAtMs', 'forms', 'failures', 'backfill'];

/** The state n8n stored, as a copy this poll may change freely, or undefined when there is none for this scope. */
export function readState(staticData: IDataObject, scope: string): TriggerState | undefined {
	if (staticData.version !== 1 || staticData.scope !== scope) return undefined;
	if (typeof staticData.rev !== 'number' || typeof staticData.activatedAtMs !== 'number') return undefined;
	if (!staticData.forms || typeof staticData.forms !== 'object') return undefined;
	return JSON.parse(
		JSON.stringify({
			version: 1,
			scope,
			rev: staticData.rev,
			activatedAtMs: staticData.activatedAtMs,
			forms: staticData.forms,
			failures: typeof staticData.failures === 'number' ? staticData.failures : undefined,
			backfill: staticData.backfill,
		}),
	) as TriggerState;
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
	poll: () => Promise<T>,
): Promise<T | undefined> {
	const running = runningPolls.get(key);
	if (running !== undefined && Date.now() - running.startedAt < staleAfterMs) return undefined;
	const mine = { startedAt: Date.now() };
	runningPolls.set(key, mine);
	try {
		return await poll();
	} finally {
		if (runningPolls.get(key) === mine) runningPolls.delete(key);
	}
}
