/**
 * The trigger at the activation: the moment when its first answer is a 429, updates of existing
 * responses while the newest N are chosen or before a form's first read, a form leaving the
 * choice, responses of more than a poll reads in one millisecond, and a version 3 state taken
 * over mid-choice. On the simulated service, black-box: what was emitted, what errors were
 * reported, what was asked.
 */
import {
	aliveIds,
	drain,
	MINUTE,
	pollsAMinuteApart,
	settingsWith,
	setUp,
	timesEmitted,
} from './named';
import { MAX_NEWEST } from '../../nodes/FormsWtf/trigger/settings';
import { check, formatViolations } from './oracle';
import { emitSinceMs, runSchedule } from './run';
import type { FaultKind } from '../sim/server';

const RETRY_AFTER_1_S: FaultKind = {
	kind: 'rateLimit',
	retryAfter: { kind: 'seconds', seconds: 1 },
};

const HOUR = 60 * MINUTE;

describe('more responses in one millisecond than a poll reads (beyond the assumptions)', () => {
	// A poll reads 40 pages; a millisecond must be read whole to be passed. An import of more than
	// that in one millisecond is beyond what the promise assumes: the trigger names the form on
	// the 5th poll that makes no progress, and emits nothing twice.
	for (const [order, burst] of [
		['newestFirst', 2_500],
		['oldestFirst', 4_100],
	] as const)
		it(`Every Response Since a Date, ${order}, pages of 100: an import of ${burst} in one millisecond names the form once 5 polls made no progress, and nothing comes twice`, async () => {
			const { server, driver } = setUp({
				version: 2,
				order,
				pageCap: 100,
				sinceAgoMs: 7 * 24 * HOUR,
			});
			server.seed(0, burst, 3 * HOUR, 0);
			server.seed(0, 50, HOUR, 1_000);
			// The first polls emit what they prove; then 5 polls without progress.
			const errors = (await pollsAMinuteApart(driver, 7)).flat();
			expect(errors.join()).toMatch(/Form "form0" could not be read: more of its responses/);
			await drain(driver, 'beyond');
		});

	for (const [order, burst] of [
		['oldestFirst', 4_100],
		['newestFirst', 5_000],
	] as const)
		it(`the newest 10, ${order}, pages of 100: a form whose newest millisecond holds ${burst} responses is named within 5 polls, and nothing comes twice`, async () => {
			const { server, driver } = setUp({ version: 2, order, pageCap: 100, newestCount: 10 });
			server.seed(0, 100, 3 * HOUR, 1_000);
			server.seed(0, burst, 2 * HOUR, 0);
			const errors = (await pollsAMinuteApart(driver, 5)).flat();
			expect(errors.join()).toMatch(/"form0"/);
			await drain(driver, 'beyond');
		});
});

describe('the newest N, up to what one poll reads', () => {
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		it(`the newest ${MAX_NEWEST}, ${order}, pages of 100: all come once, and no form is named`, async () => {
			const { server, driver } = setUp({
				version: 2,
				order,
				newestCount: MAX_NEWEST,
				pageCap: 100,
			});
			server.seed(0, 3_000, HOUR, 100);
			const errors = (await pollsAMinuteApart(driver, 5)).flat();
			const newest = aliveIds(server).slice(-MAX_NEWEST);
			expect(newest.filter((id) => timesEmitted(driver.emitted, id) !== 1)).toEqual([]);
			expect(errors).toEqual([]);
			await drain(driver);
		});
});

