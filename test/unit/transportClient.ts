/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The transport (nodes/FormsWtf/shared/transport) called directly, with a scripted HTTP client in
 * place of n8n's and a clock of the test's own: each request takes the next scripted answer,
 * `Date.now()` moves only when a retry wait or a scripted answer moves it. For what the node's
 * operations cannot pass (a deadline) and for counting requests and waits exactly.
 */
import { Readable } from 'stream';
import type { IExecuteFunctions, IHttpRequestOptions, INode } from 'n8n-workflow';

import type { FormsWtfContext } from '../../nodes/FormsWtf/shared/transport';
import { FormsWtfClient } from '../../nodes/FormsWtf/shared/transport';
import { testRetryPolicy } from '../support/retryPolicy';

export type ScriptedAnswer =
	| { status: number; headers?: Record<string, string>; body?: string }
	/** The client fails with this system error code, after `takesMs` of the clock. */
	| { code: string; takesMs?: number };

export interface ScriptedClient {
	context: FormsWtfContext;
	/** The transport's client on that context, with the tests' retry policy. */
	transport: FormsWtfClient;
	/** The options of every request sent, in order. */
	sent: IHttpRequestOptions[];
	/** Every retry wait asked for, in ms. */
	waits: number[];
	/** The test's clock (what `Date.now()` returns). */
	now: () => number;
	/** The answers not used yet. */
	left: () => number;
}

export const START = Date.parse('2026-11-23T12:00:00Z');

export const TRANSPORT_TEST_NODE: INode = {
	id: 'forms-wtf',
	name: 'Forms.wtf',
	type: 'n8n-nodes-formswtf.formsWtf',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/**
 * A context whose requests take `answers` in turn (the last one again when they run out, so a
 * runaway loop is counted, not hung) and whose waits advance the clock. Call in a test; the
 * clock and testRetryPolicy.wait are put back by `restoreClock` (use `useScriptedClock`).
 */
export function scriptedClient(
	answers: ScriptedAnswer[],
	credential: { apiKey: string; baseUrl?: string },
	maxRequests = 10_000,
): ScriptedClient {
	let clock = START;
	jest.spyOn(Date, 'now').mockImplementation(() => clock);
	const sent: IHttpRequestOptions[] = [];
	const waits: number[] = [];
	testRetryPolicy.wait = async (ms) => {
		waits.push(ms);
		clock += ms;
	};
	let next = 0;
	const context = {
		getNode: () => TRANSPORT_TEST_NODE,
		getCredentials: async () => ({
			apiKey: credential.apiKey,
			baseUrl: credential.baseUrl ?? 'http://127.0.0.1:9/api/v1',
		}),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) => {
				sent.push(options);
				if (sent.length > maxRequests) throw new Error(`more than ${maxRequests} requests`);
				const answer = answers[Math.min(next++, answers.length - 1)];
				if ('code' in answer) {
					clock += answer.takesMs ?? 0;
					throw Object.assign(new Error(`failed with ${answer.code}`), { code: answer.code });
				}
				return {
					statusCode: answer.status,
					headers: Object.fromEntries(
						Object.entries(answer.headers ?? {}).map(([name, value]) => [
							name.toLowerCase(),
							value,
						]),
					),
					body: Readable.from(answer.body === undefined ? [] : [Buffer.from(answer.body)]),
				};
			},
		},
	} as unknown as IExecuteFunctions;
	return {
		context,
		transport: new FormsWtfClient(context, { retryPolicy: testRetryPolicy }),
		sent,
		waits,
		now: () => clock,
		left: () => Math.max(0, answers.length - next),
	};
}

export function useScriptedClock(): void {
	afterEach(() => jest.restoreAllMocks());
}
