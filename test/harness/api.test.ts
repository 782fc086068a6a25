/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/** The API surface: resource shapes and every row of the contract's error table. */
import { get } from 'http';
import { QUESTION_TYPES, type FormDetail, type FormSummary } from './index';
import { apiGet, apiJson, useHarness } from './testHelpers';

// Rate limiting is covered in rateLimit.test.ts; here it would only get in the way.
const ctx = useHarness({}, { resetAfterEach: false });
const fixture = (name: string) => ctx.fixture(name);

function errorOf(text: string): string {
	const body = JSON.parse(text) as { error?: unknown };
	expect(Object.keys(body)).toEqual(['error']);
	expect(typeof body.error).toBe('string');
	return body.error as string;
}

describe('resources', () => {
	test('GET /forms lists the demo account’s ctx.forms with exactly the summary fields', async () => {
		const { forms: list } = await apiJson<{ forms: FormSummary[] }>(ctx.h, '/forms');
		const demo = ctx.forms.filter((f) => f.owner === 'demo');
		expect(list.map((f) => f.id).sort()).toEqual(demo.map((f) => f.id).sort());
		expect(list.some((f) => f.id === fixture('foreign').id)).toBe(false);
		for (const summary of list) {
			expect(Object.keys(summary)).toEqual([
				'id',
				'title',
				'slug',
				'published',
				'responseCount',
				'createdAt',
				'updatedAt',
			]);
			expect(summary.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
			expect(summary.responseCount).toBe(demo.find((f) => f.id === summary.id)?.responseCount);
		}
		expect(list.some((f) => f.published)).toBe(true);
		expect(list.some((f) => !f.published)).toBe(true);
		expect(list.find((f) => f.id === fixture('rsvp').id)?.responseCount).toBe(0);
		expect(list.find((f) => f.id === fixture('feedback').id)?.responseCount).toBe(2500);
	});

	test('GET /forms/:id returns the detail with questions and gate rules', async () => {
		const detail = await apiJson<FormDetail>(ctx.h, `/forms/${fixture('feedback').id}`);
		expect(Object.keys(detail)).toEqual([
			'id',
			'title',
			'slug',
			'published',
			'questions',
			'gateRules',
		]);
		expect(detail.gateRules).toEqual([]);
		expect(detail.questions.map((q) => q.order)).toEqual(detail.questions.map((_, i) => i));
		const comments = detail.questions.filter((q) => q.label === 'Comments');
		expect(comments).toHaveLength(2);
		expect(comments[0].id).not.toBe(comments[1].id);
		const checkbox = detail.questions.find((q) => q.type === 'CHECKBOX');
		expect(checkbox?.options?.length).toBeGreaterThan(2);
		expect(detail.questions.some((q) => q.description !== undefined)).toBe(true);

		const gated = await apiJson<FormDetail>(ctx.h, `/forms/${fixture('allowlist').id}`);
		expect(gated.gateRules.length).toBe(2);
		for (const rule of gated.gateRules) {
			expect(rule.contractAddress).toMatch(/^0x[0-9a-f]{40}$/);
			expect(['ERC20', 'ERC721', 'ERC1155']).toContain(rule.tokenType);
			expect(typeof rule.chain).toBe('string');
			expect(typeof rule.minBalance).toBe('number');
		}
	});

	test('the demo ctx.forms use all 21 question types', async () => {
		const types = new Set<string>();
		for (const form of ctx.forms.filter((f) => f.owner === 'demo')) {
			const detail = await apiJson<FormDetail>(ctx.h, `/forms/${form.id}`);
			for (const q of detail.questions) types.add(q.type);
		}
		expect([...types].sort()).toEqual([...QUESTION_TYPES].sort());
	});

	test('keeps connections alive without announcing an idle timeout it would race clients on', async () => {
		const headers = await new Promise<Record<string, string | string[] | undefined>>(
			(resolve, reject) => {
				get(
					`${ctx.h.baseUrl}/forms`,
					{ headers: { Authorization: `Bearer ${ctx.h.keys.team}` } },
					(res) => {
						res.resume();
						res.on('end', () => resolve(res.headers));
					},
				).on('error', reject);
			},
		);
		// Only the absence of an announced timeout is asserted: when nock has patched Node's HTTP
		// client in the same jest worker, the request itself may ask for Connection: close.
		expect(headers['keep-alive']).toBeUndefined();
	});

	test('every response carries a Date header', async () => {
		const ok = await apiGet(ctx.h, '/forms');
		const denied = await apiGet(ctx.h, '/forms', null);
		for (const r of [ok, denied]) {
			const date = Date.parse(r.headers.get('date') ?? '');
			expect(Math.abs(date - Date.now())).toBeLessThan(5000);
		}
	});
});

describe('error table', () => {
	test('400: bad limit, offset, since and format', async () => {
		const id = fixture('feedback').id;
		for (const query of [
			'limit=0',
			'limit=1001',
			'limit=1.5',
			'limit=abc',
			'limit=',
			'limit=-5',
			'offset=-1',
			'offset=abc',
			'offset=1.5',
			'since=not-a-date',
			'since=',
		]) {
			const r = await apiGet(ctx.h, `/forms/${id}/responses?${query}`);
			expect([query, r.status]).toEqual([query, 400]);
			expect(errorOf(r.text).length).toBeGreaterThan(5);
		}
		const r = await apiGet(ctx.h, `/forms/${id}/export?format=xml`);
		expect(r.status).toBe(400);
		expect(errorOf(r.text)).toMatch(/format/);
		// The boundaries themselves are fine.
		expect((await apiGet(ctx.h, `/forms/${id}/responses?limit=1000&offset=0`)).status).toBe(200);
		expect((await apiGet(ctx.h, `/forms/${id}/responses?limit=1`)).status).toBe(200);
	});

	test('401: missing, malformed, revoked and unknown keys', async () => {
		const cases: [string, Record<string, string>][] = [
			['missing', {}],
			['empty', { Authorization: '' }],
			['no scheme', { Authorization: ctx.h.keys.team }],
			['wrong scheme', { Authorization: `Token ${ctx.h.keys.team}` }],
			[
				'basic',
				{ Authorization: `Basic ${Buffer.from(`${ctx.h.keys.team}:`).toString('base64')}` },
			],
			['two spaces', { Authorization: `Bearer  ${ctx.h.keys.team}` }],
			['lower-case scheme', { Authorization: `bearer ${ctx.h.keys.team}` }],
			['revoked', { Authorization: `Bearer ${ctx.h.keys.revoked}` }],
			['unknown', { Authorization: 'Bearer fwtf_not_a_real_key' }],
		];
		for (const [name, headers] of cases) {
			const r = await apiGet(ctx.h, '/forms', null, headers);
			expect([name, r.status]).toEqual([name, 401]);
			errorOf(r.text);
		}
		expect(errorOf((await apiGet(ctx.h, '/forms', ctx.h.keys.revoked)).text)).toMatch(/revoked/);
		expect(errorOf((await apiGet(ctx.h, '/forms', null)).text)).toMatch(/Missing/);
	});

	test('403: free and pro plans get 403 on every call', async () => {
		const id = fixture('feedback').id;
		for (const key of [ctx.h.keys.free, ctx.h.keys.pro]) {
			for (const path of [
				'/forms',
				`/forms/${id}`,
				`/forms/${id}/responses`,
				`/forms/${id}/export`,
				`/forms/${id}/export?format=merkle`,
			]) {
				const r = await apiGet(ctx.h, path, key);
				expect([key, path, r.status]).toEqual([key, path, 403]);
				expect(errorOf(r.text)).toMatch(/Team plan/);
			}
		}
	});

	test('403: merkle export below Business names the Business plan; Business gets 200', async () => {
		const id = fixture('bugs').id;
		const team = await apiGet(ctx.h, `/forms/${id}/export?format=merkle`, ctx.h.keys.team);
		expect(team.status).toBe(403);
		expect(errorOf(team.text)).toMatch(/Business plan/);
		const business = await apiGet(ctx.h, `/forms/${id}/export?format=merkle`, ctx.h.keys.business);
		expect(business.status).toBe(200);
	});

	test('404: unknown form, other account’s form, unknown paths', async () => {
		const foreign = fixture('foreign').id;
		for (const path of [
			'/forms/cdoesnotexist0000000000000',
			`/forms/${foreign}`,
			`/forms/${foreign}/responses`,
			`/forms/${foreign}/export`,
		]) {
			const r = await apiGet(ctx.h, path, ctx.h.keys.business);
			expect([path, r.status]).toEqual([path, 404]);
			expect(errorOf(r.text)).toBe('Form not found');
		}
		for (const path of [
			'/nope',
			'/forms/',
			`/forms/${fixture('feedback').id}/nope`,
			`/forms/${fixture('feedback').id}/responses/extra`,
		]) {
			const r = await apiGet(ctx.h, path);
			expect([path, r.status]).toEqual([path, 404]);
			errorOf(r.text);
		}
		const outside = await fetch(`${ctx.h.origin}/api/v2/forms`, {
			headers: { Authorization: `Bearer ${ctx.h.keys.team}` },
		});
		expect(outside.status).toBe(404);
		errorOf(await outside.text());
	});

	test('404: encoded slashes and question marks stay inside the id segment', async () => {
		const id = fixture('feedback').id;
		for (const path of [
			`/forms/${id}%2Fresponses`,
			`/forms/${id}%3Flimit%3D1`,
			`/forms/${encodeURIComponent(`${id}/export`)}`,
		]) {
			const r = await apiGet(ctx.h, path);
			expect([path, r.status]).toEqual([path, 404]);
		}
		// An encoded character that decodes to the real id does match.
		const encoded = id.replace(/^c/, '%63');
		expect((await apiGet(ctx.h, `/forms/${encoded}`)).status).toBe(200);
	});

	test('405: a method the route does not answer, with the methods it does in Allow', async () => {
		const send = (method: string, path: string) =>
			fetch(`${ctx.h.baseUrl}${path}`, {
				method,
				headers: { Authorization: `Bearer ${ctx.h.keys.team}` },
			});
		const onResponses = await send('POST', `/forms/${fixture('feedback').id}/responses`);
		expect(onResponses.status).toBe(405);
		expect(onResponses.headers.get('allow')).toBe('GET');
		errorOf(await onResponses.text());
		const patch = await send('PATCH', '/forms');
		expect(patch.status).toBe(405);
		expect(patch.headers.get('allow')).toBe('GET, POST, PUT, DELETE');
		errorOf(await patch.text());
	});

	test('500: via fault injection', async () => {
		await ctx.h.control.injectFault({ kind: 'status', status: 500 });
		const r = await apiGet(ctx.h, '/forms');
		expect(r.status).toBe(500);
		expect(errorOf(r.text)).toBe('Internal server error');
		expect((await apiGet(ctx.h, '/forms')).status).toBe(200);
	});
});
