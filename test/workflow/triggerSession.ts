/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * One Forms.wtf Trigger in an active workflow, polled through n8n-core's real poll machinery
 * the way n8n 2.41 keeps its static data:
 * - an activation is ONE Workflow object and ONE poll context for all its polls; a poll that
 *   returns null or fails leaves its changes in that object, unsaved;
 * - the database copy is written by the activation poll and by every poll that emits;
 * - a restart, and a save of the workflow while a poll runs (the poll's result is discarded),
 *   start a NEW activation from the database copy.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import type { ActivePollTrigger, RunnerCredentialsHelper } from '../runner';
import { activatePollTrigger } from '../runner';
import { credentialsFor, nodeTypes, pollTrigger, triggerNode } from '../support/formsWtf';

let sessions = 0;

export interface PollOutcome {
	items: IDataObject[];
	error?: Error;
	/** n8n's activation poll threw, so n8n failed the activation. */
	activationFailed?: boolean;
}

interface Activation {
	trigger: ActivePollTrigger;
	credentialsHelper: RunnerCredentialsHelper;
	/** The first poll of an activation (and of every start of n8n) is n8n's activation poll. */
	polled: boolean;
}

export class TriggerSession {
	/** What n8n's database holds for the workflow's static data. */
	storedStaticData: IDataObject = {};
	readonly workflowId: string;
	private activation?: Activation;
	private credential: { baseUrl: string; apiKey: string };

	constructor(
		harness: RunningHarness,
		private readonly parameters: IDataObject,
		apiKey: string = harness.keys.team,
		private readonly typeVersion = 1,
	) {
		this.workflowId = `wf-trigger-${process.pid}-${++sessions}`;
		this.credential = { baseUrl: harness.baseUrl, apiKey };
	}

	/** The static data the next poll starts from: the active Workflow's, else the stored one. */
	get staticData(): IDataObject {
		return this.activation ? this.activation.trigger.staticData() : this.storedStaticData;
	}

	/** Replaces the stored static data and restarts (a test that brings its own state). */
	set staticData(data: IDataObject) {
		this.storedStaticData = structuredClone(data);
		this.restart();
	}

	/**
	 * One poll of the active workflow. `discarded`: the workflow is saved while the poll runs,
	 * so n8n drops its result and loads the workflow again from the database. `staticData`: a
	 * one-off poll of a separate Workflow loaded from that data, which the session does not keep.
	 */
	async poll(
		options: { pollBudgetMs?: number | null; staticData?: IDataObject; discarded?: boolean } = {},
	): Promise<PollOutcome> {
		if (options.staticData !== undefined) {
			const result = await pollTrigger({
				baseUrl: this.credential.baseUrl,
				apiKey: this.credential.apiKey,
				parameters: this.parameters,
				typeVersion: this.typeVersion,
				mode: 'trigger',
				workflowId: this.workflowId,
				staticData: options.staticData,
				pollBudgetMs: options.pollBudgetMs,
				throwOnError: false,
			});
			return { items: (result.items?.[0] ?? []).map((item) => item.json), error: result.error };
		}
		const activation = await this.activeTrigger();
		const isActivationPoll = !activation.polled;
		const tick = await activation.trigger.tick({
			activation: isActivationPoll,
			supersededWhileRunning: options.discarded,
			pollBudgetMs: options.pollBudgetMs,
		});
		activation.polled = true;
		if (isActivationPoll && tick.activationFailed) this.activation = undefined; // activation failed: nothing stays active
		if (tick.staticDataSaved) this.storedStaticData = activation.trigger.staticData();
		if (options.discarded) this.restart();
		return {
			items: (tick.items?.[0] ?? []).map((item) => item.json),
			error: tick.error,
			...(tick.activationFailed && { activationFailed: true }),
		};
	}

	/**
	 * Two polls of the active workflow at once (n8n starts a tick whether or not the last one
	 * finished): both in the same Workflow object.
	 */
	async pollTogether(): Promise<PollOutcome[]> {
		const activation = await this.activeTrigger();
		activation.polled = true;
		const ticks = await Promise.all([activation.trigger.tick(), activation.trigger.tick()]);
		if (ticks.some((tick) => tick.staticDataSaved))
			this.storedStaticData = activation.trigger.staticData();
		return ticks.map((tick) => ({
			items: (tick.items?.[0] ?? []).map((item) => item.json),
			error: tick.error,
		}));
	}

	/** n8n stops (or is killed) and starts again: the next poll loads the stored static data. */
	restart(): void {
		this.activation = undefined;
	}

	/** The user edits the credential while the workflow is active (n8n keeps the activation). */
	async editCredential(change: { baseUrl?: string; apiKey?: string }): Promise<void> {
		this.credential = { ...this.credential, ...change };
		if (!this.activation) return;
		const { formsWtfApi } = credentialsFor(this.credential.baseUrl, this.credential.apiKey);
		await this.activation.credentialsHelper.updateCredentials(
			{ id: '1', name: 'Forms.wtf account' },
			'formsWtfApi',
			formsWtfApi.data,
		);
	}

	/** "Fetch Test Event" in the editor. */
	async fetchTestEvent(): Promise<PollOutcome> {
		const result = await pollTrigger({
			baseUrl: this.credential.baseUrl,
			apiKey: this.credential.apiKey,
			parameters: this.parameters,
			typeVersion: this.typeVersion,
			mode: 'manual',
			workflowId: this.workflowId,
			staticData: this.staticData,
			throwOnError: false,
		});
		return { items: (result.items?.[0] ?? []).map((item) => item.json), error: result.error };
	}

	private async activeTrigger(): Promise<Activation> {
		if (!this.activation) {
			const { trigger, credentialsHelper } = await activatePollTrigger({
				node: triggerNode(this.parameters, { typeVersion: this.typeVersion }),
				nodeTypes,
				credentials: credentialsFor(this.credential.baseUrl, this.credential.apiKey),
				workflowId: this.workflowId,
				staticData: this.storedStaticData,
			});
			this.activation = { trigger, credentialsHelper, polled: false };
		}
		return this.activation;
	}
}
