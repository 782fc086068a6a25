/** The data layer: seed determinism, the fast JSON path, timestamps, and the response store against a naive model. */
import { buildDataset, generateTimestamps } from './data';
import { ResponseGenerator } from './generator';
import { Prng, normaliseSeed } from './prng';
import { ResponseStore } from './responseStore';
import { startHarness, type FormResponse, type Question, type RunningHarness } from './index';

describe('seed determinism over HTTP', () => {
	let a: RunningHarness;
	let b: RunningHarness;
	let c: RunningHarness;
	beforeAll(async () => {
		[a, b, c] = await Promise.all([
			startHarness({ port: 0, seed: 7, largeFormResponses: 5000, rateLimit: false }),
			startHarness({ port: 0, seed: 7, largeFormResponses: 5000, rateLimit: false }),
			startHarness({ port: 0, seed: 8, largeFormResponses: 5000, rateLimit: false }),
		]);
	});
	afterAll(() => Promise.all([a.close(), b.close(), c.close()]));

	async function body(h: RunningHarness, path: string): Promise<string> {
		const r = await fetch(`${h.baseUrl}${path}`, {
			headers: { Authorization: `Bearer ${h.keys.business}` },
		});
		expect(r.status).toBe(200);
		return r.text();
	}

	test('the same seed gives the same bytes on every endpoint; another seed does not', async () => {
		const formsA = await body(a, '/forms');
		expect(await body(b, '/forms')).toBe(formsA);
		expect(await body(c, '/forms')).not.toBe(formsA);
		const ids = (
			JSON.parse(formsA) as { forms: { id: string; responseCount: number }[] }
		).forms.filter((f) => f.responseCount > 0);
		for (const { id } of ids) {
			for (const path of [
				`/forms/${id}`,
				`/forms/${id}/responses?limit=1000`,
				`/forms/${id}/responses?limit=1000&offset=1000`,
				`/forms/${id}/export`,
				`/forms/${id}/export?format=json`,
			]) {
				expect([path, await body(b, path)]).toEqual([path, await body(a, path)]);
			}
		}
		const cForms = (await c.control.listForms()).filter((f) => f.owner === 'demo');
		const cFeedback = cForms.find((f) => f.fixture === 'feedback');
		const aFeedback = (await a.control.listForms()).find((f) => f.fixture === 'feedback');
		expect(cFeedback?.title).toBe(aFeedback?.title); // fixtures are fixed…
		expect(cFeedback?.id).not.toBe(aFeedback?.id); // …ids and responses come from the seed
		const pageA = JSON.parse(await body(a, `/forms/${aFeedback?.id}/responses`)) as {
			responses: FormResponse[];
		};
		const pageC = JSON.parse(await body(c, `/forms/${cFeedback?.id}/responses`)) as {
			responses: FormResponse[];
		};
		expect(pageC.responses.map((r) => r.walletAddress)).not.toEqual(
			pageA.responses.map((r) => r.walletAddress),
		);
	});

	test('text seeds work and are stable', () => {
		const ids = (seed: string): string[] =>
			buildDataset(normaliseSeed(seed), 0).forms.map((f) => f.id);
		expect(ids('demo')).toEqual(ids('demo'));
		expect(ids('demo')).not.toEqual(ids('demo2'));
		expect(normaliseSeed('42')).toBe(42);
		expect(normaliseSeed(undefined)).toBe(1);
	});
});

describe('generator', () => {
	test('the fast JSON path gives exactly JSON.stringify of the object, for every seeded response', () => {
		const dataset = buildDataset(3, 0);
		let checked = 0;
		for (const form of dataset.forms) {
			for (let i = 0; i < form.store.size; i++) {
				const raw = form.store.generator.raw(i, 1_700_000_000_000 + i);
				expect(form.store.generator.toJson(raw)).toBe(
					JSON.stringify(form.store.generator.toObject(raw)),
				);
				checked++;
			}
		}
		expect(checked).toBeGreaterThan(3000);
	});

	test('ids encode the record index and sort like it; foreign ids are not recognised', () => {
		const g = new ResponseGenerator(99, []);
		const ids = [0, 1, 35, 36, 1295, 1296, 999_999].map((i) => g.idOf(i));
		expect([...ids].sort()).toEqual(ids);
		ids.forEach((id) => expect(id).toMatch(/^c[0-9a-z]{24}$/));
		expect(g.recordOf(ids[6])).toBe(999_999);
		expect(g.recordOf(`${ids[6].slice(0, -1)}${ids[6].endsWith('a') ? 'b' : 'a'}`)).toBe(-1);
		expect(new ResponseGenerator(98, []).recordOf(ids[2])).toBe(-1);
	});

	test('timestamps: ascending, inside the span, with a burst of three in the middle', () => {
		const ts = generateTimestamps(1000, 1_000_000, 2_000_000, new Prng(5));
		for (let i = 1; i < ts.length; i++) expect(ts[i]).toBeGreaterThanOrEqual(ts[i - 1]);
		expect(ts[0]).toBeGreaterThanOrEqual(1_000_000);
		expect(ts[999]).toBeLessThan(2_000_000);
		expect(ts[501]).toBe(ts[500]);
		expect(ts[502]).toBe(ts[500]);
		expect(Number.isInteger(ts[123])).toBe(true);
	});
});

