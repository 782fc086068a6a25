/** The control API through HarnessControl: submit, update, faults, request log, settings, reset, clock. */
import { HarnessControlError, startHarness, type ResponsesPage } from './index';
import { apiGet, apiJson, useHarness } from './testHelpers';

const ctx = useHarness();
const fixture = (name: string) => ctx.fixture(name);

async function firstPage(formId: string, query = ''): Promise<ResponsesPage> {
	return apiJson<ResponsesPage>(ctx.h, `/forms/${formId}/responses?limit=1000${query}`);
}

describe('forms', () => {
	test('lists both accounts’ ctx.forms with owners, fixtures and question ids', async () => {
		expect(ctx.forms.map((f) => f.fixture).sort()).toEqual([
			'allowlist',
			'bugs',
			'feedback',
			'foreign',
			'research',
			'rsvp',
			'waitlist',
		]);
		expect(fixture('foreign').owner).toBe('other');
		expect(ctx.forms.filter((f) => f.owner === 'demo')).toHaveLength(6);
		expect(new Set(ctx.forms.map((f) => f.workspace))).toEqual(new Set(['personal', 'team']));
		expect(fixture('feedback').questionIds).toHaveLength(12);
		const info = await ctx.h.control.info();
		expect(info.baseUrl).toBe(ctx.h.baseUrl);
		expect(info.keys).toEqual(ctx.h.keys);
	});
});

describe('submit', () => {
	test('a response submitted now gets the service clock’s time and comes first', async () => {
		const form = fixture('bugs');
		const before = Date.now();
		const created = await ctx.h.control.submitResponse(form.id);
		const at = Date.parse(created.submittedAt);
		expect(at).toBeGreaterThanOrEqual(before - 5);
		expect(at).toBeLessThanOrEqual(Date.now() + 5);
		expect(created.id).toMatch(/^c[0-9a-z]{24}$/);
		const page = await firstPage(form.id);
		expect(page.total).toBe(36);
		expect(page.responses[0]).toEqual(created);
		expect((await ctx.h.control.form('bugs')).responseCount).toBe(36);
	});

	test('explicit fields and timestamps are kept, and past timestamps land in order', async () => {
		const form = fixture('research');
		const all = (await firstPage(form.id)).responses;
		const middle = all[90].submittedAt;
		const created = await ctx.h.control.submitResponses(form.id, [
			{
				id: 'test-explicit-1',
				walletAddress: 'anon_test',
				ensName: null,
				submittedAt: middle,
				durationSeconds: 12.5,
				answers: [
					{
						questionId: form.questionIds[0],
						questionLabel: 'How easy was onboarding?',
						value: ['any', 1],
					},
				],
			},
			{ submittedAt: '2025-06-01T00:00:00.000Z', ensName: 'tester.eth' },
		]);
		expect(created[0]).toEqual({
			id: 'test-explicit-1',
			walletAddress: 'anon_test',
			ensName: null,
			submittedAt: middle,
			durationSeconds: 12.5,
			answers: [
				{
					questionId: form.questionIds[0],
					questionLabel: 'How easy was onboarding?',
					value: ['any', 1],
				},
			],
		});
		expect(created[1].ensName).toBe('tester.eth');
		const after = (await firstPage(form.id)).responses;
		expect(after).toHaveLength(182);
		const sorted = [...after].sort((a, b) =>
			a.submittedAt === b.submittedAt
				? a.id < b.id
					? 1
					: -1
				: a.submittedAt < b.submittedAt
					? 1
					: -1,
		);
		expect(after.map((r) => r.id)).toEqual(sorted.map((r) => r.id));
		expect(after.find((r) => r.id === 'test-explicit-1')).toEqual(created[0]);
	});

	test('bad input is refused with 400 and a message', async () => {
		const form = fixture('bugs');
		const existing = (await firstPage(form.id)).responses[0].id;
		const bad: [unknown, RegExp][] = [
			[{ responses: [{ id: existing }] }, /already exists/],
			[{ responses: [{ submittedAt: 'yesterday-ish' }] }, /submittedAt/],
			[{ responses: [{ colour: 'red' }] }, /unknown response field/],
			[{ count: 0 }, /count/],
		];
		for (const [body, message] of bad) {
			const r = await fetch(`${ctx.h.origin}/__harness/forms/${form.id}/responses`, {
				method: 'POST',
				body: JSON.stringify(body),
			});
			expect(r.status).toBe(400);
			expect(((await r.json()) as { error: string }).error).toMatch(message);
		}
		await expect(ctx.h.control.submitResponse('cnope')).rejects.toMatchObject({ status: 404 });
		expect((await firstPage(form.id)).total).toBe(35);
	});
});

