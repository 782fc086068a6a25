/**
 * The workflows users build without our node, as n8n's docs teach them: an HTTP Request node
 * with offset pagination and header auth, a Split Out of `responses`, and (for "new responses
 * only") a Schedule Trigger in front and a Remove Duplicates behind.
 */
import type { IConnections, INode } from 'n8n-workflow';

import type { RunnerCredentials, RunnerNodeTypes } from '../../test/runner';
import { runnerStartNode } from '../../test/runner';
import type { N8nBase } from './n8nBase';
import {
	HTTP_REQUEST_TYPE,
	REMOVE_DUPLICATES_TYPE,
	SCHEDULE_TRIGGER_TYPE,
	SPLIT_OUT_TYPE,
} from './n8nBase';

export const HTTP_NODE = 'HTTP Request';
export const SPLIT_NODE = 'Split Out';
export const DEDUPE_NODE = 'Remove Duplicates';
export const SCHEDULE_NODE = 'Schedule Trigger';

export interface HttpPagingOptions {
	/** "Interval Between Requests (ms)" of the pagination settings; 0 = none (the default). */
	requestIntervalMs?: number;
	/** The node's Settings → Retry On Fail, with its Max Tries and Wait Between Tries (ms). */
	retryOnFail?: { maxTries: number; waitBetweenTriesMs: number };
}

export function n8nBaseNodeTypes(base: N8nBase): RunnerNodeTypes {
	return {
		[HTTP_REQUEST_TYPE]: base.httpRequest,
		[SPLIT_OUT_TYPE]: base.splitOut,
		[REMOVE_DUPLICATES_TYPE]: base.removeDuplicates,
		[SCHEDULE_TRIGGER_TYPE]: base.scheduleTrigger,
	};
}

/** A Header Auth credential carrying the API key as `Authorization: Bearer …`. */
export function headerAuthCredentials(base: N8nBase, apiKey: string): RunnerCredentials {
	return {
		httpHeaderAuth: {
			type: base.httpHeaderAuth,
			data: { name: 'Authorization', value: `Bearer ${apiKey}` },
		},
	};
}

/**
 * HTTP Request (v4.5, the version the editor adds in n8n 2.41): GET …/responses?limit=1000,
 * pagination "Update a Parameter in Each Request" with `offset = {{ $pageCount * 1000 }}`,
 * complete when `{{ $response.body.hasMore === false }}`, generic Header Auth.
 */
export function httpRequestNode(
	baseUrl: string,
	formId: string,
	options: HttpPagingOptions = {},
): INode {
	return {
		id: 'http-request',
		name: HTTP_NODE,
		type: HTTP_REQUEST_TYPE,
		typeVersion: 4.5,
		position: [200, 0],
		parameters: {
			method: 'GET',
			url: `${baseUrl}/forms/${encodeURIComponent(formId)}/responses`,
			authentication: 'genericCredentialType',
			genericAuthType: 'httpHeaderAuth',
			sendQuery: true,
			queryParameters: { parameters: [{ name: 'limit', value: '1000' }] },
			options: {
				pagination: {
					pagination: {
						paginationMode: 'updateAParameterInEachRequest',
						parameters: {
							parameters: [{ type: 'qs', name: 'offset', value: '={{ $pageCount * 1000 }}' }],
						},
						paginationCompleteWhen: 'other',
						completeExpression: '={{ $response.body.hasMore === false }}',
						requestInterval: options.requestIntervalMs ?? 0,
					},
				},
			},
		},
		credentials: { httpHeaderAuth: { id: '2', name: 'Forms.wtf header auth' } },
		...(options.retryOnFail && {
			retryOnFail: true,
			maxTries: options.retryOnFail.maxTries,
			waitBetweenTries: options.retryOnFail.waitBetweenTriesMs,
		}),
	};
}

function splitOutNode(): INode {
	return {
		id: 'split-out',
		name: SPLIT_NODE,
		type: SPLIT_OUT_TYPE,
		typeVersion: 1,
		position: [400, 0],
		parameters: { fieldToSplitOut: 'responses', include: 'noOtherFields', options: {} },
	};
}

function link(from: string, to: string): IConnections {
	return { [from]: { main: [[{ node: to, type: 'main', index: 0 }]] } };
}

/** Start → HTTP Request (all pages) → Split Out: one item per response, as Return All gives. */
export function httpReturnAllWorkflow(
	baseUrl: string,
	formId: string,
	options: HttpPagingOptions = {},
) {
	const start = runnerStartNode();
	return {
		nodes: [start, httpRequestNode(baseUrl, formId, options), splitOutNode()],
		connections: { ...link(start.name, HTTP_NODE), ...link(HTTP_NODE, SPLIT_NODE) },
	};
}

/**
 * Schedule Trigger → HTTP Request (all pages) → Split Out → Remove Duplicates ("Remove Items
 * Processed in Previous Executions", value `{{ $json.id }}`): what users build to get "new
 * responses" without a trigger node. `historySize` must be at least twice the form's size, or
 * the node refuses to run (it checks stored + incoming ≤ history size; the default is 10,000).
 */
export function schedulePatternWorkflow(baseUrl: string, formId: string, historySize: number) {
	const schedule: INode = {
		id: 'schedule-trigger',
		name: SCHEDULE_NODE,
		type: SCHEDULE_TRIGGER_TYPE,
		typeVersion: 1.2,
		position: [0, 0],
		parameters: { rule: { interval: [{ field: 'minutes', minutesInterval: 5 }] } },
	};
	const dedupe: INode = {
		id: 'remove-duplicates',
		name: DEDUPE_NODE,
		type: REMOVE_DUPLICATES_TYPE,
		typeVersion: 2,
		position: [600, 0],
		parameters: {
			operation: 'removeItemsSeenInPreviousExecutions',
			logic: 'removeItemsWithAlreadySeenKeyValues',
			dedupeValue: '={{ $json.id }}',
			options: { scope: 'node', historySize },
		},
	};
	return {
		id: 'benchSchedulePattern',
		nodes: [schedule, httpRequestNode(baseUrl, formId), splitOutNode(), dedupe],
		connections: {
			...link(SCHEDULE_NODE, HTTP_NODE),
			...link(HTTP_NODE, SPLIT_NODE),
			...link(SPLIT_NODE, DEDUPE_NODE),
		},
	};
}
