/**
 * Reads that span pages and polls, on the simulated service: within the assumptions (pages of
 * 100 or more, a listing in order, edits at human rates) every response comes once and nothing
 * is named; beyond them (pages of 1 to 99, edits after every page, a shuffled listing) nothing
 * comes twice, and a response that never comes has its form named. Each story ends with the
 * oracle's check (drain), which judges by the same line.
 */
import type { SimServer } from '../sim/server';
import { aliveIds, drain, MINUTE, settingsWith, setUp, timesEmitted } from './named';
import { check, formatViolations } from './oracle';
import type { Driver } from './run';
import { runSchedule } from './run';
import type { Schedule } from './schedule';

/** Versions (`<id>#<n>`) emitted more than once. */
function emittedTwice(driver: Driver): string[] {
	const tags = driver.emitted.map((e) => e.tag);
	return [...new Set(tags.filter((tag, i) => tags.indexOf(tag) !== i))];
}

/** The responses of form0 that exist now and never came. */
function neverEmitted(server: SimServer, driver: Driver): string[] {
	return aliveIds(server).filter((id) => timesEmitted(driver.emitted, id) === 0);
}

describe('within the assumptions: every response once, nothing named', () => {
	it.each([
		['oldest first, a response it read is updated (it moves to the end)', 'oldestFirst', 'update'],
		['newest first, a response it read is deleted', 'newestFirst', 'delete'],
	] as const)(
		'a poll cut after one page of 100, then %s: every response comes once',
		async (_name, order, edit) => {
			const { server, driver } = setUp({ order, pageCap: 100, requestMs: 100 });
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: 40 * MINUTE });
			server.seed(0, 250, 0, 5_000);
			const cut = await driver.poll({ budgetMs: 1 });
			expect(cut.emitted.length).toBeGreaterThan(0);
			expect(cut.emitted.length).toBeLessThan(250);
			const read = cut.emitted[1].id;
			server.apply({ kind: edit, form: 0, pick: aliveIds(server).indexOf(read) });
			await drain(driver);
			expect(emittedTwice(driver)).toEqual([]);
			expect(neverEmitted(server, driver)).toEqual([]);
		},
	);

	it('One Form, a backlog of 1,000 older than the look-back window, read one page of 100 a poll: out within 14 polls', async () => {
		const { server, driver } = setUp({ pageCap: 100, requestMs: 100 });
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		server.apply({ kind: 'submit', form: 0, count: 1_000, gapMs: 1 });
		// n8n stopped for a while: the backlog is read from the cursor, a proven page a poll.
		server.apply({ kind: 'advance', ms: 11 * MINUTE });
		const backlog = aliveIds(server).slice(-1_000);
		for (let poll = 0; poll < 14; poll++) await driver.poll({ budgetMs: 100 });
		for (const id of backlog) expect(timesEmitted(driver.emitted, id)).toBe(1);
		await drain(driver);
	});

	it('since a date, a backlog of 3,000 read over many polls, 3 deletions between polls: it comes whole, nothing named', async () => {
		const { server, driver } = setUp({
			version: 2,
			pageCap: 100,
			requestMs: 100,
			sinceAgoMs: 7 * 24 * 3_600_000,
		});
		server.seed(0, 3_000, 60 * MINUTE, 1_000);
		const errors: string[] = [];
		for (let poll = 0; poll < 40; poll++) {
			errors.push(...(await driver.poll({ budgetMs: 1_000 })).errors);
			for (let k = 0; k < 3; k++)
				server.apply({ kind: 'delete', form: 0, pick: 5 + 37 * k + 11 * poll });
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		expect(errors).toEqual([]);
		expect(neverEmitted(server, driver)).toEqual([]);
		expect(emittedTwice(driver)).toEqual([]);
		await drain(driver);
	});

	it('Every Response Since a Date in the second of the activation, New Response: a response without a date in that second, updated later, is emitted once', async () => {
		// Undated, it is judged by the latest moment it may have been submitted: the end of the
		// second its read saw, which is not before the date.
		const { server, driver } = setUp({
			version: 2,
			sinceAgoMs: 0,
			startOffsetMs: 1,
			updatedResponses: 'ignore',
			lookBackMinutes: 0,
		});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 5 });
		server.apply({ kind: 'submitGarbled', form: 0, garble: 'null' });
		const [undated] = aliveIds(server);
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'update', form: 0, pick: 0 });
		await drain(driver);
		expect(timesEmitted(driver.emitted, undated)).toBe(1);
	});

	it('a response whose submittedAt is null, returned on every poll, is emitted exactly once', async () => {
		const { server, driver } = setUp({});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 1_000 });
		server.apply({ kind: 'submitGarbled', form: 0, garble: 'null' });
		const [undated] = aliveIds(server);
		// Other responses keep arriving; the undated one stays in every answer.
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

	it('a response that shows up late within the look-back window, behind where a cut read stopped, is emitted', async () => {
		const { server, driver } = setUp({ pageCap: 100, requestMs: 100, lookBackMinutes: 2 });
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: MINUTE });
		server.apply({ kind: 'submit', form: 0, count: 400, gapMs: 1 });
		const cut = await driver.poll({ budgetMs: 1 });
		expect(cut.emitted.length).toBeLessThan(400);
		// A minute late, inside the 2-minute window: its place is behind where the read stopped.
		server.apply({ kind: 'late', form: 0, count: 1, lateByMs: MINUTE });
		const late = server.responses[server.responses.length - 1].id;
		// An update far later moves the newest timestamp the read will see beyond that window.
		server.apply({ kind: 'advance', ms: 3 * MINUTE });
		server.apply({ kind: 'update', form: 0, pick: 0 });
		await drain(driver);
		expect(timesEmitted(driver.emitted, late)).toBe(1);
	});
});

