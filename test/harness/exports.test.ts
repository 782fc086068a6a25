/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/** Each export layout parses back to the data it came from; headers; streaming. */
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { parse } from 'csv-parse/sync';
import { request } from 'http';
import {
	CSV_META_COLUMNS,
	startHarness,
	type FormDetail,
	type FormResponse,
	type JsonValue,
	type RunningHarness,
} from './index';
import { csvCell, csvField } from './exports';
import { apiGet, apiJson, readAllPages, useHarness } from './testHelpers';

const ctx = useHarness();
const fixture = (name: string) => ctx.fixture(name);

const ANSWERLESS = new Set(['STATEMENT', 'WELCOME_SCREEN', 'END_SCREEN']);

function expectedCell(value: JsonValue | undefined): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean') return String(value);
	return JSON.stringify(value);
}

async function csvOf(formId: string): Promise<string[][]> {
	const r = await apiGet(ctx.h, `/forms/${formId}/export?format=csv`);
	expect(r.status).toBe(200);
	return parse(r.text, { relax_column_count: false }) as string[][];
}

describe('csv', () => {
	test.each(['feedback', 'research', 'allowlist', 'rsvp'])(
		'%s: header, one row per response in API order, cells equal the answers',
		async (name) => {
			const form = fixture(name);
			const detail = await apiJson<FormDetail>(ctx.h, `/forms/${form.id}`);
			const { responses } = await readAllPages(ctx.h, form.id, 1000);
			const rows = await csvOf(form.id);
			const answerable = detail.questions.filter((q) => !ANSWERLESS.has(q.type));

			const header = rows[0];
			expect(header.slice(0, 5)).toEqual([...CSV_META_COLUMNS]);
			expect(header).toHaveLength(5 + answerable.length);
			expect(new Set(header).size).toBe(header.length);
			answerable.forEach((q, i) =>
				expect(header[5 + i] === q.label || header[5 + i].startsWith(`${q.label} (`)).toBe(true),
			);

			expect(rows).toHaveLength(responses.length + 1);
			responses.forEach((response, i) => {
				const row = rows[i + 1];
				const byQuestion = new Map(response.answers.map((a) => [a.questionId, a.value]));
				const expected = [
					response.id,
					response.walletAddress,
					response.ensName ?? '',
					response.submittedAt,
					String(response.durationSeconds),
					...answerable.map((q) => expectedCell(byQuestion.get(q.id))),
				];
				if (row.join('\u0000') !== expected.join('\u0000')) expect(row).toEqual(expected); // detailed diff only on failure
			});
		},
	);

	test('duplicate labels become distinct columns; RFC 4180 quoting survives commas, quotes and newlines', async () => {
		const form = fixture('feedback');
		const rows = await csvOf(form.id);
		expect(rows[0]).toContain('Comments');
		expect(rows[0]).toContain('Comments (2)');
		const cells = rows.flat();
		expect(cells.some((c) => c.includes('\n'))).toBe(true);
		expect(cells.some((c) => c.includes('"'))).toBe(true);
		expect(cells.some((c) => c.includes(','))).toBe(true);
		const raw = (await apiGet(ctx.h, `/forms/${form.id}/export`)).text;
		expect(raw.endsWith('\r\n')).toBe(true);
		expect(raw).toContain('"Love it, but ""export"" needs work"');
		expect(raw).toContain('"Line one\nLine two"');
		// Outside quoted fields only CRLF may appear: lenient parsers accept a bare LF, strict ones do not.
		const unquoted = raw.replace(/"(?:[^"]|"")*"/g, '');
		expect(unquoted).not.toMatch(/[^\r]\n|\r[^\n]/);
		expect(unquoted).not.toContain('"');
	});

	test('csvField and csvCell follow RFC 4180 and the documented value rules', () => {
		expect(csvField('plain')).toBe('plain');
		expect(csvField('a,b')).toBe('"a,b"');
		expect(csvField('say "hi"')).toBe('"say ""hi"""');
		expect(csvField('a\nb')).toBe('"a\nb"');
		expect(csvField('a\rb')).toBe('"a\rb"');
		expect(csvField(' padded ')).toBe(' padded ');
		expect(csvCell(undefined)).toBe('');
		expect(csvCell(null)).toBe('');
		expect(csvCell(42)).toBe('42');
		expect(csvCell(true)).toBe('true');
		expect(csvCell(['a', 'b'])).toBe('["a","b"]');
		expect(csvCell({ k: 1 })).toBe('{"k":1}');
	});

	test('headers: CSV is the default format, attachment named after the slug', async () => {
		const form = fixture('bugs');
		const r = await apiGet(ctx.h, `/forms/${form.id}/export`);
		expect(r.status).toBe(200);
		expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
		expect(r.headers.get('content-disposition')).toBe(
			'attachment; filename="bug-reports-responses.csv"',
		);
		const json = await apiGet(ctx.h, `/forms/${form.id}/export?format=json`);
		expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
		expect(json.headers.get('content-disposition')).toBe(
			'attachment; filename="bug-reports-responses.json"',
		);
		const merkle = await apiGet(
			ctx.h,
			`/forms/${form.id}/export?format=merkle`,
			ctx.h.keys.business,
		);
		expect(merkle.headers.get('content-disposition')).toBe(
			'attachment; filename="bug-reports-responses.merkle.json"',
		);
	});

	test('answers to question ids the form does not have are left out of CSV but kept in JSON', async () => {
		const form = fixture('bugs');
		const created = await ctx.h.control.submitResponse(form.id, {
			answers: [
				{ questionId: form.questionIds[0], questionLabel: 'Summary', value: 'known' },
				{ questionId: 'cunknownquestion', questionLabel: 'Ghost', value: 'ghost' },
			],
		});
		const rows = await csvOf(form.id);
		const row = rows.find((r) => r[0] === created.id) as string[];
		expect(row.slice(5)).toEqual(['known', '', '', '', '']);
		const json = JSON.parse(
			(await apiGet(ctx.h, `/forms/${form.id}/export?format=json`)).text,
		) as FormResponse[];
		expect(json.find((r) => r.id === created.id)?.answers).toEqual(created.answers);
	});
});

