/**
 * Typed client of the control API (/__harness), over HTTP with the global fetch, so a test
 * in the harness's process and a script in another process make exactly the same calls.
 */
import type {
	FaultSpec,
	FormResponse,
	HarnessFormInfo,
	HookSpec,
	PendingHook,
	HarnessInfo,
	HarnessSettings,
	PendingFault,
	RequestLogEntry,
	ResponseDraft,
	ResponseUpdate,
	SubmitRequest,
} from './types';
import type { HarnessWebhook, WebhookDelivery, WebhookSpec } from './webhooks';

export class HarnessControlError extends Error {
	override name = 'HarnessControlError';

	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

export class HarnessControl {
	/** `http://127.0.0.1:PORT` */
	readonly origin: string;

	/** Accepts the harness origin, its API base URL (`…/api/v1`) or its control URL (`…/__harness`). */
	constructor(url: string) {
		this.origin = new URL(url).origin;
	}

	private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.origin}/__harness${path}`, {
			method,
			headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		const parsed = (text === '' ? {} : JSON.parse(text)) as T & { error?: string };
		if (!response.ok)
			throw new HarnessControlError(response.status, parsed.error ?? `HTTP ${response.status}`);
		return parsed;
	}

	/** Base URL, keys, seed and current settings. */
	info(): Promise<HarnessInfo> {
		return this.call<HarnessInfo>('GET', '/info');
	}

	/** Every form of both accounts, with its owner, fixture name and question ids. */
	async listForms(): Promise<HarnessFormInfo[]> {
		return (await this.call<{ forms: HarnessFormInfo[] }>('GET', '/forms')).forms;
	}

	/** The form of a fixture (`feedback`, `allowlist`, `rsvp`, `research`, `bugs`, `waitlist`, `large`, `foreign`). */
	async form(fixture: string): Promise<HarnessFormInfo> {
		const form = (await this.listForms()).find((f) => f.fixture === fixture);
		if (form === undefined) throw new HarnessControlError(404, `no form for fixture ${fixture}`);
		return form;
	}

	/** Creates responses from drafts; anything a draft leaves out is generated, submittedAt defaults to the service clock's now. */
	async submitResponses(formId: string, drafts: ResponseDraft[]): Promise<FormResponse[]> {
		const path = `/forms/${encodeURIComponent(formId)}/responses`;
		const body: SubmitRequest = { responses: drafts };
		return (await this.call<{ responses: FormResponse[] }>('POST', path, body)).responses;
	}

	/** One response; see submitResponses. */
	async submitResponse(formId: string, draft: ResponseDraft = {}): Promise<FormResponse> {
		return (await this.submitResponses(formId, [draft]))[0];
	}

	/** `count` generated responses that all share one submittedAt (default: now) — a same-millisecond burst. */
	async submitBurst(formId: string, count: number, submittedAt?: string): Promise<FormResponse[]> {
		const path = `/forms/${encodeURIComponent(formId)}/responses`;
		const body: SubmitRequest = submittedAt === undefined ? { count } : { count, submittedAt };
		return (await this.call<{ responses: FormResponse[] }>('POST', path, body)).responses;
	}

	/** Edits a response as its wallet would: same id; by default a newer submittedAt and new answers. */
	async updateResponse(
		formId: string,
		responseId: string,
		update: ResponseUpdate = {},
	): Promise<FormResponse> {
		const path = `/forms/${encodeURIComponent(formId)}/responses/${encodeURIComponent(responseId)}`;
		return (await this.call<{ response: FormResponse }>('PATCH', path, update)).response;
	}

	/** Queues a fault for the next `times` (default 1) API requests whose target contains `pathIncludes`. */
	async injectFault(fault: FaultSpec): Promise<PendingFault> {
		return (await this.call<{ fault: PendingFault }>('POST', '/faults', fault)).fault;
	}

	async listFaults(): Promise<PendingFault[]> {
		return (await this.call<{ faults: PendingFault[] }>('GET', '/faults')).faults;
	}

	async clearFaults(): Promise<void> {
		await this.call('DELETE', '/faults');
	}

	/* Ordering and stream hooks (hooks.ts). */

	/** Queues a hook for the next `times` (default 1) API requests whose target contains `pathIncludes`. */
	async addHook(hook: HookSpec): Promise<PendingHook> {
		return (await this.call<{ hook: PendingHook }>('POST', '/hooks', hook)).hook;
	}

	/**
	 * Keeps the next matching request unanswered until the API request after it has been
	 * answered: two requests in flight are answered in the opposite order. With
	 * `insertBeforeAnswer`, that many responses arrive between the two answers.
	 */
	async holdUntilNextAnswered(
		pathIncludes: string,
		insertBeforeAnswer?: number,
	): Promise<PendingHook> {
		return await this.addHook(
			insertBeforeAnswer === undefined
				? { kind: 'hold', pathIncludes }
				: { kind: 'hold', pathIncludes, insertBeforeAnswer },
		);
	}

	/** Once the next matching request has been answered, `count` responses arrive in its form. */
	async insertAfterAnswer(
		pathIncludes: string,
		count: number,
		times?: number,
	): Promise<PendingHook> {
		return await this.addHook({ kind: 'insertAfter', pathIncludes, count, times });
	}

	/** The next matching answers send their headers and `afterBytes` bytes of body, then stall. */
	async stallBody(pathIncludes: string, afterBytes: number, times?: number): Promise<PendingHook> {
		return await this.addHook({ kind: 'stall', pathIncludes, afterBytes, times });
	}

	/** The next matching requests are accepted and never answered. */
	async neverAnswer(pathIncludes?: string, times?: number): Promise<PendingHook> {
		return await this.addHook({ kind: 'hang', pathIncludes, times });
	}

	/** Hooks not yet used up, and how many uses have acted so far. */
	async listHooks(): Promise<{ hooks: PendingHook[]; fired: number }> {
		return await this.call<{ hooks: PendingHook[]; fired: number }>('GET', '/hooks');
	}

	/** Drops pending hooks and answers every request still held. */
	async clearHooks(): Promise<void> {
		await this.call('DELETE', '/hooks');
	}

	/* Webhooks (webhooks.ts). */

	/** Adds a webhook to a form: every later submission to it is POSTed to `url`. */
	async addWebhook(spec: WebhookSpec): Promise<HarnessWebhook> {
		return (await this.call<{ webhook: HarnessWebhook }>('POST', '/webhooks', spec)).webhook;
	}

	/** The webhooks, and every delivery sent (status null while in flight or when it failed). */
	async webhooks(): Promise<{ webhooks: HarnessWebhook[]; deliveries: WebhookDelivery[] }> {
		return await this.call('GET', '/webhooks');
	}

	/** Removes every webhook and forgets the deliveries. */
	async clearWebhooks(): Promise<void> {
		await this.call('DELETE', '/webhooks');
	}

	/** Moves the rate limiter's clock forward: windows end as if `ms` had passed, without waiting. */
	async advanceRateLimitClock(ms: number): Promise<void> {
		await this.call('POST', '/rate-limit/advance', { ms });
	}

	/** API requests in arrival order (control calls are not logged). */
	async requestLog(): Promise<RequestLogEntry[]> {
		return (await this.call<{ requests: RequestLogEntry[] }>('GET', '/requests')).requests;
	}

	async clearRequestLog(): Promise<void> {
		await this.call('DELETE', '/requests');
	}

	async getSettings(): Promise<HarnessSettings> {
		return (await this.call<{ settings: HarnessSettings }>('GET', '/settings')).settings;
	}

	/** Changes settings while running; a new rateLimit starts from empty windows. Returns all settings. */
	async updateSettings(patch: Partial<HarnessSettings>): Promise<HarnessSettings> {
		return (await this.call<{ settings: HarnessSettings }>('PATCH', '/settings', patch)).settings;
	}

	/** Back to the seeded data and the start settings; clears faults, the request log and rate-limit windows. */
	async reset(): Promise<void> {
		await this.call('POST', '/reset');
	}
}
