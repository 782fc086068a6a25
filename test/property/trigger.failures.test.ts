/**
 * One way to fail (docs/trigger-promise.md): a form that cannot be read counts polls without
 * progress, the 5th in a row is an error that names it, and a failing form never holds back the
 * others for more than that. On the simulated service; black-box: what was emitted, what errors
 * were reported, what was asked of the service.
 */
import {
	aliveIds,
	drain,
	MINUTE,
	naming,
	responsesTo,
	settingsWith,
	setUp,
	timesEmitted,
} from './named';
import * as report from '../../nodes/FormsWtf/trigger/report';
import { check, formatViolations } from './oracle';
import type { Trace } from './run';
import { REQUEST_MS, runSchedule } from './run';
import type { FaultKind } from '../sim/server';
import type { FuzzSettings, Step } from './schedule';

describe('a form that cannot be read is named by the 5th poll without progress', () => {
	it.each([
		['One Form', { watch: 'form' }],
		['Selected Forms, only the responses endpoint waits', { watch: 'selectedForms' }],
	] as const)(
		'%s: Retry-After 40 on every poll of a 36 s budget is named, with its cause, by the 5th poll',
		async (_name, patch) => {
			const { server, driver } = setUp({ ...patch, formCount: 1, selected: [0] });
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'advance', ms: 2_000 });
			server.apply({ kind: 'submit', form: 0, count: 3 });
			server.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 40 } }, 1_000, 0);
			const polls = [];
			for (let i = 0; i < 5; i++) polls.push(await driver.poll({ budgetMs: 36_000 }));
			const errors = polls.flatMap((poll) => poll.errors);
			expect(errors.some((error) => error.includes('form0'))).toBe(true);
			expect(errors.some((error) => /rate limit|429|wait/i.test(error))).toBe(true);
			server.heal();
			await drain(driver);
			for (const id of aliveIds(server).slice(-3)) expect(timesEmitted(driver.emitted, id)).toBe(1);
		},
	);

	it('One Form answering 503 for 5 polls: every error names the form', async () => {
		const { server, driver } = setUp({ version: 2 });
		expect((await driver.poll()).errors).toEqual([]);
		server.inject({ kind: 'serverError', status: 503 }, 10_000, 0);
		const errors: string[] = [];
		for (let i = 0; i < 5; i++) errors.push(...(await driver.poll()).errors);
		expect(errors.length).toBeGreaterThan(0);
		for (const error of errors) expect(error).toContain('form0');
	});

	it('Selected Forms, six forms answering 503: each is named by the 5th poll it cannot move', async () => {
		const forms = [0, 1, 2, 3, 4, 5];
		const { server, driver } = setUp({ watch: 'selectedForms', formCount: 6, selected: forms });
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		for (const form of forms) server.apply({ kind: 'submit', form, count: 1 });
		for (const form of forms) server.inject({ kind: 'serverError', status: 503 }, 10_000, form);
		const errorsByPoll: string[][] = [];
		for (let i = 0; i < 12; i++) {
			server.apply({ kind: 'advance', ms: 60_000 });
			errorsByPoll.push((await driver.poll()).errors);
		}
		const firstNamedAt = forms.map((form) =>
			errorsByPoll.findIndex((errors) => errors.some((e) => e.includes(`form${form}`))),
		);
		expect(firstNamedAt.every((at) => at >= 0 && at <= 4)).toBe(true);
	});

	it('Selected Forms, 20 forms answering 503 beside a healthy one: each failing one is named by its 5th poll; the healthy one is never named nor warned of, and its responses come on the next poll', async () => {
		const { failing, server, driver } = await twentyFailingBesideOne();
		const warn = jest.spyOn(report, 'warn');
		const submitted: string[] = [];
		for (let i = 0; i < 15; i++) {
			server.apply({ kind: 'submit', form: 20, count: 1 });
			submitted.push(aliveIds(server, 'form20').at(-1) as string);
			await driver.poll();
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		const warnings = warn.mock.calls.map(([, message]) => message);
		warn.mockRestore();
		expect(warnings.filter((message) => message.includes('form20'))).toEqual([]);
		expect(driver.polls.flatMap((poll) => poll.errors).filter((e) => e.includes('form20'))).toEqual(
			[],
		);
		// The failing forms have nothing new: each is read in the rotation of unchanged forms, and
		// named on the 5th poll from its first failed read.
		const pollWhere = (found: (poll: (typeof driver.polls)[0]) => boolean) =>
			driver.polls.findIndex(found);
		for (const form of failing) {
			const failedFirst = pollWhere((p) => p.requests.some((r) => r.formId === `form${form}`));
			const named = pollWhere((p) => p.errors.some((e) => e.includes(`(form${form})`)));
			expect(named).toBe(
				failedFirst >= 0 && failedFirst + 4 < driver.polls.length ? failedFirst + 4 : -1,
			);
		}
		const pollOf = (id: string) =>
			driver.polls.findIndex((p) => p.emitted.some((e) => e.id === id));
		expect(submitted.map(pollOf)).toEqual([...Array(15).keys()].map((i) => i + 1));
		server.heal();
		await drain(driver);
		for (const id of submitted) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it('Selected Forms, 20 forms answering 503 whose responses keep coming, beside a healthy one: each failing one costs one request a poll, and the healthy one’s responses come on every poll', async () => {
		const { failing, server, driver } = await twentyFailingBesideOne();
		const submitted: string[] = [];
		for (let poll = 1; poll <= 15; poll++) {
			for (const form of [...failing, 20]) server.apply({ kind: 'submit', form, count: 1 });
			submitted.push(aliveIds(server, 'form20').at(-1) as string);
			await driver.poll();
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		for (const poll of driver.polls.slice(1))
			expect(poll.requests.filter((r) => r.faulted).length).toBe(failing.length);
		const pollOf = (id: string) =>
			driver.polls.findIndex((p) => p.emitted.some((e) => e.id === id));
		expect(submitted.map(pollOf)).toEqual([...Array(15).keys()].map((i) => i + 1));
		expect(driver.polls.flatMap((poll) => poll.errors).filter((e) => e.includes('form20'))).toEqual(
			[],
		);
		server.heal();
		await drain(driver);
	});

	it('Selected Forms, newest first, 24 forms whose pages past the first answer 503, beside a healthy one: each is named by the 5th poll it cannot move, and the healthy one’s responses come a poll late at most', async () => {
		// Each failing read costs two pages, the first served: the 24 take more than a poll's 40
		// pages. Each is named on its 5th poll without progress, and the healthy form's responses
		// come on the poll they were submitted before or the next.
		const { failing, server, driver, firstNamed, waits } = await deeperPagesFailing(24, false);
		for (const poll of firstNamed) expect(poll).toBeGreaterThan(0);
		expect(Math.max(...firstNamed)).toBeLessThanOrEqual(12);
		expect(Math.max(...waits)).toBeLessThanOrEqual(1);
		for (const poll of driver.polls.slice(1))
			expect(poll.requests.filter((r) => r.faulted).length).toBeLessThanOrEqual(failing.length);
		server.heal();
		await drain(driver);
	});

	it('Selected Forms, newest first, 20 forms whose pages past the first answer 503 and whose responses keep coming, beside a healthy one: each is named, though the poll’s pages cut some of their reads', async () => {
		// The poll's 40 pages cut the reads of some failing forms after their first page, which
		// shows their newest responses. What a cut read found on a newest-first list is not
		// progress: the responses past that page stay unread.
		const { failing, server, driver, firstNamed, waits } = await deeperPagesFailing(20, true);
		for (const poll of firstNamed) expect(poll).toBeGreaterThan(0);
		expect(Math.max(...firstNamed)).toBeLessThanOrEqual(10);
		expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
		expect(Math.max(...waits)).toBeLessThanOrEqual(1);
		expect(
			driver.polls.flatMap((poll) => poll.errors).filter((e) => e.includes('(form20)')),
		).toEqual([]);
		server.heal();
		await drain(driver);
		for (const form of [...failing, 20])
			for (const id of aliveIds(server, `form${form}`))
				expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it('Selected Forms, 100 forms starting to fail at their first page, 20 more each poll, beside a healthy one: the failed reads that keep their turn take half a poll’s pages, and the healthy one’s responses wait 3 polls at most', async () => {
		const failing = [...Array(100).keys()];
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 101,
			selected: [...failing, 100],
		});
		expect((await driver.poll()).errors).toEqual([]);
		const submitted: string[] = [];
		for (let poll = 1; poll <= 12; poll++) {
			for (const form of failing.slice((poll - 1) * 20, poll * 20))
				server.inject({ kind: 'serverError', status: 503 }, 1_000_000, form);
			for (const form of [...failing, 100]) server.apply({ kind: 'submit', form, count: 1 });
			submitted.push(aliveIds(server, 'form100').at(-1) as string);
			await driver.poll();
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		const pollOf = (id: string) =>
			driver.polls.findIndex((p) => p.emitted.some((e) => e.id === id));
		const waits = submitted.slice(0, -3).map((id, i) => pollOf(id) - (i + 1));
		expect(Math.min(...waits)).toBeGreaterThanOrEqual(0);
		expect(Math.max(...waits)).toBeLessThanOrEqual(3);
		expect(
			driver.polls.flatMap((poll) => poll.errors).filter((e) => e.includes('(form100)')),
		).toEqual([]);
		server.heal();
		await drain(driver);
		for (const id of submitted) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it.each([
		['a new response on every poll', 1],
		['a new response every 4th poll', 4],
	])(
		'One Form, newest first, pages past the first answering 503, %s: named by the 5th poll, and the responses held back come once it recovers',
		async (_, every) => {
			const { server, driver } = setUp({ order: 'newestFirst', pageCap: 100, version: 2 });
			expect((await driver.poll()).errors).toEqual([]);
			server.apply({ kind: 'submit', form: 0, count: 150 });
			const backlog = aliveIds(server);
			server.inject({ kind: 'serverError', status: 503 }, 100_000, 0, true);
			for (let poll = 1; poll <= 10; poll++) {
				if (poll % every === 0) server.apply({ kind: 'submit', form: 0, count: 1 });
				await driver.poll();
				server.apply({ kind: 'advance', ms: MINUTE });
			}
			// The newest page is read on every poll, and what is new on it comes; the form's
			// responses past it are not, so it has made no progress.
			const named = driver.polls.filter((poll) => poll.errors.some((e) => e.includes('form0')));
			expect(named.map((poll) => poll.index)).toEqual([5, 10]);
			server.heal();
			await drain(driver);
			for (const id of aliveIds(server)) expect(timesEmitted(driver.emitted, id)).toBe(1);
			expect(backlog.length).toBe(150);
		},
	);

	it.each([
		['its first page', false],
		['a page past the first', true],
	])(
		'Selected Forms, 20 forms failing for long beside a busy healthy one: one 503 on %s of the healthy one does not send it behind them',
		async (_, deeperPages) => {
			const failing = [...Array(20).keys()];
			const { server, driver } = setUp({
				watch: 'selectedForms',
				formCount: 21,
				selected: [...failing, 20],
				order: 'newestFirst',
				pageCap: 100,
			});
			expect((await driver.poll()).errors).toEqual([]);
			for (const form of failing)
				server.inject({ kind: 'serverError', status: 503 }, 100_000, form);
			const submitted: Array<[string, number]> = [];
			for (let poll = 1; poll <= 25; poll++) {
				server.apply({ kind: 'submit', form: 20, count: 20, gapMs: 2_000 });
				for (const id of aliveIds(server, 'form20').slice(-20)) submitted.push([id, poll]);
				// One read of form20 fails.
				if (poll === 16) server.inject({ kind: 'serverError', status: 503 }, 1, 20, deeperPages);
				await driver.poll();
				server.apply({ kind: 'advance', ms: 20_000 });
			}
			const pollOf = (id: string) =>
				driver.polls.findIndex((p) => p.emitted.some((e) => e.id === id));
			const waits = submitted
				.filter(([, poll]) => poll >= 15)
				.map(([id, poll]) => pollOf(id) - poll);
			// The failed read's responses come on the next poll, the others on their own.
			expect(Math.max(...waits)).toBeLessThanOrEqual(1);
			expect(
				driver.polls.flatMap((poll) => poll.errors).filter((e) => e.includes('(form20)')),
			).toEqual([]);
			server.heal();
			await drain(driver);
		},
	);

	it('Selected Forms, 4 forms asked to wait longer than the poll behind a busy one: each is named by its 5th poll, and the busy one’s responses keep coming', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 5,
			selected: [0, 1, 2, 3, 4],
		});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		for (let form = 1; form < 5; form++) server.apply({ kind: 'submit', form, count: 3 });
		const wait = { kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 40 } } as const;
		for (let form = 1; form < 5; form++) server.inject(wait, 1_000, form);
		const errorsByPoll: string[][] = [];
		const busy: string[] = [];
		for (let i = 0; i < 20; i++) {
			server.apply({ kind: 'submit', form: 0, count: 1 });
			busy.push(aliveIds(server, 'form0').at(-1) as string);
			errorsByPoll.push((await driver.poll({ budgetMs: 36_000 })).errors);
		}
		const firstNamedAt = [1, 2, 3, 4].map((form) =>
			errorsByPoll.findIndex((errors) => errors.some((e) => e.includes(`form${form}`))),
		);
		expect(firstNamedAt.every((at) => at >= 0 && at <= 4)).toBe(true);
		for (const id of busy.slice(0, 15)) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it('Selected Forms, 20 forms whose reads get 429s the transport cannot wait out, beside a healthy one: the poll stops at the first, so a poll draws one read’s refusals', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 21,
			selected: [...Array(21).keys()],
		});
		expect((await driver.poll()).errors).toEqual([]);
		const wait = { kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 1 } } as const;
		for (let form = 0; form < 20; form++) {
			server.apply({ kind: 'submit', form, count: 1 });
			server.inject(wait, 1_000_000, form);
		}
		for (let poll = 1; poll <= 6; poll++) {
			server.apply({ kind: 'submit', form: 20, count: 1 });
			const record = await driver.poll();
			const refused = record.requests.filter((r) => r.status === 429);
			expect(new Set(refused.map((r) => r.formId)).size).toBeLessThanOrEqual(1);
			expect(refused.length).toBeLessThanOrEqual(16);
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		server.heal();
		await drain(driver);
		for (let form = 0; form < 21; form++)
			for (const id of aliveIds(server, `form${form}`))
				expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it('Selected Forms, since a date: a form answering 503 beside a busy backlog (pages of 100) is named by the 5th poll it cannot move', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
			version: 2,
			sinceAgoMs: 7 * 24 * 3_600_000,
			pageCap: 100,
			requestMs: 100,
		});
		server.seed(0, 6_000, 60 * MINUTE, 100);
		server.seed(1, 3, 60 * MINUTE, 1_000);
		expect((await driver.poll({ budgetMs: 1_000 })).errors).toEqual([]);
		server.inject({ kind: 'serverError', status: 503 }, 10_000, 1);
		const errorsByPoll: string[][] = [];
		for (let poll = 0; poll < 12; poll++) {
			server.apply({ kind: 'advance', ms: MINUTE });
			const record = await driver.poll({ budgetMs: 1_000 });
			expect(record.requests.some((r) => r.formId === 'form1' && r.status === 200)).toBe(false);
			errorsByPoll.push(record.errors);
		}
		const firstNamedAt = errorsByPoll.findIndex((errors) =>
			errors.some((e) => e.includes('form1')),
		);
		expect(firstNamedAt >= 0 && firstNamedAt <= 4).toBe(true);
	});

	it('One Form: 5 polls of bad answers after the activation are named on the 5th poll without a page', async () => {
		const trace = await runSchedule({
			settings: settingsWith({ lookBackMinutes: 0, pageCap: 100, startOffsetMs: 0 }),
			steps: [
				{ kind: 'poll', budget: 'default' },
				{ kind: 'fault', fault: { kind: 'wrongShape', body: 'errorObject' }, times: 5 },
				{ kind: 'churn', form: 0, edit: 'update', polls: 5, budget: 'default' },
			],
		});
		expect(trace.polls[0].activationTick).toBe(true);
		expect(trace.polls.slice(1, 5).every((poll) => poll.errors.length === 0)).toBe(true);
		expect(trace.polls[5].errors.some((error) => error.includes('form0'))).toBe(true);
		expect(formatViolations(check(trace))).toBe('');
	});

	it('a form whose failures change kind (missing, then rate limits, then denied) is named by the 5th poll after it last moved', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				watch: 'selectedForms',
				lookBackMinutes: 0,
				pageCap: 100,
				startOffsetMs: 0,
			}),
			steps: [
				{ kind: 'hide', form: 0 },
				{ kind: 'deny', form: 0, status: 404, times: 1 },
				{ kind: 'poll', budget: 'default' },
				{ kind: 'discardedPoll' },
				{ kind: 'deny', form: 0, status: 403, times: 2 },
				{
					kind: 'fault',
					fault: { kind: 'rateLimit', retryAfter: { kind: 'absent' } },
					times: 5,
					form: 0,
				},
				{ kind: 'poll', budget: 'tiny' },
				{ kind: 'poll', budget: '1s' },
				{ kind: 'poll', budget: '3s' },
				{ kind: 'poll', budget: 'default' },
				{ kind: 'poll', budget: 'default' },
			],
		});
		expect(formatViolations(check(trace))).toBe('');
	});

	it('One Form: a poll that read a page is progress, and the 5 polls of waits after it are named', async () => {
		// A short page (fewer than asked while more follow) makes the read ask again within the
		// poll, and the service then asks to wait longer than the poll may.
		const { server, driver } = setUp({ pageCap: 100 });
		expect((await driver.poll()).errors).toEqual([]);
		server.inject({ kind: 'wrongShape', body: 'errorObject' }, 4);
		server.inject({ kind: 'shortPage', size: 20 }, 1);
		server.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 40 } }, 6);
		server.apply({ kind: 'submit', form: 0, count: 30, gapMs: 1 });
		const polls = [];
		for (let poll = 0; poll < 10; poll++) polls.push(await driver.poll({ budgetMs: 36_000 }));
		const withPage = polls.findIndex((p) => p.requests.some((r) => r.status === 200 && r.ids));
		expect(withPage).toBe(4);
		expect(polls[withPage].errors).toEqual([]);
		expect(polls.slice(withPage + 1).every((p) => p.requests.every((r) => r.status === 429))).toBe(
			true,
		);
		expect(polls.at(-1)?.errors.some((e) => e.includes('form0'))).toBe(true);
	});
});

