/**
 * Turns between forms. Forms whose look-back windows each fit in a poll but not together: one is
 * walked whole a poll, and the others read the end of their lists, where the new responses are.
 * A small form beside several backlogs: the items a poll hands over are shared, so it is read
 * every poll. A window longer than any poll reads beside another form: named on the 5th poll.
 * Black-box: what was emitted, reported and asked of the simulated service.
 */
import { SimServer } from '../sim/server';
import {
	drain,
	longestWaits,
	MINUTE,
	newestId,
	pollsUnnamedBeforeEmitted,
	responsesTo,
	setUp,
	settingsWith,
	stepsAMinuteApart,
} from './named';
import { check, formatViolations } from './oracle';
import { REQUEST_MS, runSchedule, startMs } from './run';
import type { Step } from './schedule';

/** `polls` polls a minute apart, each after a response to every one of `forms` forms. */
function aResponseAMinuteToEach(forms: number, polls: number): Step[] {
	return stepsAMinuteApart(polls, () => responsesTo([...Array(forms).keys()]));
}

describe('several forms whose windows each fit in a poll, but not together', () => {
	// Five selected forms, each with 3,000 responses 200 ms apart a minute before activation in a
	// 60-minute window (33 of a poll's 40 pages each: each fits on its own, so the fifth assumption
	// holds) and a response a minute each. A whole read keeps `since` a window behind, so every read
	// walks its 3,000 again: one form is walked whole a poll; a form whose walk the poll has no
	// pages left for reads the end of its list instead (2 pages), where its new responses are.
	// Measured: a new response waits 2 polls at most (when every form walked whole before, each
	// waited 4, and the wait grew with the number of forms).
	it('Selected Forms, five forms of 3,000 in the window, oldest first: each new response comes within 2 polls, or its form is named', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 5,
				selected: [0, 1, 2, 3, 4],
				version: 2,
				order: 'oldestFirst',
				pageCap: 100,
				lookBackMinutes: 60,
				seeded: [3_000, 3_000, 3_000, 3_000, 3_000],
				seedAgoMs: MINUTE,
				seedSpacingMs: 200,
			}),
			steps: aResponseAMinuteToEach(5, 20),
		});
		expect(trace.schedule.assumptions).toBe('within');
		const waits = longestWaits(trace, 5, 1);
		expect(Object.values(waits).filter((polls) => polls > 2)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});

	// The same with the newest 100 on activation, four forms: choosing a form's newest on an
	// oldest-first list reads back through its window in spans that double (21, 42, ... 3,840
	// responses), more than a poll's 40 pages, so each form's choice takes a poll of its own; the
	// choice ends on poll 3, and then the forms not walked read the ends of their lists. Measured:
	// form3's new responses wait 4 polls, the others' 3 (6 when every form walked whole before).
	it('Selected Forms, the newest 100, four forms of 3,000 in the window, oldest first: each new response comes within 4 polls, or its form is named', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 4,
				selected: [0, 1, 2, 3],
				version: 2,
				newestCount: 100,
				order: 'oldestFirst',
				pageCap: 100,
				lookBackMinutes: 60,
				seeded: [3_000, 3_000, 3_000, 3_000],
				seedAgoMs: MINUTE,
				seedSpacingMs: 200,
			}),
			steps: aResponseAMinuteToEach(4, 20),
		});
		expect(trace.schedule.assumptions).toBe('within');
		const waits = longestWaits(trace, 4, 1);
		expect(Object.values(waits).filter((polls) => polls > 4)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('a look-back window that holds more than a poll reads, beside a form read before it every other poll', () => {
	// form1 holds 3,900 responses in its 60-minute window (beyond the fifth assumption: 41 pages
	// and more); form0 beside it is small; each gets a response a minute. Oldest first the new
	// responses are at the window's end: the end of the list is read on every poll. The window's
	// `total`, which that end proves, says no poll can walk it, so every poll counts, behind form0
	// or not: named on the 5th. (Counted only when cut with the poll to itself, it went first
	// every other poll and was named on the 10th.)
	it('Selected Forms, oldest first, pages of 100: no response of the form waits more than 5 polls without the form being named', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 2,
				selected: [0, 1],
				version: 2,
				order: 'oldestFirst',
				pageCap: 100,
				lookBackMinutes: 60,
				seeded: [0, 3_900],
				seedAgoMs: MINUTE,
				seedSpacingMs: 200,
			}),
			steps: aResponseAMinuteToEach(2, 20),
		});
		expect(trace.schedule.assumptions).toBe('beyond');
		const ofForm1 = trace.server.responses.filter(
			(r) => r.formId === 'form1' && (r.visibleAtMs ?? 0) >= trace.polls[1].startMs,
		);
		const longest = Math.max(...ofForm1.map((r) => pollsUnnamedBeforeEmitted(trace, r.id)));
		expect(longest).toBeLessThanOrEqual(5);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('Selected Forms: backlogs of several forms, read in executions of 2,000, beside a small form', () => {
	// Every response since a date a day back: form1 to form4 each hold 12,000 responses of that
	// day (6 polls of 2,000 items each), form0 gets a response a minute. The 2,000 items a poll
	// hands over are shared among the forms it reads, so every poll reads every form. (When the
	// items ended a poll's reading, each poll read one backlog and form0 waited a poll per
	// backlog form, up to 4, unnamed.)
	it("Selected Forms, oldest first, pages of 100: the small form's new responses come within 2 polls while four backlogs come", async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 5,
				selected: [0, 1, 2, 3, 4],
				version: 2,
				order: 'oldestFirst',
				pageCap: 100,
				lookBackMinutes: 10,
				sinceAgoMs: 24 * 60 * MINUTE,
				seeded: [0, 12_000, 12_000, 12_000, 12_000],
				seedAgoMs: 60 * MINUTE,
				seedSpacingMs: 5_000,
			}),
			steps: Array.from({ length: 15 }, () => [
				{ kind: 'submit' as const, form: 0, count: 1, gapMs: 1 },
				{ kind: 'poll' as const, budget: 'default' as const },
				{ kind: 'advance' as const, ms: MINUTE },
			]).flat(),
		});
		expect(trace.schedule.assumptions).toBe('within');
		const ofForm0 = trace.server.responses.filter((r) => r.formId === 'form0');
		const waits = ofForm0.map((r) => pollsUnnamedBeforeEmitted(trace, r.id));
		expect(waits.filter((polls) => polls > 2)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	});
});

