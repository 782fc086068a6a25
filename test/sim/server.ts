/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * An in-memory Forms.wtf API (no sockets) on a virtual clock, for the trigger's model-based
 * fuzzer. It does everything the contract (forms-api.md) and the live service's known
 * behaviour (service-notes.md) allow, each behaviour switchable by the schedule:
 * - `since` exclusive or inclusive; responses oldest-first or newest-first (stable: ties in
 *   the order of creation), or shuffled anew for each request (beyond the contract); pages
 *   smaller than asked (a server cap); `total` absent;
 * - responses submitted one per millisecond or in a same-millisecond burst, updated (same id,
 *   a later `submittedAt` = now, new answers: it moves in the order), deleted, visible late
 *   (`submittedAt` in the past), or with a `submittedAt` that is missing / null / not a date
 *   (the server still filters and orders it by its true time);
 * - faults for the next k requests (429 with Retry-After absent / `0` / a past HTTP date / n
 *   seconds, 5xx, a dropped connection: a rejection with `code: 'ECONNRESET'`), one form
 *   answering 403 or 404 for its next k requests, forms hidden from and shown again in the
 *   listing; server events armed to happen just before the k-th next request (arrivals
 *   between the pages of one walk, during the activation poll, during a 429 wait).
 * The `Date` header is the virtual clock in whole seconds. Every request costs `requestMs`
 * of virtual time; waits of the transport advance the clock through `wait` (see
 * fuzz harness), so nothing sleeps.
 *
 * `handle` has the shape of n8n's `httpRequestWithAuthentication` with `returnFullResponse`
 * and `encoding: 'stream'`: `{ statusCode, headers, body }`, `body` a Node Readable of the JSON.
 */
import { Readable } from 'stream';

import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';

/** How `since` is compared: after it, at or after it, or after its whole second (a coarse server). */
export type SinceMode = 'exclusive' | 'inclusive' | 'wholeSeconds';
/**
 * Oldest or newest first (ties in creation order), or shuffled: a pseudo-random order of its
 * own for each request (the same for the same request of a replay), which no contract allows.
 */
export type ResponseOrder = 'oldestFirst' | 'newestFirst' | 'shuffled';
export type GarbleKind = 'missing' | 'null' | 'notADate';
/** What a 429 says in Retry-After: nothing, `0`, an HTTP date in the past, or whole seconds. */
export type RetryAfter =
	| { kind: 'absent' }
	| { kind: 'zero' }
	| { kind: 'pastDate' }
	| { kind: 'seconds'; seconds: number };

export type FaultKind =
	| { kind: 'rateLimit'; retryAfter: RetryAfter }
	| { kind: 'serverError'; status: 500 | 502 | 503 }
	| { kind: 'drop' }
	/** A 200 that is not what the endpoint promises (a proxy's page, an error object, a response without id). */
	| { kind: 'wrongShape'; body: WrongShape }
	/**
	 * A page of responses holding fewer than asked while more follow, which the contract allows
	 * (`limit` is a most): the next request for a form's responses gets at most `size`.
	 */
	| { kind: 'shortPage'; size: number };

export type WrongShape = 'errorObject' | 'null' | 'html' | 'responseWithoutId';

export interface Fault {
	fault: FaultKind;
	/** Requests it still answers. */
	remaining: number;
	/** Only requests for this form's responses; undefined: any request. */
	formId?: string;
	/** Only pages of responses past the first (an offset above 0), as a backend that times out on deep scans. */
	deeperPages?: true;
}

export interface SimSettings {
	since: SinceMode;
	order: ResponseOrder;
	/** The most responses one page holds, whatever `limit` asks (the contract's 1000 when no cap). */
	pageCap: number;
	/** `total` left out of pages of responses. */
	totalAbsent: boolean;
	/** `total` counts every response of the form, whatever `since` asks (the contract does not say). */
	totalOfForm?: boolean;
	/** Virtual time one request takes. */
	requestMs: number;
	/** No Date header on any answer (the contract does not promise one). */
	dateAbsent?: boolean;
}

export interface ResponseVersion {
	/** 1, 2, … : the answers say which version this is. */
	n: number;
	/** Its true submission time, by which the server filters and orders. */
	atMs: number;
	/** How `submittedAt` is garbled when served; undefined: an ISO string of `atMs`. */
	garble?: GarbleKind;
}