describe('a failing form never holds back the others', () => {
	it('All Forms: one form answering 404 and one 403 do not hold up the others on that poll', async () => {
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

	it('All Forms: forms that keep failing never take the others’ turn, and cost one request a poll each', async () => {
		const { server, driver } = setUp({ watch: 'allForms', formCount: 8 });
		expect((await driver.poll()).errors).toEqual([]);
		// Six forms answer 503 to every attempt; form6 and form7 have new responses.
		for (const form of [0, 1, 2, 3, 4, 5]) {
			server.apply({ kind: 'submit', form, count: 1 });
			server.inject({ kind: 'serverError', status: 503 }, 1_000, form);
		}
		server.apply({ kind: 'submit', form: 6, count: 2 });
		server.apply({ kind: 'submit', form: 7, count: 1 });
		const polls = [await driver.poll(), await driver.poll(), await driver.poll()];
		expect(polls.flatMap((poll) => poll.emitted.map((e) => e.formId)).sort()).toEqual([
			'form6',
			'form6',
			'form7',
		]);
		for (const poll of polls)
			expect(poll.requests.filter((r) => r.faulted).length).toBeLessThanOrEqual(6);
		server.heal();
		await drain(driver);
		for (let form = 0; form < 8; form++) {
			for (const id of aliveIds(server, `form${form}`))
				expect(timesEmitted(driver.emitted, id)).toBe(1);
		}
	});

	it('All Forms, pages of 100 at 100 ms, a 1 s budget: a form that failed once is read again on the next poll beside a busy one', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 2,
			pageCap: 100,
			requestMs: 100,
		});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		server.apply({ kind: 'submit', form: 1, count: 3_000, gapMs: 1 });
		server.apply({ kind: 'submit', form: 0, count: 1 });
		const waiting = aliveIds(server, 'form0').at(-1) as string;
		server.inject({ kind: 'wrongShape', body: 'errorObject' }, 1, 0);
		await driver.poll({ budgetMs: 1_000 });
		expect(timesEmitted(driver.emitted, waiting)).toBe(0);
		await driver.poll({ budgetMs: 1_000 });
		await driver.poll({ budgetMs: 1_000 });
		expect(timesEmitted(driver.emitted, waiting)).toBe(1);
		await drain(driver);
	});

	it('a 429 with Retry-After 8 in a poll with a 3 s budget: the poll ends within its budget, and the responses come later, once', async () => {
		const { server, driver } = setUp({});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		server.apply({ kind: 'submit', form: 0, count: 3 });
		server.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 8 } }, 1);
		const poll = await driver.poll({ budgetMs: 3_000 });
		expect(poll.endMs - poll.startMs).toBeLessThanOrEqual(
			3_000 + REQUEST_MS * poll.requests.length,
		);
		expect(poll.emitted).toEqual([]);
		await drain(driver);
		for (const id of aliveIds(server)) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});
});

