import type { RetryPolicy } from '../../nodes/FormsWtf/shared/transport/retry';
import {
	backoffDelayMs,
	DEFAULT_RETRY_POLICY,
	parseRetryAfterMs,
	rateLimitBudgetMs,
	rateLimitDelayMs,
	rateLimitFloorMs,
} from '../../nodes/FormsWtf/shared/transport/retry';

/** n8n's policy; a test that needs another makes its own. */
const policy: RetryPolicy = DEFAULT_RETRY_POLICY;

describe('parseRetryAfterMs', () => {
	const now = Date.parse('2026-01-01T00:00:00Z');

	it('reads whole and fractional seconds', () => {
		expect(parseRetryAfterMs('3', now)).toBe(3000);
		expect(parseRetryAfterMs('0.25', now)).toBe(250);
		expect(parseRetryAfterMs(['7'], now)).toBe(7000);
	});

	it('reads an HTTP date as the time left until it', () => {
		expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
		expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
	});

	it('gives undefined for an absent or unreadable header', () => {
		expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
		expect(parseRetryAfterMs('', now)).toBeUndefined();
		expect(parseRetryAfterMs('soon', now)).toBeUndefined();
	});
});

describe('backoffDelayMs', () => {
	it('doubles per attempt within half to all of the step, and stops at the ceiling', () => {
		const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
		expect(backoffDelayMs(policy, 0, () => 0)).toBe(50);
		expect(backoffDelayMs(policy, 0, () => 1)).toBe(100);
		expect(backoffDelayMs(policy, 2, () => 0)).toBe(200);
		expect(backoffDelayMs(policy, 2, () => 1)).toBe(400);
		expect(backoffDelayMs(policy, 10, () => 1)).toBe(1000);
	});
});

describe('timeScale', () => {
	it('is 1 in n8n: Retry-After is waited for exactly, the 429 budget is 75 s', () => {
		expect(rateLimitDelayMs(policy, '3', 0)).toBe(3000);
		expect(rateLimitBudgetMs(policy)).toBe(75_000);
	});

	it('scales what Retry-After asks, the backoff and the 429 budget alike', () => {
		const policy: RetryPolicy = {
			...DEFAULT_RETRY_POLICY,
			baseDelayMs: 100,
			maxDelayMs: 1000,
			timeScale: 0.05,
		};
		expect(rateLimitDelayMs(policy, '20', 0)).toBe(1000);
		// The backoff step (at most 20 ms) is raised to the floor, 1 s scaled: 50 ms.
		expect(rateLimitDelayMs(policy, undefined, 2)).toBe(50);
		expect(backoffDelayMs(policy, 2, () => 1)).toBe(20);
		expect(rateLimitBudgetMs(policy)).toBe(3750);
		expect(rateLimitFloorMs(policy)).toBe(50);
	});
});

describe('the floor of a wait after a 429', () => {
	const now = Date.parse('2026-01-01T00:00:00Z');

	it('is 1 s: Retry-After 0, an HTTP date in the past, a fraction of a second', () => {
		expect(rateLimitDelayMs(policy, '0', 0, now)).toBe(1000);
		expect(rateLimitDelayMs(policy, 'Wed, 31 Dec 2025 23:59:00 GMT', 0, now)).toBe(1000);
		expect(rateLimitDelayMs(policy, '0.01', 0, now)).toBe(1000);
		expect(rateLimitDelayMs(policy, 'Thu, 01 Jan 2026 00:00:00 GMT', 5, now)).toBe(1000);
	});

	it('holds for the backoff without Retry-After too, and leaves longer waits alone', () => {
		for (let attempt = 0; attempt < 8; attempt++) {
			expect(rateLimitDelayMs(policy, undefined, attempt)).toBeGreaterThanOrEqual(1000);
		}
		expect(rateLimitDelayMs(policy, '7', 0, now)).toBe(7000);
	});

	it('is retryPolicy.minDelayMs', () => {
		const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, minDelayMs: 250 };
		expect(rateLimitDelayMs(policy, '0', 0, now)).toBe(250);
	});

	it('comes with a count of retries as well as the 75 s budget', () => {
		expect(DEFAULT_RETRY_POLICY.maxRateLimitRetries).toBeGreaterThan(0);
		// At the floor, the budget alone would allow 75 retries in a row.
		expect(DEFAULT_RETRY_POLICY.maxRateLimitRetries).toBeLessThan(
			rateLimitBudgetMs(policy) / rateLimitFloorMs(policy),
		);
	});
});