export interface SimResponse {
	id: string;
	formId: string;
	/** Creation order, for ties in one millisecond. */
	seq: number;
	versions: ResponseVersion[];
	/** From when the API shows it (late-visible responses: later than their `submittedAt`). */
	visibleAtMs: number;
	deletedAtMs?: number;
}

export interface SimForm {
	id: string;
	title: string;
	createdAtMs: number;
	hidden: boolean;
	/** Answers its next `remaining` requests with this status. */
	denial?: { status: 403 | 404; remaining: number };
}

/** A server event, applied now or armed to happen just before a later request. */
export type ServerEvent =
	/** `count` responses, `gapMs` apart (the clock moves on between them); the last one now. */
	| { kind: 'submit'; form: number; count: number; gapMs?: number }
	| { kind: 'burst'; form: number; count: number }
	| { kind: 'late'; form: number; count: number; lateByMs: number }
	| { kind: 'update'; form: number; pick: number }
	/**
	 * The respondents of the last `count` responses of this form the service served update them,
	 * in the order served: between two polls, the responses a cut read ended on and before.
	 */
	| { kind: 'updateServed'; form: number; count: number }
	| { kind: 'delete'; form: number; pick: number }
	| { kind: 'garble'; form: number; pick: number; garble: GarbleKind }
	| { kind: 'submitGarbled'; form: number; garble: GarbleKind }
	| { kind: 'advance'; ms: number };

/** One request as the server saw it, for the oracle. */
export interface RequestRecord {
	atMs: number;
	path: string;
	formId?: string;
	status: number | 'ECONNRESET';
	/** Retry-After of a 429, in ms (a past date: 0); undefined when absent. */
	retryAfterMs?: number;
	/** Answered with an injected fault (not a form's denial). */
	faulted: boolean;
	denied: boolean;
	/** The ids of a page of responses served. */
	ids?: string[];
	/** A page of responses: the `since` and `offset` it was asked with, and whether it said more follow. */
	since?: string;
	offset?: number;
	hasMore?: boolean;
}

export const SIM_BASE_URL = 'https://sim.forms.wtf/api/v1';

export class SimServer {
	now: number;
	readonly forms: SimForm[] = [];
	readonly responses: SimResponse[] = [];
	readonly faults: Fault[] = [];
	readonly log: RequestRecord[] = [];
	private readonly armed: Array<{
		afterRequests: number;
		event: ServerEvent | ((server: SimServer) => void);
	}> = [];
	private seq = 0;

	constructor(
		readonly settings: SimSettings,
		startMs: number,
		formCount: number,
	) {
		this.now = startMs;
		for (let i = 0; i < formCount; i++) {
			this.forms.push({
				id: `form${i}`,
				title: `Form ${i}`,
				createdAtMs: startMs - 86_400_000,
				hidden: false,
			});
		}
	}

	/**
	 * A copy of the service as it is now (forms, responses, pending faults and denials; not
	 * what is armed, not the log), to ask what a poll would have done had things been otherwise.
	 */
	clone(): SimServer {
		const copy = new SimServer({ ...this.settings }, this.now, 0);
		copy.forms.push(
			...this.forms.map((form) => ({ ...form, denial: form.denial && { ...form.denial } })),
		);
		copy.responses.push(
			...this.responses.map((r) => ({ ...r, versions: r.versions.map((v) => ({ ...v })) })),
		);
		copy.faults.push(...this.faults.map((f) => ({ ...f })));
		copy.seq = this.seq;
		return copy;
	}

	/** Events armed and not yet happened. */
	get armedCount(): number {
		return this.armed.length;
	}

	/** Virtual time spent in the transport's waits, in all. */
	waitedMs = 0;

	/** The waits of the transport: the clock moves on at once. */
	readonly wait = async (ms: number): Promise<void> => {
		const waited = Math.max(0, Math.ceil(ms));
		this.waitedMs += waited;
		this.now += waited;
	};

	/** Responses created before the schedule starts: `count` of them, `spacingMs` apart, the last `agoMs` before now. */
	seed(form: number, count: number, agoMs: number, spacingMs: number): void {
		for (let i = count - 1; i >= 0; i--)
			this.create(form, this.now - agoMs - i * spacingMs, this.now - agoMs - i * spacingMs);
	}

