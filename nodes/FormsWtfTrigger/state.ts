import type { IDataObject } from 'n8n-workflow';

import type { FormCursor } from './cursor';

/** What the trigger keeps in the workflow's static data (node scope). */
export interface TriggerState {
	version: 1;
	/** What is watched ("form:<id>" or "all"): another scope starts afresh. */
	scope: string;
	/** Counts committed polls; tells a stale copy of the state from a newer one. */
	rev: number;
	/** The service's clock at the first poll: responses after it are new. */
	activatedAtMs: number;
	forms: Record<string, FormCursor>;
}

const STATE_KEYS: Array<keyof TriggerState> = ['version', 'scope', 'rev', 'activatedAtMs', 'forms'];

export function readState(staticData: IDataObject, scope: string): TriggerState | undefined {
	if (staticData.version !== 1 || staticData.scope !== scope) return undefined;
	if (typeof staticData.rev !== 'number' || typeof staticData.activatedAtMs !== 'number') return undefined;
	if (!staticData.forms || typeof staticData.forms !== 'object') return undefined;
	return {
		version: 1,
		scope,
		rev: staticData.rev,
		activatedAtMs: staticData.activatedAtMs,
		forms: staticData.forms as Record<string, FormCursor>,
	};
}

/**
 * Writes the state into n8n's static data object in place: n8n watches that very object for
 * changes and saves it after the poll returns.
 */
export function writeState(staticData: IDataObject, state: TriggerState): void {
	for (const key of Object.keys(staticData)) {
		if (!(STATE_KEYS as string[]).includes(key)) delete staticData[key];
	}
	staticData.version = state.version;
	staticData.scope = state.scope;
	staticData.rev = state.rev;
	staticData.activatedAtMs = state.activatedAtMs;
	staticData.forms = JSON.parse(JSON.stringify(state.forms)) as IDataObject;
}

/**
 * Polls of one trigger in this process, one at a time, and the last state each committed.
 * n8n can start a poll before the previous one finished, or run a poll twice on the same
 * stored state (a retried tick, a state that was reset on republish); with the newest
 * committed state at hand, neither emits a response twice. This covers one n8n process; a
 * multi-main setup relies on n8n running each trigger on one main.
 */
const pollQueues = new Map<string, Promise<void>>();
const committedStates = new Map<string, TriggerState>();

export async function runExclusive<T>(key: string, poll: () => Promise<T>): Promise<T> {
	const previous = pollQueues.get(key) ?? Promise.resolve();
	let release!: () => void;
	const current = new Promise<void>((resolve) => (release = resolve));
	const queued = previous.then(() => current);
	pollQueues.set(key, queued);
	await previous;
	try {
		return await poll();
	} finally {
		release();
		if (pollQueues.get(key) === queued) pollQueues.delete(key);
	}
}

/** The stored state, or the newer one this process committed for the same trigger and scope. */
export function newestState(key: string, stored: TriggerState | undefined, scope: string): TriggerState | undefined {
	const committed = committedStates.get(key);
	if (!committed || committed.scope !== scope) return stored;
	if (stored && stored.rev >= committed.rev) return stored;
	return JSON.parse(JSON.stringify(committed)) as TriggerState;
}

export function rememberCommitted(key: string, state: TriggerState): void {
	committedStates.set(key, JSON.parse(JSON.stringify(state)) as TriggerState);
}