describe('a form read on some polls and failing on the others', () => {
	const RETRY_AFTER_28_S = {
		kind: 'rateLimit',
		retryAfter: { kind: 'seconds', seconds: 28 },
	} as const;
	const faultOn = (fault: FaultKind, times: number): Step => ({
		kind: 'fault',
		fault,
		times,
		form: 0,
	});

	/**
	 * One Form of 1,500 responses in its 10-minute window (oldest first, pages of 100 at 100 ms
	 * each), a response and a poll of 36 s a minute; `faults(poll)` come before each poll. A
	 * Retry-After of 28 s leaves a poll 8 pages: its read is served, and cut.
	 */
	async function oneFormTrace(
		patch: Partial<FuzzSettings>,
		polls: number,
		faults: (poll: number) => Step[],
	): Promise<Trace> {
		const settings = settingsWith({
			watch: 'form',
			version: 2,
			order: 'oldestFirst',
			pageCap: 100,
			lookBackMinutes: 10,
			seeded: [1_500],
			seedSpacingMs: 100,
			requestMs: 100,
			...patch,
		});
		const steps = [...Array(polls).keys()].flatMap((poll): Step[] => [
			...faults(poll),
			...responsesTo([0], 1, 1_000),
			{ kind: 'poll', budget: '36s' },
			{ kind: 'advance', ms: MINUTE - 1_000 },
		]);
		return await runSchedule({ settings, steps });
	}
	const namedOn = (trace: Trace) => naming(trace).map((error) => Number(error.split(':')[0]));

	// Answering 503 on 4 polls of 5, and read but cut on the 5th: the 5th, 10th… poll without
	// progress is one that reads it, which names nothing (a page served ends a failure); the
	// error goes to the next poll that cannot read it. On poll 15 its window fits the 8 pages:
	// its responses come, and the 4 failed polls after that name nothing.
	it('failing on 4 polls of 5 and cut on the 5th: named on the poll after the 5th and the 10th', async () => {
		const trace = await oneFormTrace({ seedAgoMs: 1_000 }, 22, (poll) => {
			if (poll === 0) return [];
			if (poll % 5 === 0) return [faultOn(RETRY_AFTER_28_S, 1)];
			return [faultOn({ kind: 'serverError', status: 503 }, 4)];
		});
		expect(trace.schedule.assumptions).toBe('within');
		expect(namedOn(trace)).toEqual([6, 11]);
		expect(formatViolations(check(trace))).toBe('');
	}, 120_000);

	// Answering 503 on 4 polls, then read but cut on 5 (its window of 30 minutes does not fit 8
	// pages), then 503 again: the 5th poll read in a row names it, and the failed poll after
	// that does not name it again (errors come at most every 5th poll of a run).
	it('failing on 4 polls, then read but cut on 5: named once, on the 5th of those', async () => {
		const trace = await oneFormTrace({ seedAgoMs: 1_000, lookBackMinutes: 30 }, 14, (poll) => {
			if (poll >= 5 && poll <= 9) return [faultOn(RETRY_AFTER_28_S, 1)];
			if (poll >= 1 && poll <= 10) return [faultOn({ kind: 'serverError', status: 503 }, 4)];
			return [];
		});
		expect(trace.schedule.assumptions).toBe('within');
		expect(namedOn(trace)).toEqual([9]);
		expect(formatViolations(check(trace))).toBe('');
	}, 120_000);

	// The newest 1,000 of 1,500: the activation's read is cut (a Retry-After of 28 s), polls 1
	// and 2 answer 503, polls 3 and 4 are cut again. On the 5th poll without progress the form
	// leaves the choice: its newest will not come, and the error says so on that poll.
	it('the newest N: a form that leaves the choice for want of progress is named as it leaves', async () => {
		const trace = await oneFormTrace({ seedAgoMs: MINUTE, newestCount: 1_000 }, 8, (poll) => {
			if (poll === 0 || poll === 3 || poll === 4) return [faultOn(RETRY_AFTER_28_S, 1)];
			if (poll <= 2) return [faultOn({ kind: 'serverError', status: 503 }, 4)];
			return [];
		});
		expect(trace.schedule.assumptions).toBe('within');
		expect(namedOn(trace)[0]).toBe(4);
		expect(formatViolations(check(trace))).toBe('');
	}, 120_000);
});