describe('update', () => {
	test('same id and wallet, newer submittedAt, new answers; moves to the front', async () => {
		const form = fixture('feedback');
		const page = await firstPage(form.id);
		const old = page.responses[500];
		const updated = await ctx.h.control.updateResponse(form.id, old.id);
		expect(updated.id).toBe(old.id);
		expect(updated.walletAddress).toBe(old.walletAddress);
		expect(Date.parse(updated.submittedAt)).toBeGreaterThan(Date.parse(old.submittedAt));
		expect(updated.answers).not.toEqual(old.answers);
		const after = await firstPage(form.id);
		expect(after.total).toBe(page.total);
		expect(after.responses[0]).toEqual(updated);
		expect(after.responses.filter((r) => r.id === old.id)).toHaveLength(1);
		// since just before the update finds it, and only it.
		const justBefore = new Date(Date.parse(updated.submittedAt) - 1).toISOString();
		expect((await firstPage(form.id, `&since=${justBefore}`)).responses).toEqual([updated]);
	});

	test('explicit fields; unknown response is a 404', async () => {
		const form = fixture('bugs');
		const target = (await firstPage(form.id)).responses[3];
		const updated = await ctx.h.control.updateResponse(form.id, target.id, {
			submittedAt: '2030-01-01T00:00:00.000Z',
			answers: [],
		});
		expect(updated).toEqual({
			...target,
			submittedAt: '2030-01-01T00:00:00.000Z',
			answers: [],
			durationSeconds: updated.durationSeconds,
		});
		const again = await ctx.h.control.updateResponse(form.id, target.id, {
			ensName: 'renamed.eth',
		});
		expect(again.ensName).toBe('renamed.eth');
		expect(Date.parse(again.submittedAt)).toBeGreaterThan(Date.parse('2030-01-01T00:00:00.000Z'));
		await expect(ctx.h.control.updateResponse(form.id, 'cnothere')).rejects.toBeInstanceOf(
			HarnessControlError,
		);
	});
});

