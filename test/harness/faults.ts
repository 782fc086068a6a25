/**
 * Faults injected through the control API for the next N matching API requests. They act
 * before authentication and rate limiting, like a proxy or load balancer in front of the
 * service would, so a fault never consumes rate-limit quota.
 */
import { HarnessInputError } from './errors';
import type { FaultKind, FaultSpec, FaultStatus, PendingFault } from './types';

export class FaultQueue {
	private faults: PendingFault[] = [];
	private nextId = 1;

	add(spec: FaultSpec): PendingFault {
		const { times, pathIncludes, ...kind } = spec;
		const fault: PendingFault = {
			...(kind as FaultKind),
			id: this.nextId++,
			remaining: times ?? 1,
		};
		if (pathIncludes !== undefined) fault.pathIncludes = pathIncludes;
		this.faults.push(fault);
		return { ...fault };
	}

	/** Takes one use of the first fault (in the order added) that matches the request target. */
	take(target: string): FaultKind | null {
		const index = this.faults.findIndex(
			(f) => f.pathIncludes === undefined || target.includes(f.pathIncludes),
		);
		if (index < 0) return null;
		const fault = this.faults[index];
		fault.remaining--;
		if (fault.remaining <= 0) this.faults.splice(index, 1);
		// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
		const { id: _id, remaining: _remaining, pathIncludes: _path, ...kind } = fault;
		return kind as FaultKind;
	}

	list(): PendingFault[] {
		return this.faults.map((f) => ({ ...f }));
	}

	clear(): void {
		this.faults = [];
	}
}

const FAULT_STATUSES = new Set([400, 403, 404, 405, 429, 500, 502, 503]);

/** `times` and `pathIncludes`, which every fault and hook takes: which requests it acts on. */
export function parseMatch(o: Record<string, unknown>): { times?: number; pathIncludes?: string } {
	const common: { times?: number; pathIncludes?: string } = {};
	if (o.times !== undefined) {
		if (typeof o.times !== 'number' || !Number.isInteger(o.times) || o.times < 1)
			throw new HarnessInputError('times must be an integer >= 1');
		common.times = o.times;
	}
	if (o.pathIncludes !== undefined) {
		if (typeof o.pathIncludes !== 'string')
			throw new HarnessInputError('pathIncludes must be a string');
		common.pathIncludes = o.pathIncludes;
	}
	return common;
}

/** Checks a fault posted to the control API; throws HarnessInputError with a readable message. */
export function parseFaultSpec(input: unknown): FaultSpec {
	if (typeof input !== 'object' || input === null)
		throw new HarnessInputError('fault must be a JSON object');
	const o = input as Record<string, unknown>;
	const common = parseMatch(o);
	switch (o.kind) {
		case 'status': {
			if (typeof o.status !== 'number' || !FAULT_STATUSES.has(o.status))
				throw new HarnessInputError('status must be 400, 403, 404, 405, 429, 500, 502 or 503');
			const fault: FaultSpec = {
				kind: 'status',
				status: o.status as FaultStatus,
				...common,
			};
			if (o.retryAfterSeconds !== undefined) {
				if (
					typeof o.retryAfterSeconds !== 'number' ||
					!Number.isInteger(o.retryAfterSeconds) ||
					o.retryAfterSeconds < 0
				) {
					throw new HarnessInputError('retryAfterSeconds must be an integer >= 0');
				}
				fault.retryAfterSeconds = o.retryAfterSeconds;
			}
			if (o.retryAfterDateOffsetMs !== undefined) {
				if (
					typeof o.retryAfterDateOffsetMs !== 'number' ||
					!Number.isFinite(o.retryAfterDateOffsetMs)
				) {
					throw new HarnessInputError('retryAfterDateOffsetMs must be a number of milliseconds');
				}
				if (fault.retryAfterSeconds !== undefined)
					throw new HarnessInputError('give retryAfterSeconds or retryAfterDateOffsetMs, not both');
				fault.retryAfterDateOffsetMs = o.retryAfterDateOffsetMs;
			}
			if (o.message !== undefined) {
				if (typeof o.message !== 'string') throw new HarnessInputError('message must be a string');
				fault.message = o.message;
			}
			return fault;
		}
		case 'delay':
			if (typeof o.ms !== 'number' || !Number.isFinite(o.ms) || o.ms < 0)
				throw new HarnessInputError('ms must be a number >= 0');
			return { kind: 'delay', ms: o.ms, ...common };
		case 'malformedJson':
			return { kind: 'malformedJson', ...common };
		case 'drop':
			return { kind: 'drop', ...common };
		// --- Listing faults (see listingFaults.ts) ---
		case 'listingWithout':
			if (!Array.isArray(o.formIds) || !o.formIds.every((id) => typeof id === 'string')) {
				throw new HarnessInputError('formIds must be an array of form ids');
			}
			return { kind: 'listingWithout', formIds: o.formIds as string[], ...common };
		case 'jsonBody':
			if (!('body' in o)) throw new HarnessInputError('body is required');
			return { kind: 'jsonBody', body: o.body, ...common };
		default:
			throw new HarnessInputError(
				'kind must be one of status, delay, malformedJson, drop, listingWithout, jsonBody',
			);
	}
}
