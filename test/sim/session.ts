/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The real Forms.wtf Trigger in an active workflow, polled through n8n-core (the runner's
 * ActivePollTrigger) against the in-memory SimServer, the way test/workflow/triggerSession.ts
 * does against the HTTP harness:
 * - one activation is ONE Workflow object and ONE poll context; its first poll is n8n's
 *   activation poll (an error there leaves the workflow inactive);
 * - n8n's database copy of the static data is written by the activation poll and by every
 *   poll that emits; a restart, and a save of the workflow while a poll runs (n8n discards
 *   the poll's result), start a NEW activation from that copy;
 * - two polls at once share the activation.
 * While a poll runs, the host's `Date.now` is the server's virtual clock (the poll budget and
 * Retry-After dates count virtual time) and `Math.random` a seeded generator (the transport's
 * backoff jitter), so that a schedule replays exactly; the transport's waits advance the
 * virtual clock at once (`testRetryPolicy.wait`, installed by `useVirtualWaits`).
 */
import type { IDataObject } from 'n8n-workflow';

import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';
import type { ActivePollTrigger } from '../runner';
import { activatePollTrigger } from '../runner';
import { credentialsFor, nodeTypes, triggerNode } from '../support/formsWtf';
import { prng } from '../support/prng';
import type { SimServer } from './server';
import { SIM_BASE_URL } from './server';

let sessions = 0;

export interface TickOutcome {
	items: IDataObject[];
	error?: Error;
	/** Every error the poll reported or threw (several forms may be reported by one poll). */
	errors?: Error[];
	/** n8n's activation poll threw, so n8n failed the activation. */
	activationFailed?: boolean;
}

/** The transport's retry waits move the server's clock instead of sleeping. Returns the undo. */
export function useVirtualWaits(server: SimServer): () => void {
	testRetryPolicy.wait = async (ms) => await server.wait(ms);
	return () => resetTestRetryPolicy();
}

export class SimTriggerSession {
	/** What n8n's database holds for the workflow's static data. */
	storedStaticData: IDataObject = {};
	readonly workflowId = `wf-sim-${process.pid}-${++sessions}`;
	private activation?: { trigger: ActivePollTrigger; polled: boolean };
	private readonly random: () => number;

	constructor(
		private readonly server: SimServer,
		private parameters: IDataObject,
		randomSeed = 1,
		private readonly typeVersion = 1,
	) {
		this.random = prng(randomSeed);
	}

	/**
	 * Another session on another server, starting from this one's static data as it is now (a
	 * new activation from it): what the next poll would do elsewhere.
	 */
	fork(server: SimServer, randomSeed = 1): SimTriggerSession {
		const fork = new SimTriggerSession(server, this.parameters, randomSeed, this.typeVersion);
		fork.storedStaticData = structuredClone(this.staticData);
		return fork;
	}

	/** The static data the next poll starts from: the active Workflow's, else the stored one. */
	get staticData(): IDataObject {
		return this.activation ? this.activation.trigger.staticData() : this.storedStaticData;
	}

	/** The trigger's own part of the static data (n8n's `node:<name>` key), if any. */
	get triggerState(): IDataObject | undefined {
		const key = Object.keys(this.staticData).find((name) => name.startsWith('node:'));
		return key === undefined ? undefined : (this.staticData[key] as IDataObject);
	}

	get active(): boolean {
		return this.activation !== undefined;
	}

	/** Whether the next poll is n8n's activation poll (first poll of an activation or of a start). */
	get nextIsActivationPoll(): boolean {
		return !this.activation?.polled;
	}

	/**
	 * One poll of the active workflow. `discarded`: the workflow is saved while the poll runs, so
	 * n8n drops its result and loads the workflow again from the database.
	 */
	async poll(options: { pollBudgetMs?: number; discarded?: boolean } = {}): Promise<TickOutcome> {
		const activation = await this.activeTrigger();
		const isActivationPoll = !activation.polled;
		const tick = await this.virtually(
			async () =>
				await activation.trigger.tick({
					activation: isActivationPoll,
					supersededWhileRunning: options.discarded,
					pollBudgetMs: options.pollBudgetMs,
				}),
		);
		activation.polled = true;
		if (isActivationPoll && tick.activationFailed) this.activation = undefined;
		if (tick.staticDataSaved) this.storedStaticData = activation.trigger.staticData();
		if (options.discarded) this.restart();
		return {
			items: (tick.items?.[0] ?? []).map((item) => item.json),
			error: tick.error,
			errors: tick.errors ?? (tick.error ? [tick.error] : []),
			...(tick.activationFailed && { activationFailed: true }),
		};
	}

	/** Two polls of the active workflow at once (n8n ticks whether or not the last poll finished). */
	async pollTogether(): Promise<TickOutcome[]> {
		const activation = await this.activeTrigger();
		activation.polled = true;
		const ticks = await this.virtually(
			async () => await Promise.all([activation.trigger.tick(), activation.trigger.tick()]),
		);
		if (ticks.some((tick) => tick.staticDataSaved))
			this.storedStaticData = activation.trigger.staticData();
		return ticks.map((tick) => ({
			items: (tick.items?.[0] ?? []).map((item) => item.json),
			error: tick.error,
			errors: tick.errors ?? (tick.error ? [tick.error] : []),
		}));
	}

	/**
	 * The user changes the trigger's parameters and saves the workflow: n8n activates it again
	 * from the stored static data.
	 */
	setParameters(parameters: IDataObject): void {
		this.parameters = parameters;
		this.restart();
	}

	/** n8n stops (or is killed) and starts again: the next poll loads the stored static data. */
	restart(): void {
		this.activation = undefined;
	}

	private async activeTrigger(): Promise<{ trigger: ActivePollTrigger; polled: boolean }> {
		if (!this.activation) {
			const { trigger } = await activatePollTrigger({
				node: triggerNode(this.parameters, { typeVersion: this.typeVersion }),
				nodeTypes,
				credentials: credentialsFor(SIM_BASE_URL, 'fwtf_sim_key'),
				workflowId: this.workflowId,
				staticData: this.storedStaticData,
				httpRequest: this.server.handle,
			});
			this.activation = { trigger, polled: false };
		}
		return this.activation;
	}

	/** Runs a poll with the host clock on the server's virtual clock and a seeded Math.random. */
	private async virtually<T>(run: () => Promise<T>): Promise<T> {
		const realNow = Date.now;
		const realRandom = Math.random;
		Date.now = () => this.server.now;
		Math.random = this.random;
		try {
			return await run();
		} finally {
			Date.now = realNow;
			Math.random = realRandom;
		}
	}
}