describe('faults', () => {
	test('5xx statuses, path matching and times', async () => {
		const id = fixture('bugs').id;
		await ctx.h.control.injectFault({
			kind: 'status',
			status: 503,
			times: 2,
			pathIncludes: '/responses',
		});
		await ctx.h.control.injectFault({ kind: 'status', status: 502, pathIncludes: 'offset=40' });
		expect(
			(await ctx.h.control.listFaults()).map((f) => [
				f.kind === 'status' ? f.status : null,
				f.remaining,
			]),
		).toEqual([
			[503, 2],
			[502, 1],
		]);
		expect((await apiGet(ctx.h, '/forms')).status).toBe(200); // does not match
		expect((await apiGet(ctx.h, `/forms/${id}/responses`)).status).toBe(503);
		expect((await apiGet(ctx.h, `/forms/${id}/responses?offset=40`)).status).toBe(503); // first matching fault wins
		expect((await apiGet(ctx.h, `/forms/${id}/responses?offset=40`)).status).toBe(502);
		expect((await apiGet(ctx.h, `/forms/${id}/responses?offset=40`)).status).toBe(200);
		expect(await ctx.h.control.listFaults()).toEqual([]);
		await ctx.h.control.injectFault({ kind: 'status', status: 500, times: 5 });
		await ctx.h.control.clearFaults();
		expect((await apiGet(ctx.h, '/forms')).status).toBe(200);
	});

	test('429 with and without Retry-After', async () => {
		await ctx.h.control.injectFault({ kind: 'status', status: 429, retryAfterSeconds: 7 });
		await ctx.h.control.injectFault({ kind: 'status', status: 429 });
		const withHeader = await apiGet(ctx.h, '/forms');
		expect(withHeader.status).toBe(429);
		expect(withHeader.headers.get('retry-after')).toBe('7');
		expect(JSON.parse(withHeader.text)).toEqual({ error: 'Rate limit exceeded' });
		const without = await apiGet(ctx.h, '/forms');
		expect(without.status).toBe(429);
		expect(without.headers.get('retry-after')).toBeNull();
	});

	test('429 with Retry-After as an HTTP date, past or ahead of the service clock', async () => {
		await ctx.h.control.injectFault({
			kind: 'status',
			status: 429,
			retryAfterDateOffsetMs: -3_600_000,
		});
		await ctx.h.control.injectFault({
			kind: 'status',
			status: 429,
			retryAfterDateOffsetMs: 60_000,
		});
		// Both headers have whole seconds, and may be taken on either side of a second's end.
		const offset = (answer: Awaited<ReturnType<typeof apiGet>>) =>
			Date.parse(answer.headers.get('retry-after') ?? '') -
			Date.parse(answer.headers.get('date') ?? '');
		expect(Math.abs(offset(await apiGet(ctx.h, '/forms')) + 3_600_000)).toBeLessThanOrEqual(1000);
		expect(Math.abs(offset(await apiGet(ctx.h, '/forms')) - 60_000)).toBeLessThanOrEqual(1000);
		await expect(
			ctx.h.control.injectFault({
				kind: 'status',
				status: 429,
				retryAfterSeconds: 1,
				retryAfterDateOffsetMs: 1,
			}),
		).rejects.toThrow(/not both/);
	});

	test('delay, malformed JSON and a dropped connection', async () => {
		await ctx.h.control.injectFault({ kind: 'delay', ms: 300 });
		const start = Date.now();
		expect((await apiGet(ctx.h, '/forms')).status).toBe(200);
		expect(Date.now() - start).toBeGreaterThanOrEqual(290);

		await ctx.h.control.injectFault({ kind: 'malformedJson' });
		const malformed = await fetch(`${ctx.h.baseUrl}/forms`, {
			headers: { Authorization: `Bearer ${ctx.h.keys.team}` },
		});
		expect(malformed.status).toBe(200);
		expect(malformed.headers.get('content-type')).toMatch(/application\/json/);
		const body = await malformed.text();
		expect(body.length).toBeGreaterThan(10);
		expect(() => JSON.parse(body)).toThrow(SyntaxError);

		await ctx.h.control.injectFault({ kind: 'drop' });
		await expect(
			fetch(`${ctx.h.baseUrl}/forms`, { headers: { Authorization: `Bearer ${ctx.h.keys.team}` } }),
		).rejects.toThrow();
		expect((await apiGet(ctx.h, '/forms')).status).toBe(200);

		const log = await ctx.h.control.requestLog();
		expect(log.map((e) => [e.fault ?? null, e.status])).toEqual([
			['delay', 200],
			['malformedJson', 200],
			['drop', null],
			[null, 200],
		]);
	});

	test('bad fault specs are refused', async () => {
		for (const body of [
			{ kind: 'status', status: 418 },
			{ kind: 'explode' },
			{ kind: 'delay' },
			{ kind: 'drop', times: 0 },
		]) {
			const r = await fetch(`${ctx.h.origin}/__harness/faults`, {
				method: 'POST',
				body: JSON.stringify(body),
			});
			expect(r.status).toBe(400);
		}
	});
});

describe('request log', () => {
	test('records method, path, query, plan, status and timestamp; control calls are not logged', async () => {
		const id = fixture('bugs').id;
		await apiGet(
			ctx.h,
			`/forms/${id}/responses?limit=5&offset=10&since=2025-01-01T00:00:00.000Z`,
			ctx.h.keys.business,
		);
		await apiGet(ctx.h, '/forms', null);
		await apiGet(ctx.h, '/forms', ctx.h.keys.free);
		await apiGet(ctx.h, `/forms/${id}/responses?limit=5000&limit=2`);
		await ctx.h.control.listForms();
		const log = await ctx.h.control.requestLog();
		// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
		expect(log.map(({ timestamp: _t, ...rest }) => rest)).toEqual([
			{
				method: 'GET',
				path: `/api/v1/forms/${id}/responses`,
				query: { limit: '5', offset: '10', since: '2025-01-01T00:00:00.000Z' },
				plan: 'business',
				status: 200,
			},
			{ method: 'GET', path: '/api/v1/forms', query: {}, plan: null, status: 401 },
			{ method: 'GET', path: '/api/v1/forms', query: {}, plan: 'free', status: 403 },
			{
				method: 'GET',
				path: `/api/v1/forms/${id}/responses`,
				query: { limit: ['5000', '2'] },
				plan: 'team',
				status: 400,
			},
		]);
		for (const e of log) expect(Math.abs(Date.parse(e.timestamp) - Date.now())).toBeLessThan(5000);
		await ctx.h.control.clearRequestLog();
		expect(await ctx.h.control.requestLog()).toEqual([]);
	});

	test('keeps only the last requestLogLimit entries', async () => {
		const small = await startHarness({ port: 0, requestLogLimit: 3 });
		try {
			for (const path of ['/a', '/b', '/c', '/d', '/e']) await fetch(`${small.baseUrl}${path}`);
			expect((await small.control.requestLog()).map((e) => e.path)).toEqual([
				'/api/v1/c',
				'/api/v1/d',
				'/api/v1/e',
			]);
		} finally {
			await small.close();
		}
	});
});

