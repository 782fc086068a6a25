/**
 * More turns between forms whose look-back windows each fit in a poll, but not together: with
 * New Response, with busy windows that responses keep leaving, and with backlogs inside the
 * windows that the items a poll hands over are shared among. Black-box: what was emitted,
 * reported and asked of the simulated service.
 */
import {
	longestWaits,
	MINUTE,
	naming,
	responsesTo,
	settingsWith,
	stepsAMinuteApart,
} from './named';
import { runUnstarved } from './fuzz';
import { check, formatViolations } from './oracle';
import type { Step } from './schedule';

/** `polls` polls a minute apart, each after `perForm` responses to every one of `forms` forms. */
function responsesAMinuteToEach(forms: number, polls: number, perForm = 1): Step[] {
	const gapMs = Math.floor(MINUTE / (forms * perForm));
	const submits = responsesTo([...Array(forms).keys()], perForm, gapMs);
	return stepsAMinuteApart(polls, () => submits, MINUTE - forms * (perForm - 1) * gapMs);
}

describe('New Response: several forms whose windows each fit in a poll, but not together', () => {
	// Five selected forms of 3,000 responses in a 60-minute window (oldest first, pages of 100, a
	// response a minute each), with Trigger On New Response. Until a form's window is read whole,
	// its existing responses there are not all known, and a response at the end of its list may
	// be an update of one of them: the window is walked, and its new responses wait for that
	// walk. A walk takes 33 of a poll's 40 pages, so the windows are learned one a poll (form0 at
	// activation, form4 on poll 4). Once learned, a form is read at its end like with New or
	// Updated Response: its floor, the activation's, goes with its first whole walk. Measured: a
	// new response waits 3 polls at most on polls 1 to 4, and 2 from poll 5 on. (While the floor
	// stayed for a look-back window, a window with a floor was walked, not read at its end: 3
	// polls for form0 and 4 for the others, poll after poll.)
	it('once its window is learned, a new response comes within 2 polls', async () => {
		const trace = await runUnstarved({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 5,
				selected: [0, 1, 2, 3, 4],
				version: 2,
				order: 'oldestFirst',
				updatedResponses: 'ignore',
				pageCap: 100,
				lookBackMinutes: 60,
				seeded: [3_000, 3_000, 3_000, 3_000, 3_000],
				seedAgoMs: MINUTE,
				seedSpacingMs: 200,
			}),
			steps: responsesAMinuteToEach(5, 20),
		});
		expect(trace.schedule.assumptions).toBe('within');
		const longerThan = (waits: Record<string, number>, polls: number) =>
			Object.entries(waits)
				.filter(([, waited]) => waited > polls)
				.map(([formId, waited]) => `${formId}: ${waited}`);
		expect(longerThan(longestWaits(trace, 5, 1, 5), 4)).toEqual([]);
		expect(longerThan(longestWaits(trace, 5, 5, 20), 2)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	}, 60_000);
});

describe('busy windows that each fit in a poll, but not together, as responses keep leaving them', () => {
	// Five selected forms, oldest first, pages of 100, a 60-minute window holding 3,500 responses
	// each, and 60 a minute each come as about 58 leave: measured, each window holds 3,504 to
	// 3,534 and 56 to 59 leave it between two polls (the fifth assumption: a window fits when it
	// holds at most 3,615 and at most 100 left it since the last poll; the fuzzer's classifier
	// counts every response the steps add as if all were in one window, so the story says
	// `within` itself). A walk costs 38 to 39 pages, so the windows are walked in turn, one a
	// poll, and a new response waits for its form's walk. A read begins where its form's last
	// read's window began: a form whose turn comes after four polls has four minutes more to
	// prove, and its walk no longer fits behind that. It reads the end of its list instead and
	// keeps its turn: on the next poll it has one minute to prove, and its walk fits. Measured:
	// no error, a new response waits 5 polls at most. (Going to the back of the turns instead, it
	// was counted on every poll that did not reach it, and form2 was named on poll 16, "made no
	// progress: the poll ran out of time", its new responses waiting up to 8 polls.)
	it('no error names a form whose window fits, and the walks take turns', async () => {
		const trace = await runUnstarved({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 5,
				selected: [0, 1, 2, 3, 4],
				version: 2,
				order: 'oldestFirst',
				pageCap: 100,
				lookBackMinutes: 60,
				seeded: [3_500, 3_500, 3_500, 3_500, 3_500],
				seedAgoMs: 1_000,
				seedSpacingMs: 1_028,
			}),
			steps: responsesAMinuteToEach(5, 20, 60),
			assumptions: 'within',
		});
		const errors = [0, 1, 2, 3, 4].flatMap((form) =>
			naming(trace, `form${form}`).filter((error) => Number(error.split(':')[0]) < 20),
		);
		expect(errors).toEqual([]);
		const waits = Object.values(longestWaits(trace, 5, 1, 20));
		expect(Math.max(...waits)).toBeLessThanOrEqual(5);
		expect(formatViolations(check(trace))).toBe('');
	}, 90_000);
});

describe('Every Response Since a Date inside the look-back window: backlogs in the windows of five forms', () => {
	// Five selected forms, oldest first, pages of 100, a 60-minute window, 3,000 responses each
	// 200 ms apart up to a minute before activation, a response a minute each; every response
	// since a date 10 minutes before activation: about 2,700 of each window, 13,500 in all, are to
	// come (each window fits in a poll: 33 pages). A form's read may take what the poll still
	// hands over less a page's worth (100) for each form read after it: the first form's walk
	// takes 1,600 and more, the others read the ends of their lists. Measured: 2,056 items on the
	// activation's poll, then 1,611 and 1,009 to 1,011 a poll; the last of the backlog comes on
	// poll 9, as when one form's walk took the poll's 2,000. (Shared in equal parts, 400 items a
	// form cut the first walk, and a second read began it again at the window's start: 471 to 480
	// a poll, the last on poll 28, beyond the oracle's liveness bound.) Within the assumptions.
	it('the backlogs come at nearly 2,000 items a poll, within the liveness bound', async () => {
		const trace = await runUnstarved({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 5,
				selected: [0, 1, 2, 3, 4],
				version: 2,
				order: 'oldestFirst',
				pageCap: 100,
				lookBackMinutes: 60,
				sinceAgoMs: 10 * MINUTE,
				seeded: [3_000, 3_000, 3_000, 3_000, 3_000],
				seedAgoMs: MINUTE,
				seedSpacingMs: 200,
			}),
			steps: responsesAMinuteToEach(5, 20),
		});
		expect(trace.schedule.assumptions).toBe('within');
		const backlog = new Set(
			trace.server.responses.filter((r) => r.visibleAtMs < trace.polls[0].startMs).map((r) => r.id),
		);
		const backlogOut = Math.max(
			...trace.emitted.filter((e) => backlog.has(e.id)).map((e) => e.poll),
		);
		expect(backlogOut).toBeLessThanOrEqual(10);
		expect(formatViolations(check(trace))).toBe('');
	}, 60_000);
});