describe('json', () => {
	test.each(['feedback', 'research', 'rsvp'])(
		'%s: the array equals the concatenated pages, in both orders',
		async (name) => {
			const form = fixture(name);
			for (const order of ['newestFirst', 'oldestFirst'] as const) {
				await ctx.h.control.updateSettings({ responseOrder: order });
				const { responses } = await readAllPages(ctx.h, form.id, 1000);
				const r = await apiGet(ctx.h, `/forms/${form.id}/export?format=json`);
				expect(r.status).toBe(200);
				expect(JSON.parse(r.text)).toEqual(responses);
			}
		},
	);
});

describe('merkle', () => {
	test.each(['feedback', 'allowlist', 'bugs'])(
		'%s: loads with StandardMerkleTree, matches the package, proves every hex wallet',
		async (name) => {
			const form = fixture(name);
			const { responses } = await readAllPages(ctx.h, form.id, 1000);
			const r = await apiGet(ctx.h, `/forms/${form.id}/export?format=merkle`, ctx.h.keys.business);
			expect(r.status).toBe(200);
			expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
			const dump = JSON.parse(r.text) as ReturnType<StandardMerkleTree<[string]>['dump']>;
			expect(dump.format).toBe('standard-v1');
			expect(dump.leafEncoding).toEqual(['address']);

			const hexWallets = [
				...new Set(
					responses.map((x) => x.walletAddress).filter((w) => /^0x[0-9a-f]{40}$/i.test(w)),
				),
			];
			expect(hexWallets.length).toBeLessThan(responses.length); // anon_ wallets exist and are left out
			expect(dump.values.map((v) => v.value[0])).toEqual(hexWallets); // response order
			const tree = StandardMerkleTree.load(dump);
			expect(tree.root).toBe(dump.tree[0]);
			// Byte for byte what the package itself dumps for these leaves.
			expect(r.text).toBe(
				JSON.stringify(
					StandardMerkleTree.of(
						hexWallets.map((w) => [w]),
						['address'],
					).dump(),
				),
			);
			for (const wallet of hexWallets) {
				const proof = tree.getProof([wallet]);
				expect(StandardMerkleTree.verify(tree.root, ['address'], [wallet], proof)).toBe(true);
			}
			expect(() =>
				tree.getProof([
					responses.find((x) => x.walletAddress.startsWith('anon_'))?.walletAddress as string,
				]),
			).toThrow();
		},
	);

	test('rebuilt after the responses change; a form without hex wallets is a 400', async () => {
		const form = fixture('bugs');
		const before = JSON.parse(
			(await apiGet(ctx.h, `/forms/${form.id}/export?format=merkle`, ctx.h.keys.business)).text,
		) as { tree: string[] };
		const wallet = '0x00000000000000000000000000000000000000aa';
		await ctx.h.control.submitResponse(form.id, { walletAddress: wallet });
		const after = JSON.parse(
			(await apiGet(ctx.h, `/forms/${form.id}/export?format=merkle`, ctx.h.keys.business)).text,
		) as { tree: string[]; values: { value: string[] }[] };
		expect(after.tree[0]).not.toBe(before.tree[0]);
		expect(after.values[0].value[0]).toBe(wallet); // newest first

		const empty = await apiGet(
			ctx.h,
			`/forms/${fixture('rsvp').id}/export?format=merkle`,
			ctx.h.keys.business,
		);
		expect(empty.status).toBe(400);
		expect(JSON.parse(empty.text).error).toMatch(/hex wallet/);
		await ctx.h.control.submitResponse(fixture('rsvp').id, { walletAddress: 'anon_only' });
		expect(
			(
				await apiGet(
					ctx.h,
					`/forms/${fixture('rsvp').id}/export?format=merkle`,
					ctx.h.keys.business,
				)
			).status,
		).toBe(400);
	});

	test('forms above merkleMaxLeaves are refused with a clear 500', async () => {
		const small = await startHarness({ port: 0, merkleMaxLeaves: 10 });
		try {
			const id = (await small.control.form('research')).id;
			const r = await fetch(`${small.baseUrl}/forms/${id}/export?format=merkle`, {
				headers: { Authorization: `Bearer ${small.keys.business}` },
			});
			expect(r.status).toBe(500);
			expect(((await r.json()) as { error: string }).error).toMatch(/merkleMaxLeaves/);
		} finally {
			await small.close();
		}
	});
});