describe('ResponseStore against a naive model', () => {
	const questions: Question[] = [
		{ id: 'q1', type: 'SHORT_TEXT', label: 'Name', required: true, order: 0 },
	];

	function model(store: ResponseStore): FormResponse[] {
		const all: FormResponse[] = [];
		for (let i = 0; i < store.size; i++) all.push(store.record(i));
		return all.sort((x, y) =>
			x.submittedAt !== y.submittedAt
				? x.submittedAt < y.submittedAt
					? -1
					: 1
				: x.id < y.id
					? -1
					: x.id > y.id
						? 1
						: 0,
		);
	}

	test('random inserts (single and merged batches), explicit ids and updates keep pages, since and totals right', () => {
		const rng = new Prng(42);
		const base = generateTimestamps(500, 1_000_000, 1_500_000, new Prng(1));
		const store = new ResponseStore(new ResponseGenerator(7, questions), base);
		const iso = (ms: number): string => new Date(ms).toISOString();
		for (let round = 0; round < 40; round++) {
			const op = rng.int(0, 3);
			if (op === 0) {
				// A batch big enough to take the merge path, timestamps scattered and some colliding.
				const drafts = Array.from({ length: rng.int(33, 60) }, () => ({
					submittedAt: iso(rng.chance(0.3) ? base[rng.int(0, 499)] : rng.int(900_000, 1_600_000)),
				}));
				store.insert(drafts, 0);
			} else if (op === 1) {
				store.insert(
					[
						{ submittedAt: iso(base[rng.int(0, 499)]), id: `zz-explicit-${round}` },
						{ submittedAt: iso(base[rng.int(0, 499)]), id: `00-explicit-${round}` },
					],
					0,
				);
			} else if (op === 2) {
				const victim = store.record(rng.int(0, store.size - 1));
				store.update(
					victim.id,
					rng.chance(0.5) ? { submittedAt: iso(rng.int(900_000, 1_600_000)) } : {},
					1_200_000,
				);
			} else {
				store.insert([{}], rng.int(1_000_000, 1_700_000));
			}
			const expected = model(store);
			const ids = (
				order: 'oldestFirst' | 'newestFirst',
				sinceMs: number | null,
				inclusive: boolean,
			): string[] => {
				const out: string[] = [];
				for (let offset = 0; ; offset += 37) {
					const page = store.page({ offset, limit: 37, sinceMs, sinceInclusive: inclusive, order });
					out.push(...page.records.map((r) => store.record(r).id));
					if (!page.hasMore) return out;
				}
			};
			expect(ids('oldestFirst', null, false)).toEqual(expected.map((r) => r.id));
			expect(ids('newestFirst', null, false)).toEqual(expected.map((r) => r.id).reverse());
			const pivot = expected[rng.int(0, expected.length - 1)].submittedAt;
			expect(ids('oldestFirst', Date.parse(pivot), false)).toEqual(
				expected.filter((r) => r.submittedAt > pivot).map((r) => r.id),
			);
			expect(ids('newestFirst', Date.parse(pivot), true)).toEqual(
				expected
					.filter((r) => r.submittedAt >= pivot)
					.map((r) => r.id)
					.reverse(),
			);
			expect(
				store.page({
					offset: 0,
					limit: 1,
					sinceMs: Date.parse(pivot),
					sinceInclusive: true,
					order: 'oldestFirst',
				}).total,
			).toBe(expected.filter((r) => r.submittedAt >= pivot).length);
		}
		expect(store.size).toBeGreaterThan(600);
	});
});