	/** `event` (or any change to the server) happens just before the `afterRequests`-th request from now. */
	arm(afterRequests: number, event: ServerEvent | ((server: SimServer) => void)): void {
		this.armed.push({ afterRequests, event });
	}

	private fire(event: ServerEvent | ((server: SimServer) => void)): void {
		if (typeof event === 'function') event(this);
		else this.apply(event);
	}

	/** Applies what is still armed, clears faults, denials and hidden forms. */
	heal(): void {
		for (const { event } of this.armed.splice(0)) this.fire(event);
		this.faults.length = 0;
		for (const form of this.forms) {
			delete form.denial;
			form.hidden = false;
		}
	}

	/** Something pending that makes the next request fail (a fault, a denied form). */
	unhealthy(): boolean {
		return this.faults.length > 0 || this.forms.some((form) => form.denial !== undefined);
	}

	inject(fault: FaultKind, times: number, form?: number, deeperPages = false): void {
		this.faults.push({
			fault,
			remaining: times,
			formId: form === undefined ? undefined : this.formAt(form).id,
			...(deeperPages && { deeperPages }),
		});
	}

	deny(form: number, status: 403 | 404, times: number): void {
		this.formAt(form).denial = { status, remaining: times };
	}

	setHidden(form: number, hidden: boolean): void {
		this.formAt(form).hidden = hidden;
	}

	formAt(form: number): SimForm {
		return this.forms[form % this.forms.length];
	}

	apply(event: ServerEvent): void {
		switch (event.kind) {
			case 'submit':
				for (let i = 0; i < event.count; i++) {
					if (i > 0) this.now += event.gapMs ?? 1;
					this.create(event.form, this.now, this.now);
				}
				return;
			case 'burst':
				for (let i = 0; i < event.count; i++) this.create(event.form, this.now, this.now);
				return;
			case 'late':
				for (let i = 0; i < event.count; i++)
					this.create(event.form, this.now - event.lateByMs, this.now);
				return;
			case 'submitGarbled': {
				const response = this.create(event.form, this.now, this.now);
				response.versions[0].garble = event.garble;
				return;
			}
			case 'update': {
				const response = this.pick(event.form, event.pick);
				if (!response) return;
				const latest = current(response);
				if (this.now <= latest.atMs) this.now = latest.atMs + 1;
				response.versions.push({ n: latest.n + 1, atMs: this.now });
				return;
			}
			case 'updateServed':
				for (const response of this.lastServed(event.form, event.count)) {
					const latest = current(response);
					this.now = Math.max(this.now, latest.atMs) + 1;
					response.versions.push({ n: latest.n + 1, atMs: this.now });
				}
				return;
			case 'delete': {
				const response = this.pick(event.form, event.pick);
				if (response) response.deletedAtMs = this.now;
				return;
			}
			case 'garble': {
				const response = this.pick(event.form, event.pick);
				if (response) current(response).garble = event.garble;
				return;
			}
			case 'advance':
				this.now += event.ms;
				return;
		}
	}

	/** The last `count` alive responses of a form the service served, in the order served. */
	private lastServed(form: number, count: number): SimResponse[] {
		const formId = this.formAt(form).id;
		const ids: string[] = [];
		for (const record of [...this.log].reverse()) {
			if (ids.length >= count) break;
			if (record.formId !== formId || !record.ids) continue;
			ids.unshift(...record.ids.filter((id) => !ids.includes(id)));
		}
		return ids
			.slice(-count)
			.map((id) => this.responses.find((r) => r.id === id))
			.filter((r): r is SimResponse => r !== undefined && r.deletedAtMs === undefined);
	}

	/** The alive, visible responses of a form, in creation order; `pick` chooses one of them. */
	private pick(form: number, pick: number): SimResponse | undefined {
		const formId = this.formAt(form).id;
		const alive = this.responses.filter((r) => r.formId === formId && this.isVisible(r));
		return alive.length ? alive[pick % alive.length] : undefined;
	}

	private create(form: number, atMs: number, visibleAtMs: number): SimResponse {
		const seq = ++this.seq;
		const response: SimResponse = {
			id: `r${String(seq).padStart(4, '0')}`,
			formId: this.formAt(form).id,
			seq,
			versions: [{ n: 1, atMs }],
			visibleAtMs,
		};
		this.responses.push(response);
		return response;
	}