describe('the newest N, when a form with responses of the activation second leaves the choice', () => {
	// The responses of the activation second are new: they come whatever is chosen. form0 and
	// form1 have responses in that second; form2 fails on the activation poll, so the choice
	// waits; form1 is then taken out of the selection. form0's responses of the second come, and
	// the newest 3 before it of form0 and form2.
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		it(`the newest 3, Selected Forms, ${order}: a form taken out while they are chosen; the other form's responses of the activation second come, with the newest 3 before it`, async () => {
			const { server, driver } = setUp({
				watch: 'selectedForms',
				formCount: 3,
				selected: [0, 1, 2],
				version: 2,
				order,
				newestCount: 3,
				startOffsetMs: 0,
			});
			server.seed(0, 5, MINUTE, 1_000);
			server.seed(1, 5, 2 * MINUTE, 1_000);
			server.seed(2, 5, 3 * MINUTE, 1_000);
			const newestBefore = aliveIds(server, 'form0').slice(-3);
			server.apply({ kind: 'advance', ms: 100 });
			server.apply({ kind: 'submit', form: 0, count: 2, gapMs: 10 });
			server.apply({ kind: 'submit', form: 1, count: 3, gapMs: 10 });
			const inTheSecond = aliveIds(server, 'form0').slice(-2);
			server.inject({ kind: 'serverError', status: 503 }, 1, 2);
			await driver.poll();
			server.apply({ kind: 'advance', ms: 5_000 });
			driver.select([0, 2]);
			await driver.drain();
			expect(driver.polls.flatMap((poll) => poll.errors)).toEqual([]);
			expect(driver.emitted.map((e) => e.id).sort()).toEqual(
				[...newestBefore, ...inTheSecond].sort(),
			);
			await drain(driver);
		});
});

describe('the moment of activation is the Date of the activation poll, also when its first answer is a 429', () => {
	// The moment is the Date of the activation poll's first answer, a 429 too: what is submitted
	// while its Retry-After is waited out is new. (One Form: the probe of the clock answers 429;
	// All Forms: the list of forms does.)
	for (const watch of ['form', 'allForms'] as const)
		it(`${watch === 'form' ? 'One Form' : 'All Forms'}: responses submitted while a 429 on the activation poll's first request is waited out are emitted`, async () => {
			const { server, driver } = setUp({ watch, startOffsetMs: 300 });
			server.seed(0, 5, MINUTE, 1_000);
			const existing = aliveIds(server);
			server.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 30 } }, 1);
			// While the wait runs: 35 s after the 429, three responses a second apart.
			let arrived = false;
			for (let k = 1; k <= 3; k++)
				server.arm(k, (s) => {
					if (arrived || s.log.at(-1)?.status !== 429) return;
					arrived = true;
					s.apply({ kind: 'advance', ms: 5_000 });
					s.apply({ kind: 'submit', form: 0, count: 3, gapMs: 1_000 });
				});
			const activation = await driver.poll();
			expect(activation.errors).toEqual([]);
			expect(activation.requests[0]).toMatchObject({ status: 429 });
			const late = aliveIds(server).filter((id) => !existing.includes(id));
			expect(late).toHaveLength(3);
			await drain(driver);
			expect(late.map((id) => timesEmitted(driver.emitted, id))).toEqual([1, 1, 1]);
			for (const id of existing) expect(timesEmitted(driver.emitted, id)).toBe(0);
		});
});

