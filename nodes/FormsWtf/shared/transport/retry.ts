import { sleep } from 'n8n-workflow';

/**
 * How long the transport waits before trying a request again. n8n builds the nodes without
 * arguments, so they use DEFAULT_RETRY_POLICY; tests and benchmarks build them with a policy of
 * their own (a clock of their own, shorter waits), passed to every client the node makes.
 */
export interface RetryPolicy {
	/** Retries after a 5xx answer or a dropped connection. */
	maxServerErrorRetries: number;
	/** Total time one request may spend waiting out 429 answers before it gives up. */
	maxRateLimitWaitMs: number;
	/**
	 * Retries after 429 answers, whatever the time budget above leaves: a server that asks for
	 * short waits again and again must not draw a request after another from one execution.
	 */
	maxRateLimitRetries: number;
	/**
	 * The shortest wait after a 429, whatever Retry-After says: `Retry-After: 0`, or an HTTP date
	 * already past (the service's clock a little behind ours), still waits this long.
	 */
	minDelayMs: number;
	/** First backoff step; doubles on each retry, with full jitter. */
	baseDelayMs: number;
	/** Ceiling of one backoff step when the server sends no Retry-After. */
	maxDelayMs: number;
	/**
	 * Every wait above, and what Retry-After asks for, times this. 1 in n8n; a benchmark that
	 * runs the service's one-minute window faster scales the waits by the same factor.
	 */
	timeScale: number;
	/**
	 * How a wait is spent: n8n's `sleep`, cancelled by the signal when the request is no longer
	 * wanted. Tests put a clock of their own here, so that no test depends on real time.
	 */
	wait: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
	maxServerErrorRetries: 3,
	// The service allows 60 requests a minute: a full window plus a margin.
	maxRateLimitWaitMs: 75_000,
	// Enough retries to wait out a whole minute window with backoff alone (no Retry-After):
	// 1 + 1 + 1 + 2 + 4 + 7.5 … s at the least, under the 75 s budget.
	maxRateLimitRetries: 15,
	// The service allows 60 requests a minute: one a second on average.
	minDelayMs: 1_000,
	baseDelayMs: 500,
	maxDelayMs: 15_000,
	timeScale: 1,
	wait: async (ms, signal) => await sleep(ms, signal),
};

/** Exponential backoff with "full jitter": spreads retries of parallel executions apart. */
export function backoffDelayMs(
	policy: RetryPolicy,
	attempt: number,
	random: () => number = Math.random,
): number {
	const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * policy.timeScale;
	return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * How long to wait after the n-th 429 in a row: what Retry-After asks for, else a backoff step;
 * never less than `minDelayMs`.
 */
export function rateLimitDelayMs(
	policy: RetryPolicy,
	retryAfter: unknown,
	attempt: number,
	now: number = Date.now(),
): number {
	const asked = parseRetryAfterMs(retryAfter, now);
	const wait = asked === undefined ? backoffDelayMs(policy, attempt) : asked * policy.timeScale;
	return Math.max(wait, rateLimitFloorMs(policy));
}

/** The shortest wait after a 429. */
export function rateLimitFloorMs(policy: RetryPolicy): number {
	return policy.minDelayMs * policy.timeScale;
}

/** Total time one request may spend waiting out 429s. */
export function rateLimitBudgetMs(policy: RetryPolicy): number {
	return policy.maxRateLimitWaitMs * policy.timeScale;
}

/**
 * Reads a Retry-After header: whole seconds, or an HTTP date. Returns milliseconds to wait, or
 * undefined when the header is absent or unreadable (the caller then backs off on its own).
 */
export function parseRetryAfterMs(header: unknown, now: number = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string' && typeof value !== 'number') return undefined;
	const text = String(value).trim();
	if (text === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}
