/**
 * What is existing and what is new around the moment of activation (docs/trigger-promise.md),
 * on the simulated service: existing = submitted before the activation's second, or in that
 * second and seen by the activation's read of its form; everything after that second is new.
 * Each story ends with the oracle's check (drain).
 */
import { aliveIds, drain, MINUTE, setUp, timesEmitted } from './named';

describe('existing and new around the activation second', () => {
	it.each([
		['oldest first, exclusive since', 'oldestFirst', 'exclusive'],
		['newest first, inclusive since', 'newestFirst', 'inclusive'],
	] as const)(
		'responses submitted in the activation second and seen by its read are existing; one submitted seconds later is new (%s)',
		async (_name, order, since) => {
			const { server, driver } = setUp({ order, since, startOffsetMs: 300 });
			server.seed(0, 1_200, MINUTE, 1_000);
			// 7 in the activation's second, 5 ms before the activation poll reads.
			server.apply({ kind: 'submit', form: 0, count: 7, gapMs: 1 });
			const inTheSecond = aliveIds(server).slice(-7);
			server.apply({ kind: 'advance', ms: 5 });
			const activation = await driver.poll();
			expect(activation.errors).toEqual([]);
			expect(activation.requests.some((r) => inTheSecond.every((id) => r.ids?.includes(id)))).toBe(
				true,
			);
			server.apply({ kind: 'advance', ms: 2_000 });
			server.apply({ kind: 'submit', form: 0, count: 1 });
			const after = aliveIds(server).at(-1) as string;
			await drain(driver);
			for (const id of inTheSecond) expect(timesEmitted(driver.emitted, id)).toBe(0);
			expect(timesEmitted(driver.emitted, after)).toBe(1);
		},
	);

	it('a burst in the activation second between two pages of its read: those the read saw are existing, the others new', async () => {
		const { server, driver } = setUp({ order: 'newestFirst', pageCap: 100, lookBackMinutes: 0 });
		server.apply({ kind: 'submit', form: 0, count: 150, gapMs: 1 });
		// Before the read's second page: 8 in one millisecond push everything read 8 places on.
		server.arm(3, { kind: 'burst', form: 0, count: 8 });
		const activation = await driver.poll();
		expect(activation.errors).toEqual([]);
		expect(activation.startMs % 1000).toBeLessThan(700);
		await drain(driver);
		const seen = new Set(activation.requests.flatMap((r) => r.ids ?? []));
		const burst = aliveIds(server).slice(150);
		expect(burst.filter((id) => !seen.has(id)).length).toBeGreaterThan(0);
		for (const id of burst) expect(timesEmitted(driver.emitted, id)).toBe(seen.has(id) ? 0 : 1);
		for (const id of aliveIds(server).slice(0, 150))
			expect(timesEmitted(driver.emitted, id)).toBe(0);
	});

	it('All Forms: a response on a form already read, while the activation reads another, is new', async () => {
		const { server, driver } = setUp({ watch: 'allForms', formCount: 2, pageCap: 100 });
		server.seed(0, 3, MINUTE, 1_000);
		server.seed(1, 250, 5 * MINUTE, 1_000);
		server.apply({ kind: 'advance', ms: 400 });
		// Request 1 lists the forms, then form0 and form1 are read: a response arrives on form0
		// before the 4th request, after form0's read.
		server.arm(4, { kind: 'submit', form: 0, count: 1 });
		const activation = await driver.poll();
		expect(activation.errors).toEqual([]);
		const arrived = aliveIds(server, 'form0').at(-1) as string;
		expect(activation.requests.some((r) => r.ids?.includes(arrived))).toBe(false);
		await drain(driver);
		expect(timesEmitted(driver.emitted, arrived)).toBe(1);
	});

	it('a service without a Date header: what was submitted before activation stays out, what came after comes', async () => {
		const { server, driver } = setUp({ dateAbsent: true });
		server.seed(0, 20, MINUTE, 1_000);
		const existing = aliveIds(server);
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 5_000 });
		server.apply({ kind: 'submit', form: 0, count: 3, gapMs: 1_000 });
		await drain(driver);
		for (const id of existing) expect(timesEmitted(driver.emitted, id)).toBe(0);
		for (const id of aliveIds(server).slice(-3)) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});
});

describe('New Response (Ignore): an update of an existing response is not a new response', () => {
	it.each([
		['only new', {}],
		['the newest 3', { newestCount: 3 }],
		['since a date 5 s before activation', { sinceAgoMs: 5_000 }],
	] as const)(
		'%s: an update within the look-back window of a response existing and not emitted is not emitted',
		async (_name, patch) => {
			const { server, driver } = setUp({
				version: 2,
				updatedResponses: 'ignore',
				lookBackMinutes: 10,
				...patch,
			});
			server.seed(0, 10, MINUTE, 1_000);
			const existing = aliveIds(server);
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: 2_000 });
			server.apply({ kind: 'update', form: 0, pick: 0 });
			await drain(driver);
			expect(timesEmitted(driver.emitted, existing[0])).toBe(0);
		},
	);
});