describe('a service whose `total` counts every response of the form, whatever `since` asks', () => {
	// form1 holds 20,000 old responses and 3,600 in its 60-minute window: a walk of 38 pages, which
	// fits in a poll of its own but not behind form0's page. Its `total` says 23,600, as if the
	// window held 250 pages; the end of the list asked there is empty, so the trigger does not
	// take it at its word: it walks the window, and cut behind form0 it is not counted and goes
	// first on the next poll, where it is read whole. (Taken at its word, the window would be one
	// no poll can walk, named on the 5th poll.)
	it('Selected Forms, oldest first, pages of 100: a window cut behind another form is not named', async () => {
		const settings = settingsWith({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
			version: 2,
			order: 'oldestFirst',
			pageCap: 100,
			lookBackMinutes: 60,
		});
		const server = new SimServer(
			{
				since: 'exclusive',
				order: 'oldestFirst',
				pageCap: 100,
				totalAbsent: false,
				totalOfForm: true,
				requestMs: REQUEST_MS,
			},
			startMs(settings),
			2,
		);
		server.seed(1, 20_000, 2 * 24 * 60 * MINUTE, 1_000);
		server.seed(1, 3_600, MINUTE, 200);
		const { driver } = setUp(settings, server);
		const waiting: Array<{ id: string; from: number }> = [];
		const namings: number[] = [];
		for (let poll = 0; poll < 12; poll++) {
			server.apply({ kind: 'submit', form: 0, count: 1 });
			server.apply({ kind: 'submit', form: 1, count: 1 });
			if (poll > 0) waiting.push({ id: newestId(server, 'form1'), from: poll });
			const { errors } = await driver.poll();
			if (errors.some((error) => error.includes('form1'))) namings.push(poll);
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		expect(namings).toEqual([]);
		const emittedBy = (poll: number) =>
			new Set(driver.polls.slice(0, poll + 1).flatMap((p) => p.emitted.map((e) => e.id)));
		const late = waiting.filter(({ id, from }) => from < 10 && !emittedBy(from + 2).has(id));
		expect(late.map(({ id }) => id)).toEqual([]);
		await drain(driver);
	});
});
