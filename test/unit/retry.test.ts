import {
	backoffDelayMs,
	DEFAULT_RETRY_POLICY,
	parseRetryAfterMs,
	rateLimitBudgetMs,
	rateLimitDelayMs,
	retryPolicy,
} from '../../nodes/FormsWtf/transport/retry';

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
	afterEach(() => Object.assign(retryPolicy, DEFAULT_RETRY_POLICY));

	it('doubles per attempt within half to all of the step, and stops at the ceiling', () => {
		Object.assign(retryPolicy, { baseDelayMs: 100, maxDelayMs: 1000 });
		expect(backoffDelayMs(0, () => 0)).toBe(50);
		expect(backoffDelayMs(0, () => 1)).toBe(100);
		expect(backoffDelayMs(2, () => 0)).toBe(200);
		expect(backoffDelayMs(2, () => 1)).toBe(400);
		expect(backoffDelayMs(10, () => 1)).toBe(1000);
	});
});

describe('timeScale', () => {
	afterEach(() => Object.assign(retryPolicy, DEFAULT_RETRY_POLICY));

	it('is 1 in n8n: Retry-After is waited for exactly, the 429 budget is 75 s', () => {
		expect(rateLimitDelayMs('3', 0)).toBe(3000);
		expect(rateLimitBudgetMs()).toBe(75_000);
	});

	it('scales what Retry-After asks, the backoff and the 429 budget alike', () => {
		Object.assign(retryPolicy, { baseDelayMs: 100, maxDelayMs: 1000, timeScale: 0.05 });
		expect(rateLimitDelayMs('20', 0)).toBe(1000);
		expect(rateLimitDelayMs(undefined, 2)).toBeLessThanOrEqual(20);
		expect(backoffDelayMs(2, () => 1)).toBe(20);
		expect(rateLimitBudgetMs()).toBe(3750);
	});
});
