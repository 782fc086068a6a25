/**
 * Named schedules for what an adversarial review of the trigger and the fuzzer's long runs
 * found, on the simulated service: servers that serve very small pages, a burst of arrivals in
 * the middle of a read, a `since` compared by whole seconds, failing forms of an All Forms
 * trigger, one form of a listing without an id. Each ends with the oracle's full check.
 */
import { aliveIds, drain, MINUTE, setUp, timesEmitted } from './named';

describe('Forms.wtf Trigger against servers found hostile', () => {
	it('a burst of arrivals between two pages of the activation read (newest first, small pages) fails no poll', async () => {
		const { server, driver } = setUp({ order: 'newestFirst', pageCap: 7, lookBackMinutes: 0 });
		server.apply({ kind: 'submit', form: 0, count: 7 });
		server.apply({ kind: 'submit', form: 0, count: 1 });
		// Before the read's second page: 8 in one millisecond push everything read 8 places on.
		server.arm(3, { kind: 'burst', form: 0, count: 8 });
		const activation = await driver.poll();
		expect(activation.errors).toEqual([]);
		await drain(driver);
		// Those of the burst the activation's read saw are existing; the others are new.
		const seen = new Set(activation.requests.flatMap((r) => r.ids ?? []));
		const burst = aliveIds(server).slice(8);
		expect(burst.filter((id) => !seen.has(id)).length).toBeGreaterThan(0);
		for (const id of burst) expect(timesEmitted(driver.emitted, id)).toBe(seen.has(id) ? 0 : 1);
	});

	it.each([2, 3, 4])(
		'pages of %i (no bigger than the overlap between pages) still move on, poll after poll',
		async (pageCap) => {
			const { server, driver } = setUp({ pageCap, lookBackMinutes: 0 });
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: 2 * MINUTE });
			server.seed(0, 30, 0, 1_000);
			for (let poll = 0; poll < 3; poll++) expect((await driver.poll()).errors).toEqual([]);
			await drain(driver);
			for (const id of aliveIds(server)) expect(timesEmitted(driver.emitted, id)).toBe(1);
		},
	);

	it('a page that holds only what was read before (fewer than the overlap) does not stop the form', async () => {
		const { server, driver } = setUp({ pageCap: 10, lookBackMinutes: 0 });
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: MINUTE });
		server.seed(0, 15, 0, 1_000);
		// The read's second page holds 3 responses: the ones the overlap asks for again.
		server.arm(2, (s) => Object.assign(s.settings, { pageCap: 3 }));
		server.arm(3, (s) => Object.assign(s.settings, { pageCap: 10 }));
		expect((await driver.poll()).errors).toEqual([]);
		await drain(driver);
		for (const id of aliveIds(server)) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it('a response that shows up late while a read is cut short, behind where it stopped, is still emitted', async () => {
		const { server, driver } = setUp({ pageCap: 4, lookBackMinutes: 2 });
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: MINUTE });
		server.apply({ kind: 'submit', form: 0, count: 160 });
		// Pages of 4 that overlap by 1: the poll's 40 pages end well before the last response.
		await driver.poll();
		expect(driver.session.triggerState?.forms).toMatchObject({ form0: { resume: {} } });
		// A minute late, inside the 2-minute window: its place is behind where the read stopped.
		server.apply({ kind: 'late', form: 0, count: 1, lateByMs: MINUTE });
		const late = server.responses[server.responses.length - 1].id;
		// An update far later moves the newest timestamp the read will see beyond that window.
		server.apply({ kind: 'advance', ms: 3 * MINUTE });
		server.apply({ kind: 'update', form: 0, pick: 0 });
		await drain(driver);
		expect(timesEmitted(driver.emitted, late)).toBe(1);
	});

	it('a since compared by whole seconds never brings back what the window let go of', async () => {
		const { server, driver } = setUp({
			since: 'wholeSeconds',
			lookBackMinutes: 0,
			startOffsetMs: 0,
		});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 100 });
		server.apply({ kind: 'submit', form: 0, count: 4 });
		expect((await driver.poll()).emitted).toHaveLength(4);
		// The oldest of them now comes back without a date, inside the second the window starts in.
		server.apply({ kind: 'garble', form: 0, pick: 0, garble: 'null' });
		server.apply({ kind: 'advance', ms: 100 });
		server.apply({ kind: 'submit', form: 0, count: 1 });
		expect((await driver.poll()).emitted).toHaveLength(1);
		await drain(driver);
		for (const id of aliveIds(server)) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it('All Forms: forms that keep failing never take the others’ turn, nor draw more than a few failed reads a poll', async () => {
		const { server, driver } = setUp({ watch: 'allForms', formCount: 8 });
		expect((await driver.poll()).errors).toEqual([]);
		// Six forms answer 503 to every attempt; form6 and form7 have new responses.
		for (const form of [0, 1, 2, 3, 4, 5]) {
			server.apply({ kind: 'submit', form, count: 1 });
			server.inject({ kind: 'serverError', status: 503 }, 1_000, form);
		}
		server.apply({ kind: 'submit', form: 6, count: 2 });
		server.apply({ kind: 'submit', form: 7, count: 1 });
		// The first poll stops once three forms failed in a row (each read tries 4 times); the
		// next ones read the others first.
		const polls = [await driver.poll(), await driver.poll(), await driver.poll()];
		expect(polls.flatMap((poll) => poll.emitted.map((e) => e.formId)).sort()).toEqual([
			'form6',
			'form6',
			'form7',
		]);
		for (const poll of polls)
			expect(poll.requests.filter((r) => r.faulted).length).toBeLessThanOrEqual(12);
		server.heal();
		await drain(driver);
		for (let form = 0; form < 8; form++) {
			for (const id of aliveIds(server, `form${form}`))
				expect(timesEmitted(driver.emitted, id)).toBe(1);
		}
	});
});
