/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The HTTP server: stamps every response with the service clock's Date header, sends
 * /__harness to the control routes, and everything else through faults, the request log and
 * the API routes (paths outside /api/v1 get a JSON 404 like any unknown API path).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'http';
import { setTimeout as sleep } from 'timers/promises';
import { handleApi, type ApiOutcome } from './api';
import { CONTROL_PREFIX, handleControl, type ControlContext } from './control';
import { parseTarget, queryObject, sendBody, sendError, type RequestTarget } from './http';
import type { HarnessForm } from './data';
import type { HarnessState } from './state';
import { applyListingFault } from './listingFaults';
import type { FaultKind, RequestLogEntry } from './types';

/** Valid JSON up to the cut, then nothing: what a proxy truncating a body produces. */
const MALFORMED_BODY = '{"responses":[{"id":"c0000000broken","walletAddress":"0x';

const FAULT_MESSAGES: Record<number, string> = {
	400: 'Bad request',
	403: "Your plan doesn't include this feature",
	404: 'Not found',
	405: 'Method not allowed',
	429: 'Rate limit exceeded',
	500: 'Internal server error',
	502: 'Bad gateway',
	503: 'Service unavailable',
};

export function createHarnessServer(state: HarnessState, context: () => ControlContext): Server {
	const server = createServer((req, res) => {
		// The service clock, so tests can simulate a service whose clock is off from ours.
		res.setHeader('Date', new Date(state.nowMs()).toUTCString());
		const target = parseTarget(req.url ?? '/');
		const done = (error: unknown): void => fail(res, error);
		if (target.path === CONTROL_PREFIX || target.path.startsWith(`${CONTROL_PREFIX}/`)) {
			handleControl(state, context(), req, target, res).catch(done);
		} else {
			serveApi(state, req, res, target).catch(done);
		}
	});
	// Never close an idle keep-alive connection from this side: a client that reuses a pooled
	// socket just as the server times it out gets ECONNRESET, and under load (a busy event
	// loop fires both timers late) that race shows up in tests. Clients close idle sockets
	// themselves (undici after 4 s, Node's agent after 5 s); close() ends the rest.
	server.keepAliveTimeout = 0;
	return server;
}

function fail(res: ServerResponse, error: unknown): void {
	if (res.headersSent) {
		res.destroy(error instanceof Error ? error : undefined);
		return;
	}
	sendError(res, 500, `Harness error: ${error instanceof Error ? error.message : String(error)}`);
}

async function serveApi(
	state: HarnessState,
	req: IncomingMessage,
	res: ServerResponse,
	target: RequestTarget,
): Promise<void> {
	const method = req.method ?? 'GET';
	const entry: RequestLogEntry = {
		method,
		path: target.path,
		query: queryObject(target.query),
		plan: null,
		status: null,
		timestamp: new Date(state.nowMs()).toISOString(),
	};
	// Logged on arrival so the log keeps arrival order; status is filled in once it is sent.
	state.log.add(entry);
	const outcome: ApiOutcome = { plan: null };
	const settle = (): void => {
		entry.plan = outcome.plan;
		if (res.headersSent) entry.status = res.statusCode;
	};
	res.once('finish', settle);
	res.once('close', settle);

	const fault = state.faults.take(req.url ?? '/');
	if (fault !== null) {
		entry.fault = fault.kind;
		if (applyListingFault(state, fault, target, res)) return;
		if (applyFault(fault, req, res, state.nowMs())) return;
		if (fault.kind === 'delay') {
			await sleep(fault.ms);
			if (res.destroyed) return;
		}
	}

	const segments = target.segments;
	const answer = (): void => {
		if (segments !== null && segments[0] === 'api' && segments[1] === 'v1') {
			handleApi(state, req, target, res, outcome);
		} else {
			sendError(res, 404, 'Not found');
		}
		// Synchronous answers are complete here; record them before any later log read can race 'finish'.
		settle();
	};
	await state.hooks.around(
		req,
		res,
		() => formOfTarget(state, target),
		insertResponses(state),
		answer,
	);
}

/* Helpers of the ordering and stream hooks (hooks.ts). */

/** The form a request to /api/v1/forms/:id/… is about, if it exists. */
function formOfTarget(state: HarnessState, target: RequestTarget): HarnessForm | undefined {
	const segments = target.segments;
	if (segments === null || segments[2] !== 'forms' || segments[3] === undefined) return undefined;
	return state.dataset.byId.get(segments[3]);
}

/** Inserts generated responses submitted at the service clock's now, as the control API does. */
function insertResponses(state: HarnessState): (form: HarnessForm, count: number) => void {
	return (form, count) => {
		if (count > 0)
			form.store.insert(
				Array.from({ length: count }, () => ({})),
				state.nowMs(),
			);
	};
}

/** Sends the fault's answer; returns false if the request should still be handled (delay). */
function applyFault(
	fault: FaultKind,
	req: IncomingMessage,
	res: ServerResponse,
	nowMs: number,
): boolean {
	switch (fault.kind) {
		case 'status': {
			const headers: Record<string, string> = {};
			if (fault.retryAfterSeconds !== undefined)
				headers['Retry-After'] = String(fault.retryAfterSeconds);
			if (fault.retryAfterDateOffsetMs !== undefined) {
				headers['Retry-After'] = new Date(nowMs + fault.retryAfterDateOffsetMs).toUTCString();
			}
			sendError(res, fault.status, fault.message ?? FAULT_MESSAGES[fault.status], headers);
			return true;
		}
		case 'malformedJson':
			sendBody(res, 200, MALFORMED_BODY);
			return true;
		case 'drop':
			req.socket.destroy();
			return true;
		case 'delay':
		case 'listingWithout':
		case 'jsonBody':
			return false;
	}
}
