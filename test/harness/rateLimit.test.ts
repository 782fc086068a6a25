/** Rate limiting: fixed window per key, 429 with and without Retry-After, refused requests not counted. */
import { FixedWindowRateLimiter, retryAfterSeconds } from './rateLimit';
import { startHarness, type RunningHarness } from './index';
import { apiGet } from './testHelpers';

describe('FixedWindowRateLimiter (fake clock)', () => {
	test('fixed windows per key; refusals do not count; the window reopens after windowMs', () => {
		let now = 1000;
		const limiter = new FixedWindowRateLimiter({ requests: 2, windowMs: 100 }, () => now);
		expect(limiter.check('a')).toEqual({ allowed: true });
		now = 1050;
		expect(limiter.check('a')).toEqual({ allowed: true });
		expect(limiter.check('a')).toEqual({
			allowed: false,
			retryAfterMs: 50,
			limit: { requests: 2, windowMs: 100 },
		});
		expect(limiter.check('b')).toEqual({ allowed: true }); // separate key, separate window
		now = 1099;
		for (let i = 0; i < 10; i++) expect(limiter.check('a').allowed).toBe(false);
		now = 1100; // window of 'a' opened at 1000
		expect(limiter.check('a')).toEqual({ allowed: true });
		expect(limiter.check('a')).toEqual({ allowed: true });
		expect(limiter.check('a')).toEqual({
			allowed: false,
			retryAfterMs: 100,
			limit: { requests: 2, windowMs: 100 },
		});
		limiter.configure(false);
		expect(limiter.check('a')).toEqual({ allowed: true });
	});

	test('Retry-After rounds up to whole seconds and is never 0', () => {
		expect(retryAfterSeconds(1)).toBe(1);
		expect(retryAfterSeconds(1000)).toBe(1);
		expect(retryAfterSeconds(1001)).toBe(2);
		expect(retryAfterSeconds(59_999)).toBe(60);
		expect(retryAfterSeconds(0)).toBe(1);
	});

	test('with a time scale, Retry-After counts the service seconds the shrunk window stands for', () => {
		// 3 s standing for 60 s: 1,234 ms left is 24.68 service seconds.
		expect(retryAfterSeconds(1234, 0.05)).toBe(25);
		expect(retryAfterSeconds(2999, 0.05)).toBe(60);
		expect(retryAfterSeconds(0, 0.05)).toBe(1);
	});
});

describe('over HTTP', () => {
	let h: RunningHarness;
	beforeAll(async () => {
		// A minute-long window: the test moves the limiter's clock to its end instead of waiting.
		h = await startHarness({ port: 0, rateLimit: { requests: 3, windowMs: 60_000 } });
	});
	afterAll(() => h.close());

	test('429 with a JSON error and no Retry-After by default; refused requests do not count', async () => {
		for (let i = 0; i < 3; i++) expect((await apiGet(h, '/forms')).status).toBe(200);
		const refused = await apiGet(h, '/forms');
		expect(refused.status).toBe(429);
		expect(refused.headers.get('retry-after')).toBeNull();
		expect(JSON.parse(refused.text)).toEqual({
			error: 'Rate limit exceeded: 3 requests per 60 s per API key',
		});
		for (let i = 0; i < 5; i++) expect((await apiGet(h, '/forms')).status).toBe(429);
		// Other keys have their own window; the control API is never limited.
		expect((await apiGet(h, '/forms', h.keys.business)).status).toBe(200);
		await h.control.listForms();
		await h.control.advanceRateLimitClock(60_000);
		// The refusals did not eat into the new window.
		for (let i = 0; i < 3; i++) expect((await apiGet(h, '/forms')).status).toBe(200);
		expect((await apiGet(h, '/forms')).status).toBe(429);
	});

	test('Retry-After (whole seconds to the window reset) when retryAfterHeader is on', async () => {
		await h.control.updateSettings({
			retryAfterHeader: true,
			rateLimit: { requests: 1, windowMs: 2500 },
		});
		expect((await apiGet(h, '/forms')).status).toBe(200);
		const refused = await apiGet(h, '/forms');
		expect(refused.status).toBe(429);
		expect(refused.headers.get('retry-after')).toBe('3');
		await h.control.updateSettings({ rateLimit: { requests: 1, windowMs: 2500, timeScale: 0.05 } });
		expect((await apiGet(h, '/forms')).status).toBe(200);
		const scaled = Number((await apiGet(h, '/forms')).headers.get('retry-after'));
		expect(scaled).toBeGreaterThan(45);
		expect(scaled).toBeLessThanOrEqual(50);
		await h.control.reset();
	});

	test('requests without a valid key are not counted against any key; 403s of a valid key are', async () => {
		await h.control.updateSettings({ rateLimit: { requests: 2, windowMs: 60_000 } });
		for (let i = 0; i < 5; i++)
			expect((await apiGet(h, '/forms', 'fwtf_unknown')).status).toBe(401);
		expect((await apiGet(h, '/forms')).status).toBe(200);
		expect((await apiGet(h, '/forms')).status).toBe(200);
		expect((await apiGet(h, '/forms')).status).toBe(429);
		expect((await apiGet(h, '/forms', h.keys.free)).status).toBe(403);
		expect((await apiGet(h, '/forms', h.keys.free)).status).toBe(403);
		expect((await apiGet(h, '/forms', h.keys.free)).status).toBe(429);
		await h.control.reset();
	});

	test('the default is 60 requests per minute', async () => {
		const d = await startHarness({ port: 0 });
		try {
			const statuses: number[] = [];
			for (let i = 0; i < 61; i++) statuses.push((await apiGet(d, '/forms')).status);
			expect(statuses.filter((s) => s === 200)).toHaveLength(60);
			expect(statuses[60]).toBe(429);
		} finally {
			await d.close();
		}
	});
});
