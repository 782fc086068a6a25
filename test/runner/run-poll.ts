import { Container } from '@n8n/di';
import type {
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	IWorkflowSettings,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { deepCopy, UnexpectedError, Workflow } from 'n8n-workflow';
import { PollContext, PollTriggerExecutor } from 'n8n-core';

import { buildAdditionalData, nextExecutionId } from './additional-data';
import { RunnerCredentialsHelper, type RunnerCredentials } from './credentials';
import { RunnerNodeTypeRegistry, type RunnerNodeTypes } from './node-types';
import { DEFAULT_WORKFLOW_ID } from './run-workflow';
import { ensureRunnerReady } from './setup';
import { persistedCopy } from './static-data';

export interface RunPollArgs {
	/** The poll trigger node: type, parameters, credentials reference. */
	node: INode;
	nodeTypes: RunnerNodeTypes;
	credentials?: RunnerCredentials;
	/**
	 * `trigger`: one scheduled poll of an active workflow (n8n-core's PollTriggerExecutor,
	 * as ActiveWorkflowTriggers runs it on every cron tick).
	 * `manual`: "Fetch test event" in the editor (WorkflowExecute.executePollNode: a
	 * PollContext in manual mode, poll() called directly).
	 */
	mode: 'manual' | 'trigger';
	/** The workflow's static data going in, as stored (e.g. the `staticData` of the previous runPoll). */
	staticData?: IDataObject;
	workflowId?: string;
	settings?: IWorkflowSettings;
	/**
	 * What `this.getPollBudgetMs()` returns. Omitted: n8n-core's PollContext default,
	 * 300000 (5 min), which is what n8n 2.41 gives every poll unless its durable scheduler
	 * is on. A number: that budget (n8n's durable scheduler derives 36000 from its default
	 * 45 s poll timeout). `null`: no `getPollBudgetMs` on the context at all, like n8n
	 * before 2.41, for nodes that feature-detect it.
	 */
	pollBudgetMs?: number | null;
	/** What `this.getActivationMode()` returns in trigger mode; default `activate`. */
	activation?: WorkflowActivateMode;
	/**
	 * Default true: a poll that throws rejects runPoll with the node's error. With false the
	 * error is returned in `error`, with the static data the next poll would start from.
	 */
	throwOnError?: boolean;
	/**
	 * The workflow is saved or re-published while the poll runs: n8n-core's
	 * PollTriggerExecutor sees `isCurrent()` turn false after poll() returned and discards the
	 * result ("Discarding in-flight poll result for superseded workflow"): nothing is emitted,
	 * nothing saved, and the next poll runs on a new Workflow loaded from the stored static data.
	 */
	supersededWhileRunning?: boolean;
	/**
	 * Replaces the poll context's `helpers.httpRequestWithAuthentication`: every request the
	 * node sends goes to this function instead of n8n's HTTP client (an in-memory server in
	 * tests, see test/sim). It gets what the node passed (credential type, request options)
	 * and returns what n8n's helper would (with `returnFullResponse`: statusCode, headers, body).
	 * Omitted: n8n's own helper, over the network.
	 */
	httpRequest?: HttpRequestWithAuthentication;
}

/** An in-process stand-in for n8n's `httpRequestWithAuthentication` helper. */
export type HttpRequestWithAuthentication = (
	credentialsType: string,
	requestOptions: IHttpRequestOptions,
) => Promise<unknown>;

export interface RunPollResult {
	/** What poll() returned: null when it had nothing new. */
	items: INodeExecutionData[][] | null;
	/**
	 * The static data the next poll of the active workflow starts from (JSON copy, as n8n
	 * stores it). Manual mode: the input, unchanged, whatever the node wrote.
	 */
	staticData: IDataObject;
	/** Whether n8n would have written static data to its database after this poll (see runPoll). */
	staticDataSaved: boolean;
	error?: Error;
}

/**
 * Runs a poll trigger's poll() once through n8n-core, and returns its items and the
 * workflow's static data as n8n keeps it afterwards.
 *
 * How n8n 2.41 keeps a poll node's static data (default config; the durable scheduler and
 * its poll cursors are off unless N8N_SCHEDULER_ENABLED, N8N_SCHEDULER_POLL_TRIGGERS_ENABLED
 * and N8N_POLLER_DURABLE_CURSORS_ENABLED are set):
 * - `getWorkflowStaticData('node')` is `workflow.getStaticData('node', node)`: an observable
 *   object inside the Workflow's static data, which flags `__dataChanged` on writes.
 * - The active workflow's Workflow object lives in memory from activation on, so the next
 *   poll sees every change a poll made — also when it returned null or threw.
 * - The database copy is written when a poll emits items (`__emit` calls
 *   WorkflowStaticDataService.saveStaticData, which writes if `__dataChanged`). A poll that
 *   returns null or throws writes nothing; its change lasts until the next emit or restart.
 * - Manual mode never saves static data.
 */
export async function runPoll(args: RunPollArgs): Promise<RunPollResult> {
	await ensureRunnerReady();

	const nodeTypes = new RunnerNodeTypeRegistry(args.nodeTypes);
	const node = deepCopy(args.node);
	const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
	if (!nodeType.poll) throw new UnexpectedError(`Node type "${node.type}" has no poll()`);

	const staticDataIn = deepCopy(args.staticData ?? {});
	const workflowId = args.workflowId ?? DEFAULT_WORKFLOW_ID;
	// An active workflow polls; "Fetch test event" runs in the (inactive) editor copy.
	const workflow = pollWorkflow(args, node, nodeTypes, args.mode === 'trigger', staticDataIn);
	const additionalData = buildAdditionalData({
		credentialsHelper: new RunnerCredentialsHelper(args.credentials ?? {}, nodeTypes),
		// Like n8n: the poll of an active workflow runs before any execution exists.
		executionId: args.mode === 'manual' ? nextExecutionId() : undefined,
		workflowId,
	});
	const { pollBudgetMs } = args;
	const budget = typeof pollBudgetMs === 'number' ? () => pollBudgetMs : undefined;

	const finish = (
		result: Omit<RunPollResult, 'staticData' | 'staticDataSaved'>,
		saved: boolean,
	) => {
		const out: RunPollResult = {
			...result,
			staticData: args.mode === 'manual' ? staticDataIn : persistedCopy(workflow.staticData),
			staticDataSaved: saved,
		};
		if (result.error && args.throwOnError !== false) throw result.error;
		return out;
	};

	if (args.mode === 'manual') {
		// WorkflowExecute.executePollNode: `new PollContext(workflow, node, additionalData,
		// 'manual', 'manual')`; the undefined arguments keep PollContext's defaults.
		const context = new PollContext(
			workflow,
			node,
			additionalData,
			'manual',
			'manual',
			undefined,
			undefined,
			undefined,
			undefined,
			undefined,
			budget,
		);
		removeBudgetIfAsked(context, pollBudgetMs);
		if (args.httpRequest) context.helpers.httpRequestWithAuthentication = args.httpRequest;
		try {
			return finish({ items: await nodeType.poll.call(context) }, false);
		} catch (error) {
			return finish({ items: null, error: toError(error) }, false);
		}
	}

	const activation = new ActivePollTrigger(workflow, node, additionalData, args);
	const tick = await activation.tick({ supersededWhileRunning: args.supersededWhileRunning });
	return finish(
		{ items: tick.items, ...(tick.error && { error: tick.error }) },
		tick.staticDataSaved,
	);
}

export interface PollTickResult {
	items: INodeExecutionData[][] | null;
	/** What the poll threw, or reported through n8n's __emitError (the last of them). */
	error?: Error;
	/** Everything it reported through __emitError or threw, in order. */
	errors?: Error[];
	/** n8n's activation poll threw: n8n fails the activation (and keeps nothing of the poll). */
	activationFailed?: boolean;
	/** Whether n8n would have written static data to its database after this poll. */
	staticDataSaved: boolean;
}

/**
 * One activation of a poll trigger, as n8n 2.41's ActiveWorkflowTriggers holds it: ONE
 * Workflow object and ONE PollContext for every poll until the workflow is deactivated, saved
 * or n8n restarts (a restart or a save is a new ActivePollTrigger from the stored static
 * data). `credentialsHelper.updateCredentials` edits the credential as the editor would.
 */
export class ActivePollTrigger {
	/** What the current poll handed to n8n; filled in by n8n's __emit / __emitError. */
	private readonly outcome: PollTickResult = { items: null, staticDataSaved: false };
	private readonly context: PollContext;

	constructor(
		readonly workflow: Workflow,
		private readonly node: INode,
		additionalData: ReturnType<typeof buildAdditionalData>,
		args: Pick<RunPollArgs, 'activation' | 'pollBudgetMs' | 'httpRequest'>,
	) {
		const { pollBudgetMs } = args;
		const budget = typeof pollBudgetMs === 'number' ? () => pollBudgetMs : undefined;
		this.context = new PollContext(
			workflow,
			node,
			additionalData,
			'trigger',
			args.activation ?? 'activate',
			(data) => {
				// n8n's __emit: saveStaticData(workflow) writes only if a poll changed it.
				Object.assign(this.outcome, { items: data, staticDataSaved: staticDataChanged(workflow) });
			},
			(error) => {
				this.outcome.error = error;
			},
			// __commitCursor, __runPoll, resolveNodeStaticData: PollContext's defaults are what
			// n8n does for a poll without a durable cursor (the real static data, nothing to commit).
			undefined,
			undefined,
			undefined,
			budget,
		);
		removeBudgetIfAsked(this.context, pollBudgetMs);
		if (args.httpRequest) this.context.helpers.httpRequestWithAuthentication = args.httpRequest;
	}

	/**
	 * One poll. `activation`: the poll n8n runs when it activates the workflow (and at every
	 * start): its error is thrown, and n8n then saves the static data if it changed.
	 * Otherwise a cron tick, optionally superseded by a save while it runs. `pollBudgetMs`:
	 * this poll's budget, as for runPoll.
	 */
	async tick(
		options: {
			activation?: boolean;
			supersededWhileRunning?: boolean;
			pollBudgetMs?: number | null;
		} = {},
	): Promise<PollTickResult> {
		const defaultBudget = Object.getOwnPropertyDescriptor(this.context, 'getPollBudgetMs');
		if (typeof options.pollBudgetMs === 'number') {
			const pollBudgetMs = options.pollBudgetMs;
			Object.defineProperty(this.context, 'getPollBudgetMs', {
				value: () => pollBudgetMs,
				configurable: true,
				writable: true,
			});
		}
		removeBudgetIfAsked(this.context, options.pollBudgetMs);
		try {
			return await this.runTick(options);
		} finally {
			if (defaultBudget) Object.defineProperty(this.context, 'getPollBudgetMs', defaultBudget);
		}
	}

	private async runTick(options: {
		activation?: boolean;
		supersededWhileRunning?: boolean;
	}): Promise<PollTickResult> {
		Object.assign(this.outcome, { items: null, error: undefined, staticDataSaved: false });
		// The poll context of this tick: the activation's one, with __emit / __emitError of its
		// own, so that two ticks running at once (see `tick`) never report each other's items.
		const outcome: PollTickResult = { items: null, staticDataSaved: false };
		const context = Object.create(this.context) as PollContext;
		Object.assign(context, {
			__emit: (data: INodeExecutionData[][]) => {
				Object.assign(outcome, { items: data, staticDataSaved: staticDataChanged(this.workflow) });
				this.context.__emit(data);
			},
			__emitError: (error: Error) => {
				outcome.error = error;
				outcome.errors = [...(outcome.errors ?? []), error];
				this.context.__emitError(error);
			},
		});
		this.workflow.staticData.__dataChanged = false;
		// PollTriggerExecutor asks isCurrent() before the poll and again once poll() returned.
		let isCurrentAsked = 0;
		const isCurrent = () => !options.supersededWhileRunning || isCurrentAsked++ === 0;
		const executePoll = Container.get(PollTriggerExecutor).create(
			this.workflow,
			this.node,
			context,
			isCurrent,
		);
		if (options.activation) {
			try {
				await executePoll(true);
			} catch (error) {
				return {
					items: null,
					error: toError(error),
					staticDataSaved: false,
					activationFailed: true,
				};
			}
			// ActiveWorkflowManager after the activation poll: saveStaticData if it changed.
			if (staticDataChanged(this.workflow)) outcome.staticDataSaved = true;
		} else {
			await executePoll(false);
		}
		const { items, error, errors, staticDataSaved } = outcome;
		return { items, ...(error && { error }), ...(errors && { errors }), staticDataSaved };
	}

	/** The workflow's static data as a JSON copy, as the database column would hold it. */
	staticData(): IDataObject {
		return persistedCopy(this.workflow.staticData);
	}
}

/** Activates a poll trigger from the stored static data: a new Workflow and PollContext. */
export async function activatePollTrigger(
	args: Omit<RunPollArgs, 'mode' | 'throwOnError' | 'supersededWhileRunning'>,
): Promise<{ trigger: ActivePollTrigger; credentialsHelper: RunnerCredentialsHelper }> {
	await ensureRunnerReady();
	const nodeTypes = new RunnerNodeTypeRegistry(args.nodeTypes);
	const node = deepCopy(args.node);
	const workflowId = args.workflowId ?? DEFAULT_WORKFLOW_ID;
	const workflow = pollWorkflow(args, node, nodeTypes, true, args.staticData ?? {});
	const credentialsHelper = new RunnerCredentialsHelper(args.credentials ?? {}, nodeTypes);
	const additionalData = buildAdditionalData({
		credentialsHelper,
		executionId: undefined,
		workflowId,
	});
	return {
		trigger: new ActivePollTrigger(workflow, node, additionalData, args),
		credentialsHelper,
	};
}

/** The one-node workflow a poll runs in, holding a copy of the static data it starts from. */
function pollWorkflow(
	args: Pick<RunPollArgs, 'workflowId' | 'settings'>,
	node: INode,
	nodeTypes: RunnerNodeTypeRegistry,
	active: boolean,
	staticData: IDataObject,
): Workflow {
	return new Workflow({
		id: args.workflowId ?? DEFAULT_WORKFLOW_ID,
		name: 'Runner poll workflow',
		nodes: [node],
		connections: {},
		active,
		nodeTypes,
		staticData: deepCopy(staticData),
		settings: args.settings,
	});
}

/** n8n's `__dataChanged` flag: set by the observable static data on any write. */
function staticDataChanged(workflow: Workflow): boolean {
	return workflow.staticData.__dataChanged === true;
}

/** `null` takes the method off the context, as on n8n < 2.41 where PollContext had none. */
function removeBudgetIfAsked(context: PollContext, pollBudgetMs: number | null | undefined): void {
	if (pollBudgetMs === null) Reflect.deleteProperty(context, 'getPollBudgetMs');
}

function toError(error: unknown): Error {
	return error instanceof Error ? error : new Error(String(error));
}