describe('the newest N when the service sends no Date and the activation poll spans two seconds', () => {
	// Without a Date header the moment is the n8n host's clock, and a 429 waited out on the first
	// request makes the activation poll last into the next second: an update made in that poll
	// may fall before or after the moment. Such a version may count either way; the newest N are
	// the ones that surely existed, each once, and the response submitted during the poll is new.
	it('the newest 20 of 120 in one millisecond, New Response, oldest first: an update made during the activation poll is required neither among the newest nor as new, and nothing comes twice', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				version: 1,
				formCount: 2,
				lookBackMinutes: 0,
				updatedResponses: 'ignore',
				order: 'oldestFirst',
				pageCap: 100,
				totalAbsent: true,
				dateAbsent: true,
				requestMs: 100,
				startOffsetMs: 400,
				seeded: [120, 0],
				seedAgoMs: 30_000,
				seedSpacingMs: 0,
				newestCount: 20,
			}),
			steps: [
				{ kind: 'fault', fault: RETRY_AFTER_1_S, times: 1, form: 0 },
				{
					kind: 'during',
					afterRequests: 2,
					event: { kind: 'submit', form: 0, count: 1, gapMs: 1 },
				},
				{ kind: 'during', afterRequests: 6, event: { kind: 'update', form: 0, pick: 0 } },
				{ kind: 'churn', form: 1, edit: 'update', polls: 5, budget: 'default' },
			],
		});
		expect(trace.polls[0].requests[0]).toMatchObject({ status: 429 });
		const tags = trace.emitted.map((emitted) => emitted.tag);
		const newest = Array.from({ length: 20 }, (_, k) => `r${String(101 + k).padStart(4, '0')}#1`);
		expect(tags.filter((tag) => newest.includes(tag)).sort()).toEqual(newest);
		expect(tags).toContain('r0121#1');
		expect(new Set(tags).size).toBe(tags.length);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('New Response: an update of an existing response is not a new response, while the newest N are chosen', () => {
	// The choosing read keeps what it saw of the look-back window: a response of form0 submitted
	// 10 s before activation, not among the newest 3, updated while the choice waits on form1
	// (503 on the activation poll), is known as an update when the choice ends.
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		it(`the newest 3, Selected Forms, ${order}, one form failing on the activation poll: an existing response updated before the choice ends is not emitted`, async () => {
			const { server, driver } = setUp({
				watch: 'selectedForms',
				formCount: 2,
				selected: [0, 1],
				version: 2,
				order,
				updatedResponses: 'ignore',
				newestCount: 3,
				pageCap: 100,
			});
			server.seed(0, 400, MINUTE, 1_000);
			const existing = aliveIds(server);
			// form1 fails its read on the activation poll.
			server.inject({ kind: 'serverError', status: 503 }, 1, 1);
			const activation = await driver.poll();
			expect(activation.emitted).toEqual([]);
			server.apply({ kind: 'advance', ms: 2_000 });
			// r0391, submitted 10 s before the activation, is updated 2 s after it.
			server.apply({ kind: 'update', form: 0, pick: 390 });
			await drain(driver);
			expect(driver.emitted.map((e) => e.id).sort()).toEqual(existing.slice(-3));
		});
});

describe('New Response: an update of an existing response is not a new response, with All Forms at the activation', () => {
	// An update is known as one when the trigger has read the response before: All Forms, 45
	// forms of 5 responses, the activation poll reads 40 pages (its cap) and 5 forms wait for the
	// next poll. An existing response of one of them updated meanwhile is, to the trigger, a
	// response it has never seen with a time after activation: it comes once, as new.
	it('All Forms, 45 forms: an existing response of a form the activation poll did not reach, updated before its first read, comes once as new', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 45,
			version: 2,
			updatedResponses: 'ignore',
		});
		for (let form = 0; form < 45; form++) server.seed(form, 5, MINUTE, 1_000);
		const activation = await driver.poll();
		expect(activation.errors).toEqual([]);
		const read = new Set(activation.requests.map((r) => r.formId));
		const notReached = server.forms.find((form) => !read.has(form.id));
		expect(notReached).toBeDefined();
		const formId = (notReached as { id: string }).id;
		const existing = aliveIds(server, formId);
		server.apply({ kind: 'advance', ms: 30_000 });
		server.apply({ kind: 'update', form: Number(formId.slice('form'.length)), pick: 4 });
		await drain(driver);
		expect(timesEmitted(driver.emitted, existing[4])).toBe(1);
		for (const id of existing.slice(0, 4)) expect(timesEmitted(driver.emitted, id)).toBe(0);
	});
});

