/**
 * Look-back windows of many pages that nothing leaves for a while: responses that came in
 * together (a live event, a campaign), then quiet. Within the promise's assumptions (the
 * fuzzer's own reckoning of the fifth: the window fits in what every poll reads) such a form is
 * read fine, so it is never named, and it holds back no other form. On the simulated service,
 * black-box: what was emitted, reported and asked.
 */
import { check, formatViolations } from './oracle';
import type { Trace } from './run';
import { runSchedule } from './run';
import type { Budget, FuzzSettings, Schedule, Step } from './schedule';
import { naming, settingsWith } from './named';

const MINUTE = 60_000;

/** The steps of `polls` polls a minute apart, each with `budget`, and what happens before each. */
function stepsAMinuteApart(polls: number, budget: Budget, before: Step[] = []): Step[] {
	return Array.from({ length: polls }, () => [
		...before,
		{ kind: 'poll' as const, budget },
		{ kind: 'advance' as const, ms: MINUTE },
	]).flat();
}

/**
 * The trigger is activated, then `count` responses are submitted `gapMs` apart, then 14 polls a
 * minute apart (a response before each with `trickle`): a look-back window of 10 minutes lets
 * go of them before the last.
 */
function importThenPolls(
	patch: Partial<FuzzSettings>,
	count: number,
	gapMs: number,
	budget: Budget,
	trickle = false,
): Schedule {
	const submitOne: Step = { kind: 'submit', form: 0, count: 1, gapMs: 1 };
	return {
		settings: settingsWith({ version: 2, pageCap: 100, ...patch }),
		steps: [
			{ kind: 'poll', budget },
			{ kind: 'advance', ms: 2_000 },
			{ kind: 'submit', form: 0, count, gapMs },
			...stepsAMinuteApart(14, budget, trickle ? [submitOne] : []),
		],
	};
}

/**
 * The most polls a response (of `formId`, or of any form) waited, from the first poll after it
 * was submitted to the one that emitted it.
 */
function longestWait(trace: Trace, formId?: string): number {
	const emittedAt = new Map<string, number>();
	for (const e of trace.emitted) if (!emittedAt.has(e.id)) emittedAt.set(e.id, e.poll);
	let longest = 0;
	for (const response of trace.server.responses) {
		if (formId !== undefined && response.formId !== formId) continue;
		const submittedAt = response.versions[0].atMs;
		const due = trace.polls.findIndex((poll) => poll.startMs >= submittedAt);
		if (due < 0) continue;
		const at = emittedAt.get(response.id) ?? trace.polls.length;
		longest = Math.max(longest, at - due);
	}
	return longest;
}

function emittedTwice(trace: Trace): string[] {
	const tags = trace.emitted.map((e) => e.tag);
	return [...new Set(tags.filter((tag, i) => tags.indexOf(tag) !== i))];
}