describe('a look-back window of two pages on a slow service', () => {
	// 2 s a request; the window (2 minutes) holds 99 responses of one import and one more before
	// every poll after the first: two pages of 100, three requests to prove them. A poll with time for that
	// emits each new response in the next poll; one with time for two requests only is beyond
	// the assumptions (the window does not fit in what a poll reads): nothing twice, nothing lost.
	const schedule = (order: 'oldestFirst' | 'newestFirst', budget: '36s' | 'tiny'): Schedule => ({
		settings: settingsWith({
			version: 1,
			requestMs: 2_000,
			lookBackMinutes: 2,
			order,
			pageCap: 100,
			startOffsetMs: 0,
		}),
		steps: [
			{ kind: 'submit', form: 0, count: 99, gapMs: 1 },
			{ kind: 'churn', form: 0, edit: 'submit', polls: 22, budget },
		],
	});

	it.each(['oldestFirst', 'newestFirst'] as const)(
		'%s, polls with time for 14 requests: every new response comes in the next poll, nothing named',
		async (order) => {
			const trace = await runSchedule(schedule(order, '36s'));
			expect(trace.schedule.assumptions).toBe('within');
			const late = trace.polls.slice(1, 22).map((poll) => poll.emitted.length);
			expect(late).toEqual(Array(21).fill(1));
			expect(formatViolations(check(trace))).toBe('');
		},
	);

	it.each(['oldestFirst', 'newestFirst'] as const)(
		'%s, polls with time for 2 requests: beyond the assumptions; every response comes once in the end',
		async (order) => {
			const trace = await runSchedule(schedule(order, 'tiny'));
			expect(trace.schedule.assumptions).toBe('beyond');
			const tags = trace.emitted.map((emitted) => emitted.tag);
			expect(new Set(tags).size).toBe(tags.length);
			expect(tags).toHaveLength(21);
			expect(formatViolations(check(trace))).toBe('');
		},
	);
});