describe('a version 3 state taken over while the newest N are chosen', () => {
	// Version 3 counted the responses of the activation second its read saw as existing; it chose
	// two of three and n8n is upgraded before the choice ends: the two chosen come, the third does
	// not. (The oracle cannot judge a story begun by another version: the test checks what was
	// emitted.)
	it('the newest 2, One Form: the response of the activation second that version 3 saw and did not choose is not emitted after the upgrade', async () => {
		const { server, driver } = setUp({ version: 2, newestCount: 2, startOffsetMs: 0 });
		server.seed(0, 10, MINUTE, 1_000);
		const activatedAtMs = server.now;
		// Three responses in the activation second, 100 ms apart, before version 3's read.
		server.apply({ kind: 'advance', ms: 100 });
		server.apply({ kind: 'submit', form: 0, count: 3, gapMs: 100 });
		const [first, second, third] = aliveIds(server).slice(-3);
		const at = (id: string) => server.responses.find((r) => r.id === id)?.versions[0].atMs ?? 0;
		server.apply({ kind: 'advance', ms: 2_000 });
		// Version 3's state, as 0.2.0 stored it: the choice's first window (the hour before
		// activation) is being read; its candidates so far are the newest two of that second.
		driver.session.storedStaticData['node:Forms.wtf Trigger'] = {
			version: 3,
			scope: 'form:form0',
			rev: 1,
			activatedAtMs,
			choice: {
				limit: 2,
				forms: ['form0'],
				window: 0,
				chosen: [
					['form0', third, at(third)],
					['form0', second, at(second)],
				],
			},
			forms: {
				form0: {
					since: new Date(activatedAtMs - HOUR - 1).toISOString(),
					seen: { [first]: at(first), [second]: at(second), [third]: at(third) },
					choice: 'reading',
				},
			},
		};
		await driver.drain();
		expect(driver.polls.flatMap((poll) => poll.errors)).toEqual([]);
		expect(driver.emitted.map((e) => e.id).sort()).toEqual([second, third]);
	});
});

describe('All Forms: the turn of a form whose read the poll cut', () => {
	const readOf = (poll: { requests: Array<{ path: string; formId?: string }> }) =>
		poll.requests.filter((r) => r.path.endsWith('/responses')).map((r) => r.formId);

	it("a form cut behind another form's read is read first on the next poll", async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 3,
			version: 2,
			pageCap: 100,
			startOffsetMs: 0,
		});
		// form1's look-back window holds 250 responses: a tiny budget reads two pages in all.
		server.seed(0, 3, MINUTE, 1_000);
		server.seed(1, 250, 5 * MINUTE, 1_000);
		server.seed(2, 3, MINUTE, 1_000);
		expect(readOf(await driver.poll({ budgetMs: 1 }))).toEqual(['form0', 'form1']);
		server.apply({ kind: 'submit', form: 0, count: 1 });
		server.apply({ kind: 'submit', form: 2, count: 1 });
		expect(readOf(await driver.poll({ budgetMs: 1 }))[0]).toBe('form1');
		await drain(driver);
	});

	it('a form that had the poll to itself and was cut waits behind the forms not read yet', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 3,
			version: 2,
			pageCap: 100,
			startOffsetMs: 0,
		});
		server.seed(0, 250, 5 * MINUTE, 1_000);
		server.seed(1, 3, MINUTE, 1_000);
		server.seed(2, 3, MINUTE, 1_000);
		expect(readOf(await driver.poll({ budgetMs: 1 }))).toEqual(['form0', 'form0']);
		server.apply({ kind: 'submit', form: 1, count: 1 });
		server.apply({ kind: 'submit', form: 2, count: 1 });
		expect(readOf(await driver.poll({ budgetMs: 1 }))[0]).toBe('form1');
		await drain(driver);
	});
});

