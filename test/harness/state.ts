/* eslint-disable
	@n8n/community-nodes/require-node-api-error
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Everything a running harness knows: the dataset, run-time settings, rate-limit windows,
 * pending faults and the request log. The API and control routes share one instance.
 */
import { buildDataset, type Dataset } from './data';
import { HarnessInputError } from './errors';
import { FaultQueue } from './faults';
import { RequestHooks } from './hooks';
import { MerkleBuilder } from './merkle';
import { normaliseSeed } from './prng';
import { FixedWindowRateLimiter, validateRateLimit } from './rateLimit';
import { RequestLog } from './requestLog';
import type { HarnessOptions, HarnessSettings } from './types';
import { WebhookSender } from './webhooks';

export const DEFAULT_SETTINGS: HarnessSettings = {
	responseOrder: 'newestFirst',
	sinceInclusive: false,
	rateLimit: { requests: 60, windowMs: 60_000 },
	retryAfterHeader: false,
	clockOffsetMs: 0,
	pageSizeCap: false,
	answerShape: 'envelope',
	webhookUrls: 'any',
};

/** Validates a (partial) settings object from options, CLI or the control API. */
export function parseSettingsPatch(input: unknown): Partial<HarnessSettings> {
	if (typeof input !== 'object' || input === null || Array.isArray(input))
		throw new HarnessInputError('settings must be a JSON object');
	const o = input as Record<string, unknown>;
	const patch: Partial<HarnessSettings> = {};
	for (const name of Object.keys(o)) {
		if (!(name in DEFAULT_SETTINGS)) throw new HarnessInputError(`unknown setting ${name}`);
	}
	if (o.responseOrder !== undefined) {
		if (o.responseOrder !== 'newestFirst' && o.responseOrder !== 'oldestFirst') {
			throw new HarnessInputError('responseOrder must be "newestFirst" or "oldestFirst"');
		}
		patch.responseOrder = o.responseOrder;
	}
	if (o.sinceInclusive !== undefined) {
		if (typeof o.sinceInclusive !== 'boolean')
			throw new HarnessInputError('sinceInclusive must be a boolean');
		patch.sinceInclusive = o.sinceInclusive;
	}
	if (o.retryAfterHeader !== undefined) {
		if (typeof o.retryAfterHeader !== 'boolean')
			throw new HarnessInputError('retryAfterHeader must be a boolean');
		patch.retryAfterHeader = o.retryAfterHeader;
	}
	if (o.clockOffsetMs !== undefined) {
		if (typeof o.clockOffsetMs !== 'number' || !Number.isFinite(o.clockOffsetMs))
			throw new HarnessInputError('clockOffsetMs must be a number');
		patch.clockOffsetMs = o.clockOffsetMs;
	}
	if (o.pageSizeCap !== undefined) {
		if (
			o.pageSizeCap !== false &&
			(typeof o.pageSizeCap !== 'number' || !Number.isInteger(o.pageSizeCap) || o.pageSizeCap < 1)
		) {
			throw new HarnessInputError('pageSizeCap must be false or an integer >= 1');
		}
		patch.pageSizeCap = o.pageSizeCap;
	}
	if (o.answerShape !== undefined) {
		if (o.answerShape !== 'envelope' && o.answerShape !== 'bare')
			throw new HarnessInputError('answerShape must be "envelope" or "bare"');
		patch.answerShape = o.answerShape;
	}
	if (o.webhookUrls !== undefined) {
		if (o.webhookUrls !== 'any' && o.webhookUrls !== 'https')
			throw new HarnessInputError('webhookUrls must be "any" or "https"');
		patch.webhookUrls = o.webhookUrls;
	}
	if (o.rateLimit !== undefined) {
		try {
			patch.rateLimit = validateRateLimit(o.rateLimit);
		} catch (error) {
			throw new HarnessInputError((error as Error).message);
		}
	}
	return patch;
}

function integerAtLeast(name: string, value: number, min: number): number {
	if (!Number.isInteger(value) || value < min)
		throw new RangeError(`${name} must be an integer >= ${min}`);
	return value;
}

export class HarnessState {
	readonly seed: number;
	readonly largeFormResponses: number;
	private readonly initialSettings: HarnessSettings;
	settings: HarnessSettings;
	dataset: Dataset;
	readonly limiter: FixedWindowRateLimiter;
	readonly faults = new FaultQueue();
	readonly hooks = new RequestHooks();
	readonly webhooks = new WebhookSender();
	readonly log: RequestLog;
	merkle: MerkleBuilder;
	private readonly merkleMaxLeaves: number;

	constructor(options: HarnessOptions) {
		this.seed = normaliseSeed(options.seed);
		this.largeFormResponses = options.largeFormResponses ?? 0;
		const {
			// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
			port: _port,
			// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
			seed: _seed,
			// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
			largeFormResponses: _large,
			requestLogLimit,
			merkleMaxLeaves,
			...settings
		} = options;
		// Options may carry undefined for settings left at their default.
		const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
		this.initialSettings = { ...DEFAULT_SETTINGS, ...parseSettingsPatch(given) };
		this.settings = { ...this.initialSettings };
		this.dataset = buildDataset(this.seed, this.largeFormResponses);
		this.limiter = new FixedWindowRateLimiter(this.settings.rateLimit);
		this.log = new RequestLog(integerAtLeast('requestLogLimit', requestLogLimit ?? 10_000, 0));
		this.merkleMaxLeaves = integerAtLeast('merkleMaxLeaves', merkleMaxLeaves ?? 20_000, 1);
		this.merkle = new MerkleBuilder(this.merkleMaxLeaves);
	}

	/** The service clock: host clock plus the configured offset. */
	nowMs(): number {
		return Date.now() + this.settings.clockOffsetMs;
	}

	updateSettings(patch: Partial<HarnessSettings>): HarnessSettings {
		this.settings = { ...this.settings, ...patch };
		if (patch.rateLimit !== undefined) this.limiter.configure(this.settings.rateLimit);
		return { ...this.settings };
	}

	/** Back to the seeded data and the start settings; faults, log and rate windows cleared. */
	async reset(): Promise<void> {
		await this.merkle.close();
		this.merkle = new MerkleBuilder(this.merkleMaxLeaves);
		this.dataset = buildDataset(this.seed, this.largeFormResponses);
		this.settings = { ...this.initialSettings };
		this.limiter.configure(this.settings.rateLimit);
		this.faults.clear();
		this.hooks.clear();
		this.webhooks.clear();
		this.log.clear();
	}
}
