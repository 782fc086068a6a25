/**
 * Liveness with several forms and look-back windows of many pages. Within the promise's
 * assumptions (each form's window fits in what one poll reads), a form read behind other forms
 * (All Forms: the forms of the rotation read longest ago; Selected Forms: forms whose reads move
 * as its own does) is never named, and each of its responses comes within a few polls: a read
 * cut behind other forms goes first on the next poll. Beyond them (a window of more than a poll
 * reads), the form is named rather than its new responses waiting silently. Black-box: what was
 * emitted, reported and asked of the simulated service.
 */
import { check, formatViolations } from './oracle';
import { runSchedule } from './run';
import type { Budget, FuzzSettings, Schedule, Step } from './schedule';
import {
	MINUTE,
	drain,
	naming,
	newestId,
	pollsUnnamedBeforeEmitted,
	setUp,
	settingsWith,
	timesEmitted,
} from './named';

/** All Forms: form0 holds `windowed` responses 200 ms apart, a minute before activation; the other forms are empty. */
function busyAmongEmpty(formCount: number, windowed: number, patch: Partial<FuzzSettings>) {
	return settingsWith({
		watch: 'allForms',
		formCount,
		version: 2,
		pageCap: 100,
		lookBackMinutes: 60,
		seeded: [windowed, ...Array.from({ length: formCount - 1 }, () => 0)],
		seedAgoMs: MINUTE,
		seedSpacingMs: 200,
		...patch,
	});
}

/** `polls` polls a minute apart, each after a response to form0 (and `extra` before the poll `at`). */
function trickle(polls: number, budget: Budget, extra?: { at: number; step: Step }): Step[] {
	return Array.from({ length: polls }, (_, poll) => [
		{ kind: 'submit' as const, form: 0, count: 1, gapMs: 1 },
		...(extra && extra.at === poll ? [extra.step] : []),
		{ kind: 'poll' as const, budget },
		{ kind: 'advance' as const, ms: MINUTE },
	]).flat();
}