/** Selected Forms: form0 to form19, which answer 503 from the poll after activation on, and form20. */
async function twentyFailingBesideOne() {
	const failing = [...Array(20).keys()];
	const { server, driver } = setUp({
		watch: 'selectedForms',
		formCount: 21,
		selected: [...failing, 20],
	});
	expect((await driver.poll()).errors).toEqual([]);
	for (const form of failing) server.inject({ kind: 'serverError', status: 503 }, 10_000, form);
	return { failing, server, driver };
}

/**
 * Selected Forms, newest first, pages of 100: `count` forms of 150 new responses whose pages
 * past the first answer 503, beside a healthy one that gets a response a poll (and so do the
 * failing ones when `keepComing`), over 20 polls: the poll each failing form is first named on,
 * and how many polls each healthy response waited (the last one's left out).
 */
async function deeperPagesFailing(count: number, keepComing: boolean) {
	const failing = [...Array(count).keys()];
	const healthy = count;
	const { server, driver } = setUp({
		watch: 'selectedForms',
		formCount: count + 1,
		selected: [...failing, healthy],
		order: 'newestFirst',
		pageCap: 100,
	});
	expect((await driver.poll()).errors).toEqual([]);
	for (const form of failing) {
		server.apply({ kind: 'submit', form, count: 150 });
		server.inject({ kind: 'serverError', status: 503 }, 1_000_000, form, true);
	}
	const submitted: string[] = [];
	for (let poll = 1; poll <= 20; poll++) {
		const to = keepComing ? [...failing, healthy] : [healthy];
		for (const form of to) server.apply({ kind: 'submit', form, count: 1 });
		submitted.push(aliveIds(server, `form${healthy}`).at(-1) as string);
		await driver.poll();
		server.apply({ kind: 'advance', ms: MINUTE });
	}
	const firstNamed = failing.map((form) =>
		driver.polls.findIndex((poll) => poll.errors.some((e) => e.includes(`(form${form})`))),
	);
	const pollOf = (id: string) => driver.polls.findIndex((p) => p.emitted.some((e) => e.id === id));
	const waits = submitted
		.slice(0, -1)
		.map((id, i) => (pollOf(id) < 0 ? Infinity : pollOf(id) - (i + 1)));
	return { failing, server, driver, firstNamed, waits };
}