describe('Every Response Since a Date, a form added to Selected Forms later', () => {
	// The date is the activation's second; the selected form does not exist, then form0 is
	// selected and n8n discards the poll that starts it: the next poll starts form0 in the
	// date's very second and reads it whole. A response submitted just before the date then shows
	// up late, within the look-back window.
	it('a response of the added form submitted before the date and shown late, after its first whole read, is not emitted', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				watch: 'selectedForms',
				selected: [1],
				version: 2,
				lookBackMinutes: 1,
				pageCap: 100,
				requestMs: 1,
				startOffsetMs: 0,
				sinceAgoMs: 0,
			}),
			steps: [
				{ kind: 'fault', fault: RETRY_AFTER_1_S, times: 1, form: 0 },
				{
					kind: 'during',
					afterRequests: 2,
					event: { kind: 'submit', form: 0, count: 1, gapMs: 1 },
				},
				{ kind: 'poll', budget: 'default' },
				{ kind: 'select', selected: [0] },
				{
					kind: 'during',
					afterRequests: 4,
					event: { kind: 'late', form: 0, count: 1, permille: 18 },
				},
				{ kind: 'discardedPoll' },
			],
		});
		const dateMs = emitSinceMs(trace.schedule.settings) as number;
		const submittedMs = (id: string) =>
			trace.server.responses.find((r) => r.id === id)?.versions[0].atMs ?? NaN;
		const before = trace.server.responses.filter((r) => r.versions[0].atMs < dateMs);
		expect(before).toHaveLength(1);
		expect(trace.emitted.filter((e) => submittedMs(e.id) < dateMs)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('Every Response Since a Date in the future', () => {
	it('Selected Forms: a form added to the selection before the date holds back its responses submitted before the date, and brings each one from it on once', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0],
			version: 2,
			pageCap: 100,
			sinceAgoMs: -30 * MINUTE,
		});
		const dateMs = emitSinceMs(driver.settings) as number;
		await pollsAMinuteApart(driver, 2);
		driver.select([0, 1]);
		// A response to each form a minute, for 40 minutes: the first half before the date.
		await pollsAMinuteApart(driver, 40, () => {
			server.apply({ kind: 'submit', form: 0, count: 1 });
			server.apply({ kind: 'submit', form: 1, count: 1 });
		});
		await drain(driver);
		const submittedMs = (id: string) =>
			server.responses.find((r) => r.id === id)?.versions.at(-1)?.atMs ?? NaN;
		const ofForm1 = aliveIds(server, 'form1');
		const beforeDate = ofForm1.filter((id) => submittedMs(id) < dateMs);
		const fromDate = ofForm1.filter((id) => submittedMs(id) >= dateMs);
		expect(beforeDate.length).toBeGreaterThan(20);
		expect(beforeDate.filter((id) => timesEmitted(driver.emitted, id) > 0)).toEqual([]);
		expect(fromDate.length).toBeGreaterThan(5);
		expect(fromDate.filter((id) => timesEmitted(driver.emitted, id) !== 1)).toEqual([]);
	});

	for (const order of ['oldestFirst', 'newestFirst'] as const)
		it(`${order}, pages of 100: responses submitted before the date are held back, every one from it on comes once, an update after it too`, async () => {
			const { server, driver } = setUp({
				version: 2,
				order,
				pageCap: 100,
				sinceAgoMs: -30 * MINUTE,
			});
			server.seed(0, 20, HOUR, 1_000);
			const submit = () => server.apply({ kind: 'submit', form: 0, count: 3, gapMs: 1_000 });
			// Three responses a minute for an hour: the first half before the date, the rest after.
			const errors = (await pollsAMinuteApart(driver, 60, submit)).flat();
			expect(errors).toEqual([]);
			const dateMs = emitSinceMs(driver.settings) as number;
			const submittedMs = (id: string) =>
				server.responses.find((r) => r.id === id)?.versions.at(-1)?.atMs ?? NaN;
			const fromDate = aliveIds(server).filter((id) => submittedMs(id) >= dateMs);
			const beforeDate = aliveIds(server).filter((id) => submittedMs(id) < dateMs);
			expect(fromDate.length).toBeGreaterThan(80);
			expect(beforeDate.filter((id) => timesEmitted(driver.emitted, id) > 0)).toEqual([]);
			// An update after the date of a response submitted before it: a version from the date on.
			server.apply({ kind: 'update', form: 0, pick: 0 });
			await drain(driver);
			expect(fromDate.filter((id) => timesEmitted(driver.emitted, id) !== 1)).toEqual([]);
			expect(timesEmitted(driver.emitted, aliveIds(server)[0])).toBe(1);
		});
});