	isVisible(response: SimResponse): boolean {
		return response.deletedAtMs === undefined && response.visibleAtMs <= this.now;
	}

	/** n8n's httpRequestWithAuthentication, answered from memory. */
	readonly handle = async (
		_credentialsType: string,
		options: IHttpRequestOptions,
	): Promise<unknown> => {
		// A macrotask-free yield, so that two polls started together interleave as they would.
		await Promise.resolve();
		for (const hook of this.armed) hook.afterRequests--;
		for (let i = 0; i < this.armed.length;) {
			if (this.armed[i].afterRequests <= 0) this.fire(this.armed.splice(i, 1)[0].event);
			else i++;
		}
		const atMs = this.now;
		this.now += this.settings.requestMs;
		const url = new URL(options.url);
		const path = url.pathname.startsWith('/api/v1/')
			? url.pathname.slice('/api/v1'.length)
			: url.pathname;
		const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
		const formId = segments[0] === 'forms' && segments.length >= 2 ? segments[1] : undefined;
		const record: RequestRecord = {
			atMs,
			path,
			formId,
			status: 200,
			faulted: false,
			denied: false,
		};
		this.log.push(record);

		const isResponses = segments.length === 3 && segments[2] === 'responses';
		const deeperPage = isResponses && Number((options.qs as IDataObject | undefined)?.offset) > 0;
		const fault = this.faults.find(
			(f) =>
				(f.formId === undefined || f.formId === formId) &&
				(f.fault.kind !== 'shortPage' || isResponses) &&
				(!f.deeperPages || deeperPage),
		);
		let pageLimit = this.settings.pageCap;
		if (fault?.fault.kind === 'shortPage') {
			if (--fault.remaining <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
			pageLimit = Math.min(pageLimit, fault.fault.size);
		} else if (fault) {
			record.faulted = true;
			if (--fault.remaining <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
			if (fault.fault.kind === 'drop') {
				record.status = 'ECONNRESET';
				throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
			}
			if (fault.fault.kind === 'wrongShape') {
				const shape = fault.fault.body;
				if (shape === 'html')
					return this.reply(atMs, 200, '<html><body>Service Unavailable</body></html>', {}, true);
				if (shape === 'null') return this.reply(atMs, 200, null);
				if (shape === 'errorObject') return this.reply(atMs, 200, { error: 'maintenance' });
				return this.reply(atMs, 200, {
					responses: [{ walletAddress: '0xab', submittedAt: new Date(atMs).toISOString() }],
					hasMore: false,
					total: 1,
				});
			}
			if (fault.fault.kind === 'serverError') {
				record.status = fault.fault.status;
				return this.reply(atMs, fault.fault.status, { error: 'Internal server error' });
			}
			record.status = 429;
			const headers: IDataObject = {};
			const retryAfter = fault.fault.retryAfter;
			if (retryAfter.kind === 'zero') {
				headers['retry-after'] = '0';
				record.retryAfterMs = 0;
			} else if (retryAfter.kind === 'pastDate') {
				headers['retry-after'] = new Date(atMs - 30_000).toUTCString();
				record.retryAfterMs = 0;
			} else if (retryAfter.kind === 'seconds') {
				headers['retry-after'] = String(retryAfter.seconds);
				record.retryAfterMs = retryAfter.seconds * 1000;
			}
			return this.reply(atMs, 429, { error: 'Too many requests' }, headers);
		}

		if (segments.length === 1 && segments[0] === 'forms')
			return this.reply(atMs, 200, { forms: this.listing() });
		const form = this.forms.find((f) => f.id === formId);
		if (!form || segments.length !== 3 || segments[2] !== 'responses') {
			record.status = 404;
			return this.reply(atMs, 404, { error: 'Not found' });
		}
		if (form.denial) {
			record.status = form.denial.status;
			record.denied = true;
			const status = form.denial.status;
			if (--form.denial.remaining <= 0) delete form.denial;
			return this.reply(atMs, status, { error: status === 403 ? 'Forbidden' : 'Form not found' });
		}
		const qs = (options.qs ?? {}) as IDataObject;
		const page = this.page(form.id, qs, pageLimit);
		if (typeof page === 'string') {
			record.status = 400;
			return this.reply(atMs, 400, { error: page });
		}
		record.ids = (page.responses as IDataObject[]).map((r) => r.id as string);
		if (qs.since !== undefined) record.since = String(qs.since);
		if (qs.offset !== undefined) record.offset = Number(qs.offset);
		record.hasMore = page.hasMore === true;
		return this.reply(atMs, 200, page);
	};

	private listing(): IDataObject[] {
		return this.forms
			.filter((form) => !form.hidden)
			.map((form) => ({
				id: form.id,
				title: form.title,
				slug: form.id,
				published: true,
				responseCount: this.responses.filter((r) => r.formId === form.id && this.isVisible(r))
					.length,
				createdAt: new Date(form.createdAtMs).toISOString(),
				updatedAt: new Date(form.createdAtMs).toISOString(),
			}));
	}

	private page(formId: string, qs: IDataObject, pageLimit: number): IDataObject | string {
		const limit = qs.limit === undefined ? 100 : Number(qs.limit);
		const offset = qs.offset === undefined ? 0 : Number(qs.offset);
		if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return 'limit must be 1..1000';
		if (!Number.isInteger(offset) || offset < 0) return 'offset must be 0 or more';
		let sinceMs: number | undefined;
		if (qs.since !== undefined) {
			sinceMs = Date.parse(String(qs.since));
			if (Number.isNaN(sinceMs)) return 'since must be an ISO date';
			if (this.settings.since === 'wholeSeconds') sinceMs = Math.floor(sinceMs / 1000) * 1000;
		}
		const ofForm = this.responses.filter((r) => r.formId === formId && this.isVisible(r));
		const matched = ofForm
			.filter((r) => {
				if (sinceMs === undefined) return true;
				const atMs = current(r).atMs;
				return this.settings.since === 'inclusive' ? atMs >= sinceMs : atMs > sinceMs;
			})
			.sort((a, b) => {
				if (this.settings.order === 'shuffled')
					return shuffleKey(a.seq, this.log.length) - shuffleKey(b.seq, this.log.length);
				const byTime = current(a).atMs - current(b).atMs;
				return (this.settings.order === 'oldestFirst' ? byTime : -byTime) || a.seq - b.seq;
			});
		const size = Math.min(limit, pageLimit);
		const slice = matched.slice(offset, offset + size);
		const body: IDataObject = {
			responses: slice.map(serialize),
			hasMore: offset + slice.length < matched.length,
		};
		if (!this.settings.totalAbsent)
			body.total = (this.settings.totalOfForm ? ofForm : matched).length;
		return body;
	}

	private reply(
		atMs: number,
		statusCode: number,
		json: unknown,
		headers: IDataObject = {},
		asText = false,
	): unknown {
		return {
			statusCode,
			headers: {
				'content-type': 'application/json; charset=utf-8',
				// The service's clock has whole seconds.
				...(!this.settings.dateAbsent && {
					date: new Date(Math.floor(atMs / 1000) * 1000).toUTCString(),
				}),
				...headers,
			},
			body: Readable.from([Buffer.from(asText ? String(json) : JSON.stringify(json))]),
		};
	}
}

/** A response's place in a shuffled listing for one request: a hash of both (an integer mix). */
function shuffleKey(seq: number, request: number): number {
	let h = Math.imul(seq ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(request + 1, 0xc2b2ae35);
	h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
	return ((h ^ (h >>> 15)) >>> 0) + seq / 1e9;
}

export function current(response: SimResponse): ResponseVersion {
	return response.versions[response.versions.length - 1];
}

/** The `answers` value that names a version: `<id>#<n>`. */
export function versionTag(id: string, n: number): string {
	return `${id}#${n}`;
}

function serialize(response: SimResponse): IDataObject {
	const version = current(response);
	const out: IDataObject = {
		id: response.id,
		walletAddress: `anon_${response.id}`,
		ensName: null,
	};
	if (version.garble === undefined) out.submittedAt = new Date(version.atMs).toISOString();
	else if (version.garble === 'null') out.submittedAt = null;
	else if (version.garble === 'notADate') out.submittedAt = 'yesterday-ish';
	out.durationSeconds = 30;
	out.answers = [
		{ questionId: 'q1', questionLabel: 'Version', value: versionTag(response.id, version.n) },
	];
	return out;
}
