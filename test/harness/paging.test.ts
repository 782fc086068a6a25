/** Paging (limit/offset/total/hasMore), both orders, and the `since` filter in both modes. */
import { type FormResponse, type ResponsesPage } from './index';
import { apiJson, compareOldestFirst, readAllPages, useHarness } from './testHelpers';

const ctx = useHarness();
const fixture = (name: string) => ctx.fixture(name);

function ids(responses: FormResponse[]): string[] {
	return responses.map((r) => r.id);
}

/** A timestamp shared by at least `size` responses (the generator guarantees a burst of 3 per form of 10+). */
function burstTimestamp(all: FormResponse[], size: number): string {
	const counts = new Map<string, number>();
	for (const r of all) counts.set(r.submittedAt, (counts.get(r.submittedAt) ?? 0) + 1);
	const hit = [...counts].find(([, n]) => n >= size);
	if (hit === undefined) throw new Error('no burst found');
	return hit[0];
}

describe('pages', () => {
	test.each(['feedback', 'research', 'bugs', 'rsvp'])(
		'concatenated pages of %s hold each response once, in order, in both orders',
		async (name) => {
			const form = fixture(name);
			const reference = await readAllPages(ctx.h, form.id, 1000);
			expect(reference.responses).toHaveLength(form.responseCount);
			expect(new Set(ids(reference.responses)).size).toBe(form.responseCount);
			// Newest first by default: the exact reverse of (submittedAt, id) ascending.
			expect(ids(reference.responses)).toEqual(
				ids([...reference.responses].sort(compareOldestFirst).reverse()),
			);

			for (const limit of [1, 7, 100, 333]) {
				if (limit === 1 && form.responseCount > 200) continue; // 2,500 single-response requests add nothing
				const paged = await readAllPages(ctx.h, form.id, limit);
				expect(ids(paged.responses)).toEqual(ids(reference.responses));
				expect(new Set(paged.totals)).toEqual(new Set([form.responseCount]));
			}

			await ctx.h.control.updateSettings({ responseOrder: 'oldestFirst' });
			for (const limit of [13, 1000]) {
				const oldest = await readAllPages(ctx.h, form.id, limit);
				expect(ids(oldest.responses)).toEqual(ids(reference.responses).reverse());
			}
		},
	);

	test('default limit is 100; hasMore and total at the edges', async () => {
		const form = fixture('research'); // 180 responses
		const first = await apiJson<ResponsesPage>(ctx.h, `/forms/${form.id}/responses`);
		expect(first.responses).toHaveLength(100);
		expect(first).toMatchObject({ total: 180, hasMore: true });
		const last = await apiJson<ResponsesPage>(ctx.h, `/forms/${form.id}/responses?offset=100`);
		expect(last.responses).toHaveLength(80);
		expect(last).toMatchObject({ total: 180, hasMore: false });
		const exact = await apiJson<ResponsesPage>(
			ctx.h,
			`/forms/${form.id}/responses?offset=80&limit=100`,
		);
		expect(exact).toMatchObject({ total: 180, hasMore: false });
		expect(exact.responses).toHaveLength(100);
		const beyond = await apiJson<ResponsesPage>(ctx.h, `/forms/${form.id}/responses?offset=5000`);
		expect(beyond).toEqual({ responses: [], total: 180, hasMore: false });
		const empty = await apiJson<ResponsesPage>(ctx.h, `/forms/${fixture('rsvp').id}/responses`);
		expect(empty).toEqual({ responses: [], total: 0, hasMore: false });
	});

	test('responses have the documented fields and value formats', async () => {
		const { responses } = await readAllPages(ctx.h, fixture('feedback').id, 1000);
		const wallets = responses.map((r) => r.walletAddress);
		expect(wallets.some((w) => /^0x[0-9a-f]{40}$/.test(w))).toBe(true);
		expect(
			wallets.some((w) =>
				/^anon_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(w),
			),
		).toBe(true);
		expect(wallets.every((w) => /^0x[0-9a-f]{40}$/.test(w) || w.startsWith('anon_'))).toBe(true);
		expect(responses.some((r) => r.ensName === null)).toBe(true);
		expect(responses.some((r) => typeof r.ensName === 'string' && r.ensName.endsWith('.eth'))).toBe(
			true,
		);
		for (const r of responses) {
			expect(Object.keys(r)).toEqual([
				'id',
				'walletAddress',
				'ensName',
				'submittedAt',
				'durationSeconds',
				'answers',
			]);
			expect(r.submittedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
			expect(Number.isInteger(r.durationSeconds)).toBe(true);
			for (const a of r.answers)
				expect(Object.keys(a)).toEqual(['questionId', 'questionLabel', 'value']);
		}
		const byLabel = (label: string): unknown[] =>
			responses.flatMap((r) =>
				r.answers.filter((a) => a.questionLabel === label).map((a) => a.value),
			);
		expect(new Set(byLabel('How would you rate the product?'))).toEqual(
			new Set(['1', '2', '3', '4', '5']),
		);
		expect(new Set(byLabel('How likely are you to recommend us to a friend?')).size).toBe(11);
		expect(new Set(byLabel('May we contact you?'))).toEqual(new Set(['Yes', 'No']));
		expect(
			byLabel('Which features do you use?').some((v) => typeof v === 'string' && v.includes(', ')),
		).toBe(true);
		// Both "Comments" questions answered in one response, under different question ids.
		expect(
			responses.some(
				(r) =>
					new Set(r.answers.filter((a) => a.questionLabel === 'Comments').map((a) => a.questionId))
						.size === 2,
			),
		).toBe(true);

		const research = (await readAllPages(ctx.h, fixture('research').id, 1000)).responses;
		const values = research.flatMap((r) => r.answers.map((a) => a.value));
		expect(values.some((v) => typeof v === 'number')).toBe(true);
		expect(values.some((v) => Array.isArray(v))).toBe(true);
		const allowlist = (await readAllPages(ctx.h, fixture('allowlist').id, 1000)).responses;
		expect(
			allowlist
				.flatMap((r) => r.answers)
				.filter((a) => a.questionLabel === 'I accept the allowlist terms')
				.every((a) => a.value === 'accepted'),
		).toBe(true);
	});
});

describe('since', () => {
	test('strictly after by default, >= with sinceInclusive, at a same-millisecond burst', async () => {
		const form = fixture('feedback');
		const all = (await readAllPages(ctx.h, form.id, 1000)).responses;
		const t = burstTimestamp(all, 3);
		const after = all.filter((r) => r.submittedAt > t);
		const atOrAfter = all.filter((r) => r.submittedAt >= t);
		expect(atOrAfter.length - after.length).toBeGreaterThanOrEqual(3);

		const exclusive = await readAllPages(ctx.h, form.id, 50, `&since=${encodeURIComponent(t)}`);
		expect(ids(exclusive.responses)).toEqual(ids(after));
		expect(new Set(exclusive.totals)).toEqual(new Set([after.length]));

		await ctx.h.control.updateSettings({ sinceInclusive: true });
		const inclusive = await readAllPages(ctx.h, form.id, 50, `&since=${encodeURIComponent(t)}`);
		expect(ids(inclusive.responses)).toEqual(ids(atOrAfter));
		expect(new Set(inclusive.totals)).toEqual(new Set([atOrAfter.length]));

		await ctx.h.control.updateSettings({ responseOrder: 'oldestFirst' });
		const inclusiveOldest = await readAllPages(
			ctx.h,
			form.id,
			9,
			`&since=${encodeURIComponent(t)}`,
		);
		expect(ids(inclusiveOldest.responses)).toEqual(ids(atOrAfter).reverse());
	});

	test('other date spellings and bounds outside the data', async () => {
		const form = fixture('bugs');
		const all = (await readAllPages(ctx.h, form.id, 1000)).responses;
		const pivot = all[10].submittedAt;
		const withOffset = new Date(Date.parse(pivot) + 2 * 3_600_000)
			.toISOString()
			.replace('Z', '+02:00');
		const viaOffset = await apiJson<ResponsesPage>(
			ctx.h,
			`/forms/${form.id}/responses?since=${encodeURIComponent(withOffset)}`,
		);
		expect(viaOffset.total).toBe(all.filter((r) => r.submittedAt > pivot).length);
		const future = await apiJson<ResponsesPage>(
			ctx.h,
			`/forms/${form.id}/responses?since=2999-01-01T00:00:00.000Z`,
		);
		expect(future).toEqual({ responses: [], total: 0, hasMore: false });
		const past = await apiJson<ResponsesPage>(
			ctx.h,
			`/forms/${form.id}/responses?since=2000-01-01`,
		);
		expect(past.total).toBe(all.length);
	});

	test('a burst submitted now sits exactly on the boundary', async () => {
		const form = fixture('bugs');
		const burst = await ctx.h.control.submitBurst(form.id, 4);
		expect(new Set(burst.map((r) => r.submittedAt)).size).toBe(1);
		const t = burst[0].submittedAt;
		const exclusive = await apiJson<ResponsesPage>(ctx.h, `/forms/${form.id}/responses?since=${t}`);
		expect(exclusive.total).toBe(0);
		await ctx.h.control.updateSettings({ sinceInclusive: true });
		const inclusive = await apiJson<ResponsesPage>(ctx.h, `/forms/${form.id}/responses?since=${t}`);
		expect(inclusive.total).toBe(4);
		// Same millisecond: newest first falls back to id, descending.
		expect(ids(inclusive.responses)).toEqual(ids(burst).sort().reverse());
		const oneMsEarlier = new Date(Date.parse(t) - 1).toISOString();
		await ctx.h.control.updateSettings({ sinceInclusive: false });
		expect(
			(await apiJson<ResponsesPage>(ctx.h, `/forms/${form.id}/responses?since=${oneMsEarlier}`))
				.total,
		).toBe(4);
	});
});