describe('settings, clock and reset', () => {
	test('clock offset moves the Date header and "now" of submissions', async () => {
		const offset = -3 * 3_600_000;
		await ctx.h.control.updateSettings({ clockOffsetMs: offset });
		const r = await apiGet(ctx.h, '/forms');
		const serviceDate = Date.parse(r.headers.get('date') ?? '');
		expect(Math.abs(serviceDate - (Date.now() + offset))).toBeLessThan(3000);
		const created = await ctx.h.control.submitResponse(fixture('bugs').id);
		expect(Math.abs(Date.parse(created.submittedAt) - (Date.now() + offset))).toBeLessThan(3000);
		// Even control responses carry the service clock.
		const control = await fetch(`${ctx.h.origin}/__harness/settings`);
		expect(
			Math.abs(Date.parse(control.headers.get('date') ?? '') - (Date.now() + offset)),
		).toBeLessThan(3000);
	});

	test('clockOffsetMs as a start option', async () => {
		const skewed = await startHarness({ port: 0, clockOffsetMs: 86_400_000 });
		try {
			const r = await fetch(`${skewed.baseUrl}/forms`);
			expect(
				Math.abs(Date.parse(r.headers.get('date') ?? '') - (Date.now() + 86_400_000)),
			).toBeLessThan(3000);
		} finally {
			await skewed.close();
		}
	});

	test('settings change at run time and are validated', async () => {
		const settings = await ctx.h.control.updateSettings({
			responseOrder: 'oldestFirst',
			sinceInclusive: true,
			retryAfterHeader: true,
			rateLimit: { requests: 5, windowMs: 1000 },
		});
		expect(settings).toEqual({
			responseOrder: 'oldestFirst',
			sinceInclusive: true,
			retryAfterHeader: true,
			rateLimit: { requests: 5, windowMs: 1000 },
			clockOffsetMs: 0,
			pageSizeCap: false,
			answerShape: 'envelope',
			webhookUrls: 'any',
		});
		expect(await ctx.h.control.getSettings()).toEqual(settings);
		for (const patch of [
			{ responseOrder: 'random' },
			{ answerShape: 'wrapped' },
			{ webhookUrls: 'http' },
			{ rateLimit: { requests: 0, windowMs: 10 } },
			{ clockOffsetMs: 'soon' },
			{ verbose: true },
		]) {
			const r = await fetch(`${ctx.h.origin}/__harness/settings`, {
				method: 'PATCH',
				body: JSON.stringify(patch),
			});
			expect(r.status).toBe(400);
		}
	});

	test('reset restores the seeded data and the start settings', async () => {
		const form = fixture('bugs');
		const before = await firstPage(form.id);
		await ctx.h.control.submitBurst(form.id, 3);
		await ctx.h.control.updateResponse(form.id, before.responses[5].id);
		await ctx.h.control.updateSettings({ responseOrder: 'oldestFirst' });
		await ctx.h.control.injectFault({
			kind: 'status',
			status: 500,
			times: 10,
			pathIncludes: '/nothing-matches',
		});
		await ctx.h.control.reset();
		expect(await firstPage(form.id)).toEqual(before);
		expect((await ctx.h.control.getSettings()).responseOrder).toBe('newestFirst');
		expect(await ctx.h.control.listFaults()).toEqual([]);
		expect((await ctx.h.control.requestLog()).length).toBe(1);
	});

	test('unknown control routes are JSON 404s', async () => {
		const r = await fetch(`${ctx.h.origin}/__harness/nope`);
		expect(r.status).toBe(404);
		expect(typeof ((await r.json()) as { error: string }).error).toBe('string');
	});
});
