import { MIN_DEADLINE_TIMEOUT_MS } from '../../nodes/FormsWtf/shared/transport';
import { isDeadlineError, isTransientError } from '../../nodes/FormsWtf/shared/transport/errors';
import { resetTestRetryPolicy } from '../support/retryPolicy';
import { API_KEY } from './fixtures';
import type { ScriptedAnswer } from './transportClient';
import { scriptedClient, START, useScriptedClock } from './transportClient';

useScriptedClock();
afterEach(() => resetTestRetryPolicy());

const FORMS = { status: 200, body: JSON.stringify({ forms: [] }) };

async function getForms(
	answers: ScriptedAnswer[],
	extra: { deadlineMs?: number; timeoutMs?: number } = {},
) {
	const client = scriptedClient(answers, { apiKey: API_KEY });
	let error: unknown;
	try {
		await client.transport.request<unknown>({ path: ['forms'], ...extra });
	} catch (caught) {
		error = caught;
	}
	return { ...client, error: error as (Error & { description?: string }) | undefined };
}

describe('deadlineMs: no retry wait ends after it', () => {
	it.each([
		[
			'a 429 asking for 30 s',
			{ status: 429, headers: { 'Retry-After': '30' } },
			10_000,
			/rate limit/,
		],
		['a 429 without Retry-After, backoff past the deadline', { status: 429 }, 500, /rate limit/],
		[
			'a 503, backoff past the deadline',
			{ status: 503, body: '{"error":"down"}' },
			100,
			/server error 503/,
		],
		['a dropped connection, backoff past the deadline', { code: 'ECONNRESET' }, 100, /no answer/],
	] as const)('%s fails at once with a deadline error', async (_name, answer, leftMs, what) => {
		const { error, sent, waits } = await getForms([answer, FORMS], { deadlineMs: START + leftMs });
		expect(sent).toHaveLength(1);
		expect(waits).toEqual([]);
		expect(isDeadlineError(error)).toBe(true);
		expect(isTransientError(error)).toBe(true);
		expect(error?.message).toMatch(
			/^Forms.wtf asked to wait \(.*\) longer than this poll may take$/,
		);
		expect(error?.message).toMatch(what);
		expect(error?.description).toContain('The trigger goes on at its next poll');
	});

	it('a wait that ends before the deadline is waited, and the request goes on', async () => {
		const { error, sent, waits } = await getForms(
			[{ status: 429, headers: { 'Retry-After': '2' } }, FORMS],
			{
				deadlineMs: START + 10_000,
			},
		);
		expect(error).toBeUndefined();
		expect(waits).toEqual([2000]);
		expect(sent).toHaveLength(2);
	});

	it('without a deadline the same 429 is waited out as before', async () => {
		const { error, waits } = await getForms([
			{ status: 429, headers: { 'Retry-After': '30' } },
			FORMS,
		]);
		expect(error).toBeUndefined();
		expect(waits).toEqual([30_000]);
	});

	it('other errors stay what they were: not deadline errors', async () => {
		const { error } = await getForms([{ status: 401, body: '{"error":"no"}' }], {
			deadlineMs: START + 1000,
		});
		expect(error?.message).toBe('Forms.wtf did not accept the API key');
		expect(isDeadlineError(error)).toBe(false);
	});
});

describe('deadlineMs: the timeout of each attempt', () => {
	it('is at most the time left until the deadline', async () => {
		const { sent } = await getForms([FORMS], { deadlineMs: START + 5_000, timeoutMs: 30_000 });
		expect(sent[0].timeout).toBe(5_000);
	});

	it('is never below 1 s, even with the deadline passed', async () => {
		const near = await getForms([FORMS], { deadlineMs: START + 200 });
		expect(near.sent[0].timeout).toBe(MIN_DEADLINE_TIMEOUT_MS);
		jest.restoreAllMocks();
		const passed = await getForms([FORMS], { deadlineMs: START - 60_000 });
		expect(passed.sent[0].timeout).toBe(MIN_DEADLINE_TIMEOUT_MS);
	});

	it('is the Timeout when the deadline is further away', async () => {
		const { sent } = await getForms([FORMS], { deadlineMs: START + 300_000, timeoutMs: 2_000 });
		expect(sent[0].timeout).toBe(2_000);
	});

	it('shrinks as the deadline nears, attempt after attempt', async () => {
		const { sent, error } = await getForms([{ status: 503 }, { status: 503 }, FORMS], {
			deadlineMs: START + 3_000,
		});
		expect(error).toBeUndefined();
		const timeouts = sent.map((options) => options.timeout ?? 0);
		expect(timeouts[0]).toBe(3_000);
		expect(timeouts[1]).toBeLessThan(3_000);
		expect(timeouts[2]).toBeLessThan(timeouts[1]);
	});

	it('an attempt that times out once the deadline has passed fails as a deadline error', async () => {
		const { error, sent } = await getForms([{ code: 'ETIMEDOUT', takesMs: 5_000 }, FORMS], {
			deadlineMs: START + 5_000,
		});
		expect(sent).toHaveLength(1);
		expect(isDeadlineError(error)).toBe(true);
		expect(error?.message).toContain('(no answer)');
		expect(error?.description).toContain('ETIMEDOUT');
	});

	it('an attempt that times out before the deadline is retried if the backoff fits', async () => {
		const { error, sent } = await getForms([{ code: 'ETIMEDOUT', takesMs: 1_000 }, FORMS], {
			deadlineMs: START + 60_000,
			timeoutMs: 1_000,
		});
		expect(error).toBeUndefined();
		expect(sent).toHaveLength(2);
	});
});