describe('within the assumptions: an edit between two pages of a read', () => {
	it('a response without a date updated before the read’s second page is emitted once, in its new version', async () => {
		const { server, driver } = setUp({ pageCap: 100, lookBackMinutes: 0 });
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		server.apply({ kind: 'submit', form: 0, count: 110, gapMs: 1 });
		const [first] = aliveIds(server);
		server.apply({ kind: 'garble', form: 0, pick: 0, garble: 'null' });
		// Before the second page: the undated response is updated (it moves to the end, dated).
		server.arm(2, { kind: 'update', form: 0, pick: 0 });
		const poll = await driver.poll();
		expect(poll.requests.filter((r) => r.ids?.includes(first))).toHaveLength(2);
		await drain(driver);
		expect(driver.emitted.filter((e) => e.id === first).map((e) => e.tag)).toEqual([`${first}#2`]);
		expect(emittedTwice(driver)).toEqual([]);
	});

	it('New Response (Ignore), look-back 1 min: an existing response updated as the next poll reads is not emitted', async () => {
		const { server, driver } = setUp({
			updatedResponses: 'ignore',
			lookBackMinutes: 1,
			pageCap: 100,
		});
		server.seed(0, 100, 0, 100);
		const [oldest] = aliveIds(server);
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 150_000 });
		server.apply({ kind: 'submit', form: 0, count: 2, gapMs: 1 });
		// Before the read's second request: the oldest response is updated (it moves to the end).
		server.arm(2, { kind: 'update', form: 0, pick: 0 });
		await driver.poll();
		await drain(driver);
		expect(timesEmitted(driver.emitted, oldest)).toBe(0);
	});

	it('All Forms, 2 s requests, a 1 s budget, a response on form0 every poll: an update on the quiet form1 comes within 22 polls', async () => {
		const { server, driver } = setUp({ watch: 'allForms', formCount: 2, requestMs: 2_000 });
		server.seed(1, 1, MINUTE, 1_000);
		expect((await driver.poll()).errors).toEqual([]);
		const [quiet] = aliveIds(server, 'form1');
		server.apply({ kind: 'update', form: 1, pick: 0 });
		for (let poll = 0; poll < 22; poll++) {
			server.apply({ kind: 'submit', form: 0, count: 1, gapMs: 0 });
			expect((await driver.poll({ budgetMs: 1_000 })).errors).toEqual([]);
		}
		expect(driver.emitted.filter((e) => e.tag === `${quiet}#2`)).toHaveLength(1);
		await drain(driver);
	});
});

describe('beyond the assumptions: never twice, never a silent loss', () => {
	it.each([1, 7, 50, 99])(
		'pages of %i while more follow, a backlog read over many polls: nothing twice, and everything comes or the form is named',
		async (pageCap) => {
			const { server, driver } = setUp({ pageCap, requestMs: 100, lookBackMinutes: 0 });
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: 5 * MINUTE });
			server.seed(0, 150, 0, 1_000);
			const errors: string[] = [];
			for (let poll = 0; poll < 30; poll++)
				errors.push(...(await driver.poll({ budgetMs: 1_000 })).errors);
			await drain(driver);
			expect(emittedTwice(driver)).toEqual([]);
			const told = [...errors, ...driver.polls.flatMap((p) => p.errors)].some((e) =>
				e.includes('form0'),
			);
			expect(neverEmitted(server, driver).length === 0 || told).toBe(true);
		},
	);

	it.each(['update', 'delete'] as const)(
		'pages of 7, a response %sd before every request of a long read: nothing twice, and everything comes or the form is named',
		async (edit) => {
			const { server, driver } = setUp({ pageCap: 7, requestMs: 100, lookBackMinutes: 1 });
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: 2 * MINUTE });
			server.seed(0, 120, 0, 100);
			for (let poll = 0; poll < 20; poll++) {
				for (let k = 1; k <= 10; k++) server.arm(k, { kind: edit, form: 0, pick: 13 * k + poll });
				await driver.poll({ budgetMs: 1_000 });
				server.heal();
				server.apply({ kind: 'advance', ms: MINUTE });
			}
			await drain(driver, 'beyond');
			expect(emittedTwice(driver)).toEqual([]);
			const told = driver.polls.some((p) => p.errors.some((e) => e.includes('form0')));
			expect(neverEmitted(server, driver).length === 0 || told).toBe(true);
		},
	);

	it('a listing in no order (shuffled for each request): nothing twice, and everything comes or the form is named', async () => {
		const { server, driver } = setUp({ order: 'shuffled', pageCap: 50, lookBackMinutes: 0 });
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 5 * MINUTE });
		server.seed(0, 200, 0, 1_000);
		await drain(driver);
		expect(emittedTwice(driver)).toEqual([]);
		const told = driver.polls.some((p) => p.errors.some((e) => e.includes('form0')));
		expect(neverEmitted(server, driver).length === 0 || told).toBe(true);
	});
});
