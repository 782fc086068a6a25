/**
 * One active Forms.wtf Trigger, polled through n8n-core's real poll machinery, with its static
 * data carried from poll to poll as n8n keeps it.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { pollTrigger } from '../support/formsWtf';

let sessions = 0;

export interface PollOutcome {
	items: IDataObject[];
	error?: Error;
}

export class TriggerSession {
	staticData: IDataObject = {};
	readonly workflowId: string;

	constructor(
		private readonly harness: RunningHarness,
		private readonly parameters: IDataObject,
		private readonly apiKey: string = harness.keys.team,
	) {
		// Each session is its own workflow, so the trigger's per-workflow memory never leaks between tests.
		this.workflowId = `wf-trigger-${process.pid}-${++sessions}`;
	}

	/** One scheduled poll; the state it leaves becomes the state of the next. */
	async poll(options: { pollBudgetMs?: number | null; staticData?: IDataObject } = {}): Promise<PollOutcome> {
		const result = await pollTrigger({
			baseUrl: this.harness.baseUrl,
			apiKey: this.apiKey,
			parameters: this.parameters,
			mode: 'trigger',
			workflowId: this.workflowId,
			staticData: options.staticData ?? this.staticData,
			pollBudgetMs: options.pollBudgetMs,
			throwOnError: false,
		});
		if (options.staticData === undefined) this.staticData = result.staticData;
		return { items: (result.items?.[0] ?? []).map((item) => item.json), error: result.error };
	}

	/** "Fetch Test Event" in the editor. */
	async fetchTestEvent(): Promise<PollOutcome> {
		const result = await pollTrigger({
			baseUrl: this.harness.baseUrl,
			apiKey: this.apiKey,
			parameters: this.parameters,
			mode: 'manual',
			workflowId: this.workflowId,
			staticData: this.staticData,
			throwOnError: false,
		});
		return { items: (result.items?.[0] ?? []).map((item) => item.json), error: result.error };
	}
}