describe('All Forms: a form whose look-back window fits in a poll, read behind the rotation', () => {
	// 3,500 responses in the window (3,530 with the new ones): 38 pages of the poll's 40 on an
	// oldest-first list, and the fuzzer's reckoning of the fifth assumption says it fits. From the
	// 10th poll on, three empty forms of the rotation are read first (read longest ago) and cut
	// form0 at 37 pages: it must not be named for that, and must have its whole window read soon.
	it('24 forms, oldest first, pages of 100: a window of 3,500 with a response a minute is never named', async () => {
		const schedule: Schedule = {
			settings: busyAmongEmpty(24, 3_500, { order: 'oldestFirst' }),
			steps: trickle(30, 'default'),
		};
		const trace = await runSchedule(schedule);
		expect(trace.schedule.assumptions).toBe('within');
		expect(naming(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});

	// n8n 2.41's durable scheduler: a poll of 36 s, 2 s a page, reads 14 pages; a window of
	// 1,100 (1,130 with the new ones) costs 13 of them, and fits by the fuzzer's reckoning.
	it('24 forms, 36 s polls, 2 s a page, oldest first, pages of 100: a window of 1,100 with a response a minute is never named', async () => {
		const schedule: Schedule = {
			settings: busyAmongEmpty(24, 1_100, { order: 'oldestFirst', requestMs: 2_000 }),
			steps: trickle(30, '36s'),
		};
		const trace = await runSchedule(schedule);
		expect(trace.schedule.assumptions).toBe('within');
		expect(naming(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('Selected Forms: a form whose look-back window fits in a poll, read behind forms whose reads move', () => {
	// Four selected forms, each with a response a minute; form3 gets an import of 3,550 right after
	// activation (its window then costs 40 pages of a newest-first list, and fits by the fuzzer's
	// reckoning). The three others are read first (their reads move, as form3's does: a tie in
	// the turn goes by id), so form3 gets 37 pages on that poll: its newest responses (the first
	// page) and the list's oldest end come, the middle of the import beyond 37 pages does not.
	it('Selected Forms, four forms, newest first, pages of 100: every response of an import of 3,550 to one of them comes, or its form is named', async () => {
		const toEach: Step[] = [0, 1, 2, 3].map((form) => ({
			kind: 'submit',
			form,
			count: 1,
			gapMs: 1,
		}));
		const steps: Step[] = [
			{ kind: 'poll', budget: 'default' },
			{ kind: 'advance', ms: 2_000 },
			{ kind: 'submit', form: 3, count: 3_550, gapMs: 200 },
			...Array.from({ length: 25 }, () => [
				...toEach,
				{ kind: 'poll' as const, budget: 'default' as const },
				{ kind: 'advance' as const, ms: MINUTE },
			]).flat(),
		];
		const schedule: Schedule = {
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 4,
				selected: [0, 1, 2, 3],
				version: 2,
				order: 'newestFirst',
				pageCap: 100,
				lookBackMinutes: 60,
			}),
			steps,
		};
		const trace = await runSchedule(schedule);
		expect(trace.schedule.assumptions).toBe('within');
		const imported = trace.server.responses.filter((r) => r.formId === 'form3');
		const heldUnnamed = imported.filter((r) => pollsUnnamedBeforeEmitted(trace, r.id) > 10);
		const first = heldUnnamed.slice(0, 3).map((r) => r.id);
		expect({ heldUnnamed: heldUnnamed.length, first }).toEqual({ heldUnnamed: 0, first: [] });
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('Selected Forms: a backlog of one form, read in executions of 2,000, beside another form', () => {
	// Every response since a date a day back: form0 holds 12,000 responses of that day (6 polls of
	// 2,000 items), form1 gets a response a minute. form0 is read first by id; its read ends on
	// the 2,000 items each poll hands over, which is no reason for it to be read first again.
	it('Selected Forms, oldest first, pages of 100: each new response of the other form comes within 2 polls while the backlog comes', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 2,
				selected: [0, 1],
				version: 2,
				order: 'oldestFirst',
				pageCap: 100,
				lookBackMinutes: 10,
				sinceAgoMs: 24 * 60 * MINUTE,
				seeded: [12_000, 0],
				seedAgoMs: 60 * MINUTE,
				seedSpacingMs: 5_000,
			}),
			steps: Array.from({ length: 10 }, () => [
				{ kind: 'submit' as const, form: 1, count: 1, gapMs: 1 },
				{ kind: 'poll' as const, budget: 'default' as const },
				{ kind: 'advance' as const, ms: MINUTE },
			]).flat(),
		});
		expect(trace.schedule.assumptions).toBe('within');
		const ofForm1 = trace.server.responses.filter((r) => r.formId === 'form1');
		const waits = ofForm1.map((r) => pollsUnnamedBeforeEmitted(trace, r.id));
		expect(waits.filter((polls) => polls > 2)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('a form whose reads failed, then are answered again behind another form', () => {
	// form1 holds 3,580 responses in its window (40 pages of a newest-first list: it fits);
	// form0 gets a response a minute and is read first (a tie in the turn goes by id). form1's
	// reads fail on four polls (a respondent deletes one of its responses before each, so it is
	// read); on the fifth every page of its read is answered, but behind form0's page it gets 39
	// of its 40 and learns nothing new (nothing was submitted to it): counted as its fifth poll
	// without progress, the error would name it though its reads no longer fail.
	it('Selected Forms, newest first, pages of 100: a form read fine again after four failed polls is not named', async () => {
		const submitToForm0: Step = { kind: 'submit', form: 0, count: 1, gapMs: 1 };
		const poll = (before: Step[]): Step[] => [
			submitToForm0,
			...before,
			{ kind: 'poll', budget: 'default' },
			{ kind: 'advance', ms: MINUTE },
		];
		const failing = (pick: number): Step[] =>
			poll([
				{ kind: 'delete', form: 1, pick },
				{ kind: 'fault', fault: { kind: 'serverError', status: 500 }, times: 1, form: 1 },
			]);
		const schedule: Schedule = {
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 2,
				selected: [0, 1],
				version: 2,
				order: 'newestFirst',
				pageCap: 100,
				lookBackMinutes: 60,
				seeded: [0, 3_580],
				seedAgoMs: MINUTE,
				seedSpacingMs: 200,
			}),
			steps: [
				...[0, 1, 2].flatMap(() => poll([])),
				...[150, 200, 250, 300].flatMap(failing),
				...[7, 8, 9, 10, 11, 12, 13].flatMap(() => poll([])),
			],
		};
		const trace = await runSchedule(schedule);
		expect(trace.schedule.assumptions).toBe('within');
		const answeredWhole = (index: number) =>
			trace.polls[index].requests.every((r) => r.formId !== 'form1' || r.status === 200);
		const namedWhileAnswered = trace.polls
			.filter((p) => answeredWhole(p.index) && p.errors.some((e) => e.includes('form1')))
			.map((p) => `${p.index}: ${p.errors.join(' | ')}`);
		expect(namedWhileAnswered).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('a look-back window that holds more than a poll reads (beyond the fifth assumption)', () => {
	// 3,900 responses in a 60-minute window, oldest first: a poll reads 40 pages and never its
	// end, where the new responses are. A response that shows up late near the window's start,
	// one a minute, is found on the first pages; the new responses at the end still wait, so the
	// form must be named.
	it('One Form, oldest first, pages of 100: with a late response a minute, no new response waits 5 polls without the form being named', async () => {
		const { server, driver } = setUp({ version: 2, pageCap: 100, lookBackMinutes: 60 });
		server.seed(0, 3_900, MINUTE, 200);
		const waiting: Array<{ id: string; from: number }> = [];
		let namedAt = -1;
		for (let poll = 0; poll < 20; poll++) {
			server.apply({ kind: 'submit', form: 0, count: 1 });
			waiting.push({ id: newestId(server), from: poll });
			if (poll > 0) server.apply({ kind: 'late', form: 0, count: 1, lateByMs: 50 * MINUTE });
			const { errors } = await driver.poll();
			if (errors.some((error) => error.includes('form0'))) namedAt = poll;
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		const unnamedLong = waiting.filter(
			({ id, from }) => timesEmitted(driver.emitted, id) === 0 && from < 15 && namedAt < from,
		);
		expect(unnamedLong.map(({ id }) => id)).toEqual([]);
		await drain(driver, 'beyond');
	});

	it('One Form, oldest first, pages of 100: with an import of 3,900 in a 60-minute window and a response a minute, no response waits 5 polls without the form being named', async () => {
		const { server, driver } = setUp({ version: 2, pageCap: 100, lookBackMinutes: 60 });
		server.seed(0, 3_900, MINUTE, 20);
		await driver.poll();
		server.apply({ kind: 'advance', ms: MINUTE });
		const waiting: Array<{ id: string; from: number }> = [];
		let namedAt = -1;
		for (let poll = 0; poll < 20; poll++) {
			server.apply({ kind: 'submit', form: 0, count: 1 });
			waiting.push({ id: newestId(server), from: poll });
			const { errors } = await driver.poll();
			if (errors.some((error) => error.includes('form0'))) namedAt = poll;
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		const unnamedLong = waiting.filter(
			({ id, from }) => timesEmitted(driver.emitted, id) === 0 && from < 15 && namedAt < from,
		);
		expect(unnamedLong.map(({ id }) => id)).toEqual([]);
		await drain(driver, 'beyond');
	});

	it('One Form, oldest first, pages of 100: the polls that name a form whose window holds more than a poll reads still emit the late responses they found', async () => {
		// Every response since a date 58 minutes back: the late responses, found on the walk's
		// first pages, are new.
		const { server, driver } = setUp({
			version: 2,
			pageCap: 100,
			lookBackMinutes: 60,
			sinceAgoMs: 58 * MINUTE,
		});
		server.seed(0, 3_900, MINUTE, 200);
		const late: string[] = [];
		let namings = 0;
		for (let poll = 0; poll < 11; poll++) {
			if (poll > 0) {
				server.apply({ kind: 'late', form: 0, count: 1, lateByMs: 50 * MINUTE });
				late.push(server.responses[server.responses.length - 1].id);
			}
			const { errors } = await driver.poll();
			if (errors.some((error) => error.includes('form0'))) namings++;
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		expect(namings).toBeGreaterThan(0);
		expect(late.filter((id) => timesEmitted(driver.emitted, id) !== 1)).toEqual([]);
	});
});