describe('a look-back window of many pages that nothing leaves: the form is not named', () => {
	it('One Form, newest first, pages of 100: 1,500 responses in 150 s, then quiet polls a minute apart: each comes once and the form is never named', async () => {
		const trace = await runSchedule(
			importThenPolls({ order: 'newestFirst' }, 1_500, 100, 'default'),
		);
		expect(trace.schedule.assumptions).toBe('within');
		expect(naming(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});

	it('One Form, newest first, pages of 100: activated a second after 1,500 responses came in, quiet polls do not name the form', async () => {
		const schedule: Schedule = {
			settings: settingsWith({
				version: 2,
				order: 'newestFirst',
				pageCap: 100,
				seeded: [1_500, 0, 0, 0],
				seedAgoMs: 1_000,
				seedSpacingMs: 100,
			}),
			steps: stepsAMinuteApart(14, 'default'),
		};
		const trace = await runSchedule(schedule);
		expect(trace.schedule.assumptions).toBe('within');
		expect(naming(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});

	it('All Forms, newest first, pages of 100: 1,500 responses of form0 in 150 s, then quiet polls: form0 is never named', async () => {
		const trace = await runSchedule(
			importThenPolls(
				{ order: 'newestFirst', watch: 'allForms', formCount: 2 },
				1_500,
				100,
				'default',
			),
		);
		expect(trace.schedule.assumptions).toBe('within');
		expect(naming(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});

	// n8n 2.41's durable scheduler gives a poll 36 s; the service answers a page in 2 s: four
	// fifths of the poll reads 14 pages, and the window holds 8.
	it('36 s polls, 2 s a page, newest first, pages of 100: 800 responses in 80 s, then quiet polls: the form is never named', async () => {
		const trace = await runSchedule(
			importThenPolls({ order: 'newestFirst', requestMs: 2_000 }, 800, 100, '36s'),
		);
		expect(trace.schedule.assumptions).toBe('within');
		expect(naming(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});

	it('One Form, oldest first, pages of 100, a look-back window of 15 minutes: 3,500 responses in 350 s (37 pages walked), then quiet polls: the form is never named', async () => {
		const trace = await runSchedule(
			importThenPolls({ order: 'oldestFirst', lookBackMinutes: 15 }, 3_500, 100, 'default'),
		);
		expect(trace.schedule.assumptions).toBe('within');
		expect(naming(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('a look-back window of many pages that nothing leaves: what a poll costs', () => {
	// Every poll reads the window whole (a response may show up late in it): its pages, the
	// first page again, and the look at the list's oldest end that moves `since` to the window.
	it.each([
		['newestFirst', 1_500, 18],
		['oldestFirst', 1_500, 17],
		['newestFirst', 800, 11],
	] as const)(
		'%s, pages of 100: a window of %i responses costs each poll at most %i requests',
		async (order, count, most) => {
			const trace = await runSchedule(importThenPolls({ order }, count, 100, 'default', true));
			const requests = trace.polls.slice(1, 8).map((poll) => poll.requests.length);
			expect(Math.max(...requests)).toBeLessThanOrEqual(most);
			expect(formatViolations(check(trace))).toBe('');
		},
	);
});

describe('a form whose look-back window holds many pages does not hold back the other forms', () => {
	// form0 gets 1,500 responses in 150 s (a window of 15 pages, read in more than a poll's 40
	// pages on a newest-first list); form1 gets one response before every poll. A read that
	// makes no progress keeps its form's turn, so form0 would be read first on every poll.
	const busyBesideQuiet = (
		watch: 'allForms' | 'selectedForms',
		patch: Partial<FuzzSettings>,
		count: number,
		budget: Budget,
	): Schedule => {
		const submitToForm1: Step = { kind: 'submit', form: 1, count: 1, gapMs: 1 };
		return {
			settings: settingsWith({
				version: 2,
				order: 'newestFirst',
				pageCap: 100,
				watch,
				formCount: 2,
				selected: [0, 1],
				lookBackMinutes: 15,
				...patch,
			}),
			steps: [
				{ kind: 'poll', budget },
				{ kind: 'advance', ms: 2_000 },
				{ kind: 'submit', form: 0, count, gapMs: 100 },
				...stepsAMinuteApart(20, budget, [submitToForm1]),
			],
		};
	};

	it.each(['allForms', 'selectedForms'] as const)(
		'%s, newest first, pages of 100: while form0 holds 1,500 responses in its window, each response of form1 comes within two polls',
		async (watch) => {
			const trace = await runSchedule(busyBesideQuiet(watch, {}, 1_500, 'default'));
			expect(trace.schedule.assumptions).toBe('within');
			expect(longestWait(trace, 'form1')).toBeLessThanOrEqual(2);
			expect(naming(trace, 'form1')).toEqual([]);
			expect(emittedTwice(trace)).toEqual([]);
		},
	);

	it('Selected Forms, 36 s polls, 2 s a page, newest first: while form0 holds 800 responses in its window, each response of form1 comes within two polls', async () => {
		const trace = await runSchedule(
			busyBesideQuiet('selectedForms', { requestMs: 2_000 }, 800, '36s'),
		);
		expect(trace.schedule.assumptions).toBe('within');
		expect(longestWait(trace, 'form1')).toBeLessThanOrEqual(2);
		expect(naming(trace, 'form1')).toEqual([]);
		expect(emittedTwice(trace)).toEqual([]);
	});
});

describe('a look-back window of many pages that nothing leaves: each response comes within two polls', () => {
	it('36 s polls, 2 s a page, newest first, pages of 100: 1,000 responses in 100 s, then one a minute: each comes within two polls', async () => {
		const trace = await runSchedule(
			importThenPolls({ order: 'newestFirst', requestMs: 2_000 }, 1_000, 100, '36s', true),
		);
		expect(trace.schedule.assumptions).toBe('within');
		expect(emittedTwice(trace)).toEqual([]);
		expect(longestWait(trace)).toBeLessThanOrEqual(2);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('look-back windows of many pages that still fit: nothing named, nothing late', () => {
	it('newest first without a total, pages of 100: 1,500 responses in 150 s, then quiet polls: each comes once and the form is never named', async () => {
		const trace = await runSchedule(
			importThenPolls({ order: 'newestFirst', totalAbsent: true }, 1_500, 100, 'default'),
		);
		expect(trace.schedule.assumptions).toBe('within');
		expect(naming(trace)).toEqual([]);
		expect(longestWait(trace)).toBe(0);
		expect(formatViolations(check(trace))).toBe('');
	});

	it('One Form, newest first, pages of 100: 1,300 responses in 130 s, then polls with a deletion and updates between their pages: each version comes once and the form is never named', async () => {
		const edits: Step[] = [
			{ kind: 'during', afterRequests: 3, event: { kind: 'delete', form: 0, pick: 40 } },
			{ kind: 'during', afterRequests: 9, event: { kind: 'update', form: 0, pick: 700 } },
			{ kind: 'during', afterRequests: 17, event: { kind: 'update', form: 0, pick: 1_100 } },
			{ kind: 'during', afterRequests: 24, event: { kind: 'delete', form: 0, pick: 5 } },
		];
		const schedule = importThenPolls({ order: 'newestFirst' }, 1_300, 100, 'default');
		schedule.steps = [...schedule.steps.slice(0, 3), ...stepsAMinuteApart(14, 'default', edits)];
		const trace = await runSchedule(schedule);
		expect(trace.schedule.assumptions).toBe('within');
		expect(naming(trace)).toEqual([]);
		expect(emittedTwice(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});
});
