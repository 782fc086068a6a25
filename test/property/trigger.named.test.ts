/**
 * Named schedules for the cases of issue 19 (items 1–4 and 6), on the same simulated service
 * and driver as the fuzzer: each is one concrete story the fuzzer can also find, written down
 * so that a failure reads as the issue does.
 */
import { REQUEST_MS } from './run';
import { aliveIds, cursorOf, drain, MINUTE, setUp, timesEmitted } from './named';

describe('Forms.wtf Trigger, the cases of issue 19 on the simulated service', () => {
	describe('1. a poll cut short, then a response it read changes place: the boundary response is still emitted', () => {
		it('oldest-first: a read response is updated (it moves to the end)', async () => {
			const { server, driver } = setUp({ order: 'oldestFirst', pageCap: 7 });
			expect((await driver.poll()).errors).toEqual([]);
			// A busy 40 minutes: 20 responses, 2 minutes apart.
			server.apply({ kind: 'advance', ms: 40 * MINUTE });
			server.seed(0, 20, 0, 2 * MINUTE);
			const ids = aliveIds(server);
			const cut = await driver.poll({ budgetMs: 1 });
			expect(cut.emitted.map((e) => e.id)).toEqual(ids.slice(0, 7));
			// The 2nd response read is updated: every response after it moves up one place.
			server.apply({ kind: 'update', form: 0, pick: 1 });
			const boundary = ids[7];
			await drain(driver);
			expect(timesEmitted(driver.emitted, boundary)).toBe(1);
			for (const id of ids) expect(timesEmitted(driver.emitted, id)).toBeGreaterThanOrEqual(1);
		});

		it('newest-first: a read response is deleted', async () => {
			const { server, driver } = setUp({ order: 'newestFirst', pageCap: 7 });
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: 40 * MINUTE });
			server.seed(0, 20, 0, 2 * MINUTE);
			const newestFirst = aliveIds(server).reverse();
			const cut = await driver.poll({ budgetMs: 1 });
			expect(cut.emitted.map((e) => e.id).sort()).toEqual(newestFirst.slice(0, 7).sort());
			// One of the responses read is deleted: every older one moves up one place.
			server.apply({ kind: 'delete', form: 0, pick: 17 });
			const boundary = newestFirst[7];
			await drain(driver);
			expect(timesEmitted(driver.emitted, boundary)).toBe(1);
			for (const id of aliveIds(server)) expect(timesEmitted(driver.emitted, id)).toBe(1);
		});
	});

	describe('2. responses that arrive while the activation poll reads: existing if its read saw them, new if not', () => {
		it('during a 429 wait of the activation poll, before the form is read: the read sees it, so it is existing', async () => {
			const { server, driver } = setUp({ watch: 'allForms', formCount: 1 });
			server.seed(0, 5, MINUTE, 1_000);
			// The listing answers (the activation moment), then the form's read gets a 429 with
			// Retry-After 8, and while that is waited out a response arrives.
			server.arm(2, (s) =>
				s.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 8 } }, 1, 0),
			);
			server.arm(3, { kind: 'submit', form: 0, count: 1 });
			const activation = await driver.poll();
			expect(activation.errors).toEqual([]);
			const arrived = aliveIds(server).at(-1) as string;
			expect(server.responses.find((r) => r.id === arrived)?.versions[0].atMs).toBeGreaterThan(
				activation.startMs + 8_000,
			);
			expect(activation.requests.some((r) => r.ids?.includes(arrived))).toBe(true);
			await drain(driver);
			expect(timesEmitted(driver.emitted, arrived)).toBe(0);
		});

		it('on the first form of All Forms while the second is read: its read is over, so it is new', async () => {
			const { server, driver } = setUp({ watch: 'allForms', formCount: 2, pageCap: 7 });
			server.seed(0, 3, MINUTE, 1_000);
			server.seed(1, 20, MINUTE, 1_000);
			server.apply({ kind: 'advance', ms: 400 });
			// Request 1 lists the forms, 2 reads form0, 3.. read form1's pages: a response arrives
			// on form0 meanwhile.
			server.arm(4, { kind: 'submit', form: 0, count: 1 });
			const activation = await driver.poll();
			expect(activation.errors).toEqual([]);
			const arrived = aliveIds(server, 'form0').at(-1) as string;
			expect(activation.requests.some((r) => r.ids?.includes(arrived))).toBe(false);
			await drain(driver);
			expect(timesEmitted(driver.emitted, arrived)).toBe(1);
		});
	});

	it('3. All Forms: one form answering 404 and one 403 do not hold up the others on that poll', async () => {
		const { server, driver } = setUp({ watch: 'allForms', formCount: 3 });
		server.seed(0, 2, MINUTE, 1_000);
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 5_000 });
		server.apply({ kind: 'submit', form: 0, count: 3 });
		server.apply({ kind: 'submit', form: 1, count: 1 });
		server.apply({ kind: 'submit', form: 2, count: 1 });
		server.deny(1, 404, 100);
		server.deny(2, 403, 100);
		const poll = await driver.poll();
		expect(poll.errors).toEqual([]);
		expect(poll.emitted.filter((e) => e.formId === 'form0').map((e) => e.id)).toEqual(
			aliveIds(server, 'form0').slice(-3),
		);
		server.heal();
		await drain(driver);
	});

	it('4. a response whose submittedAt is null, returned on every poll, is emitted exactly once', async () => {
		const { server, driver } = setUp({});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 1_000 });
		server.apply({ kind: 'submitGarbled', form: 0, garble: 'null' });
		const [undated] = aliveIds(server);
		// Other responses keep arriving (the cursor moves on); the undated one stays in every answer.
		for (let i = 0; i < 6; i++) {
			server.apply({ kind: 'advance', ms: 20_000 });
			server.apply({ kind: 'submit', form: 0, count: 1 });
			const poll = await driver.poll();
			expect(poll.errors).toEqual([]);
			expect(poll.requests.some((r) => r.ids?.includes(undated))).toBe(true);
		}
		expect(timesEmitted(driver.emitted, undated)).toBe(1);
		for (const id of aliveIds(server))
			expect(timesEmitted(driver.emitted, id)).toBeGreaterThanOrEqual(1);
	});

	it('6. a 429 with Retry-After 8 in a poll with a 3 s budget: the poll ends within its budget, the cursor stays, the responses come later', async () => {
		const { server, driver } = setUp({});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		server.apply({ kind: 'submit', form: 0, count: 3 });
		const before = cursorOf(driver, 'form0');
		server.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 8 } }, 1);
		const poll = await driver.poll({ budgetMs: 3_000 });
		expect(poll.endMs - poll.startMs).toBeLessThanOrEqual(
			3_000 + REQUEST_MS * poll.requests.length,
		);
		expect(poll.emitted).toEqual([]);
		const after = cursorOf(driver, 'form0');
		expect({ since: after?.since, seen: after?.seen }).toEqual({
			since: before?.since,
			seen: before?.seen,
		});
		await drain(driver);
		for (const id of aliveIds(server)) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});
});