describe('streaming', () => {
	let big: RunningHarness;
	beforeAll(async () => {
		big = await startHarness({ port: 0, largeFormResponses: 50_000, rateLimit: false });
	});
	afterAll(() => big.close());

	/** Reads the first `bytes` of an export with node:http, then pauses, then aborts. */
	function readThenAbort(
		path: string,
		bytes: number,
	): Promise<{ headers: Record<string, string | string[] | undefined>; received: number }> {
		return new Promise((resolve, reject) => {
			const req = request(
				`${big.baseUrl}${path}`,
				{ headers: { Authorization: `Bearer ${big.keys.team}` } },
				(res) => {
					let received = 0;
					res.on('data', (chunk: Buffer) => {
						received += chunk.length;
						if (received >= bytes) {
							res.pause();
							// Give the server time to notice the paused socket before we go away.
							setTimeout(() => {
								req.destroy();
								resolve({ headers: res.headers, received });
							}, 200);
						}
					});
					res.on('error', () => undefined);
				},
			);
			req.on('error', (error) => {
				if (!req.destroyed) reject(error);
			});
			req.end();
		});
	}

	test('a big CSV export is chunked (no Content-Length) and an aborted download leaves the server healthy', async () => {
		const id = (await big.control.form('large')).id;
		const { headers, received } = await readThenAbort(`/forms/${id}/export?format=csv`, 256 * 1024);
		expect(headers['transfer-encoding']).toBe('chunked');
		expect(headers['content-length']).toBeUndefined();
		expect(received).toBeGreaterThanOrEqual(256 * 1024);
		const after = await fetch(`${big.baseUrl}/forms/${id}/responses?limit=1`, {
			headers: { Authorization: `Bearer ${big.keys.team}` },
		});
		expect(after.status).toBe(200);
		const log = await big.control.requestLog();
		expect(log.find((e) => e.path.endsWith('/export'))?.status).toBe(200);
	});

	test('the full JSON export of 50,000 responses parses and counts right', async () => {
		const id = (await big.control.form('large')).id;
		const r = await fetch(`${big.baseUrl}/forms/${id}/export?format=json`, {
			headers: { Authorization: `Bearer ${big.keys.team}` },
		});
		const parsed = (await r.json()) as FormResponse[];
		expect(parsed).toHaveLength(50_000);
		expect(new Set(parsed.map((x) => x.id)).size).toBe(50_000);
	});
});
