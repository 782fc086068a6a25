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
	pollsUnnamedBeforeEmitted,
	responsesTo,
	settingsWith,
	stepsAMinuteApart,
} from './named';
import { check, formatViolations } from './oracle';
import type { Trace } from './run';
import { runSchedule } from './run';
import type { FuzzSettings, Step } from './schedule';

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
		const trace = await runSchedule({
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

/** Five selected forms, oldest first, pages of 100, a 60-minute window of 3,500 responses each. */
const busyWindows: Partial<FuzzSettings> = {
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
};

/** The busy windows, with `patch`, over 20 polls a minute apart: 60 responses a minute to each form. */
async function busyWindowsTrace(patch: Partial<FuzzSettings> = {}) {
	return await runSchedule({
		settings: settingsWith({ ...busyWindows, ...patch }),
		steps: responsesAMinuteToEach(5, 20, 60),
		assumptions: 'within',
	});
}

/**
 * When `now`: the service answers 503 to the next `times` requests of form `form` (`'any'`: to
 * the next requests, the list of forms first).
 */
function serverErrorsOn(now: boolean, form: number | 'any', times: number): Step[] {
	const fault = { kind: 'serverError' as const, status: 503 as const };
	if (!now) return [];
	return [form === 'any' ? { kind: 'fault', fault, times } : { kind: 'fault', fault, times, form }];
}

/**
 * The newest-first busy windows over `polls` polls a minute apart, 60 responses a minute to each
 * form, after the `faults` of each poll.
 */
async function newestFirstBusyTrace(polls: number, faults: (poll: number) => Step[]) {
	return await runSchedule({
		settings: settingsWith({ ...busyWindows, order: 'newestFirst' }),
		steps: stepsAMinuteApart(
			polls,
			(poll) => [...faults(poll), ...responsesTo([0, 1, 2, 3, 4], 60, 200)],
			MINUTE - 5 * 59 * 200,
		),
		assumptions: 'within',
	});
}

/** The errors naming any of the five forms, poll by poll. */
function namingAny(trace: Trace): string[] {
	return [0, 1, 2, 3, 4].flatMap((form) => naming(trace, `form${form}`));
}

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
		const trace = await busyWindowsTrace();
		const errors = namingAny(trace).filter((error) => Number(error.split(':')[0]) < 20);
		expect(errors).toEqual([]);
		const waits = Object.values(longestWaits(trace, 5, 1, 20));
		expect(Math.max(...waits)).toBeLessThanOrEqual(5);
		expect(formatViolations(check(trace))).toBe('');
	}, 90_000);
});

describe('New Response: busy windows that each fit in a poll, but not together', () => {
	// The busy windows above with Trigger On New Response: a form not yet read whole keeps the
	// floor of the activation and walks its window (it must learn it) rather than read the end of
	// its list; once walked whole, the floor goes and it is read as with New or Updated Response.
	// Measured: the windows are walked whole in turn, no error, a new response waits 5 polls at
	// most (seven such forms: 7 to 8 polls, no error either).
	it('no error names a form whose window fits, and a new response waits 5 polls at most', async () => {
		const trace = await busyWindowsTrace({ updatedResponses: 'ignore' });
		expect(namingAny(trace)).toEqual([]);
		expect(Math.max(...Object.values(longestWaits(trace, 5, 1, 20)))).toBeLessThanOrEqual(5);
		expect(formatViolations(check(trace))).toBe('');
	}, 90_000);
});

describe('newest first: busy windows that each fit in a poll, but not together', () => {
	// The busy windows above on a service that lists newest first (one such form alone is read
	// whole in 39 pages a poll). There is no end of the list to read instead of a walk that does
	// not fit: the walk goes as far as the poll's pages, and is cut. Its form keeps its turn once
	// and is counted; on the next poll, with a poll's worth to prove, its walk fits and the count
	// ends: each walk takes two polls in turn. (Sent to the back of the turns at once, a form
	// counted once was counted again on every poll that did not reach it: 19 errors in 25 polls,
	// every form named every 5th poll, "made no progress: the poll ran out of time", though its
	// window fits.)
	it('no error names a form whose window fits', async () => {
		const trace = await busyWindowsTrace({ order: 'newestFirst' });
		expect(namingAny(trace)).toEqual([]);
		// Each walk takes two polls at most (measured: a new response waits 8 polls at most).
		expect(Math.max(...Object.values(longestWaits(trace, 5, 1, 20)))).toBeLessThanOrEqual(10);
		expect(formatViolations(check(trace))).toBe('');
	}, 90_000);
});

describe('All Forms: busy windows, with an update now and then', () => {
	// Four forms (All Forms), oldest first, pages of 100, a 60-minute window of 3,500 responses
	// each, 58 a minute each, and an update of form0 every fourth poll. Measured: no error, a new
	// response waits 4 polls at most (7 when a first read cut by the poll's pages went to the back
	// of the turns at once).
	it('every new response comes within 4 polls, no error', async () => {
		const trace = await runSchedule({
			settings: settingsWith({ ...busyWindows, watch: 'allForms', formCount: 4, selected: [] }),
			steps: stepsAMinuteApart(30, (poll) => [
				...responsesTo([0, 1, 2, 3], 58, 10),
				...(poll % 4 === 2 ? [{ kind: 'update' as const, form: 0, pick: poll * 13 }] : []),
			]),
			assumptions: 'within',
		});
		expect(trace.polls.flatMap((poll) => poll.errors)).toEqual([]);
		expect(Math.max(...Object.values(longestWaits(trace, 4, 1, 29)))).toBeLessThanOrEqual(4);
		expect(formatViolations(check(trace))).toBe('');
	}, 120_000);
});

describe('newest first: busy windows that each fit in a poll, after one failed read', () => {
	// The newest-first busy windows above with one failure: the service answers 503 to form2's
	// read (a poll of several forms does not retry it), and is healthy after. On poll 12 that read begins form2's walk;
	// on poll 13 it is the walk's second poll, the one form2 keeps its turn for. A read that
	// failed for a moment did not have its turn: form2 is read first again on the next poll, and
	// its walk takes its two polls. (When the failed read used the turn, form2 went to the back,
	// was counted on each poll that did not reach it, and was named on polls 16 and 21, though
	// nothing of it was lost; with the failure on poll 12, and before the kept turn was its own
	// field, on polls 21, 26 and 31 too.)
	it.each([12, 13])(
		'a failed read on poll %i names no form, and its form is read on the next poll',
		async (failingPoll) => {
			const trace = await newestFirstBusyTrace(30, (poll) => [
				...serverErrorsOn(poll === failingPoll, 2, 1),
			]);
			const failedOn = trace.polls
				.filter((poll) => poll.requests.some((r) => r.status !== 200))
				.map((poll) => poll.index);
			expect(failedOn).toEqual([failingPoll]);
			const next = trace.polls[failingPoll + 1].requests;
			expect(next.some((r) => r.formId === 'form2' && r.status === 200)).toBe(true);
			expect(namingAny(trace)).toEqual([]);
			expect(formatViolations(check(trace))).toBe('');
		},
		120_000,
	);
});

describe('newest first: busy windows, and forms failing in one poll', () => {
	// The newest-first busy windows above; on poll 12 the service answers 503 to the reads of
	// form2 and form3 (and form4). Each failed read cost one request and keeps its form's turn:
	// on poll 13 they are read first. Two fit beside the others' two-poll walks: no form is
	// named. With three, form4 waits behind their walks until poll 17 and is named on poll 16,
	// its 5th poll without progress since its failed read, and only it. (When only the poll's
	// first failed read kept its turn, the second went to the back and was named on poll 16 with
	// two failing; when three failed reads ended the poll's reading, a form never asked was named
	// too.)
	it.each([
		['two forms', [2, 3], []],
		['three forms', [2, 3, 4], ['16: Form "Form 4" (form4)']],
	])(
		'%s: only a form that waits 5 polls after its failure is named',
		async (_, failing, named) => {
			const trace = await newestFirstBusyTrace(30, (poll) =>
				failing.flatMap((form) => serverErrorsOn(poll === 12, form, 1)),
			);
			expect(namingAny(trace).map((error) => error.split(' could')[0])).toEqual(named);
			expect(formatViolations(check(trace))).toBe('');
		},
		120_000,
	);
});

describe('newest first: busy windows, four failed reads, then a failed list of forms', () => {
	// The newest-first busy windows above; form2's reads fail on polls 12 to 15 (a 503 on its
	// next 4 requests), so it has 4 polls without progress. On poll 16 its walk begins, cut by
	// the poll's pages: a page served ends the failure, and the count that names it starts
	// there; it keeps its turn until that count would name it, and its walk goes on (the list
	// of forms fails on poll 17). (Counting on from the failure, it was named on poll 16, lost
	// its turn, and was named on polls 22 and 27 while it waited, though nothing of it was lost.
	// Not counting a read that keeps its turn when that would name its form moved the alarm to
	// the next cut read, named a window no poll reads whole a poll later than every 5th, and,
	// with One Form, never named a form with more in one millisecond than a poll reads.)
	it('no form is named', async () => {
		const trace = await newestFirstBusyTrace(30, (poll) => [
			...serverErrorsOn(poll === 12, 2, 4),
			...serverErrorsOn(poll === 17, 'any', 1),
		]);
		expect(namingAny(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	}, 120_000);
});

describe('newest first: busy windows, and a form failing on every other poll', () => {
	// The newest-first busy windows above; from poll 12 the service answers 503 to form2's next
	// read on every other poll, its walk cut on the polls between. A failed read keeps its turn,
	// and so does a cut walk, but only until the form is named: then it takes its turn, and the
	// other forms are read. Measured: form2 named on poll 16 for the 503, and every 5th poll after;
	// a new response to the other forms waits 10 polls at most. (Keeping its turn for ever, form2
	// left form0, form1 and form4 without a request for 33 polls, unnamed.)
	it('the other forms are read, and none of them is named', async () => {
		const trace = await newestFirstBusyTrace(45, (poll) => [
			...serverErrorsOn(poll >= 12 && poll % 2 === 0, 2, 1),
		]);
		expect(naming(trace, 'form2')[0]).toMatch(/^16: .*server error/);
		for (const form of [0, 1, 3, 4]) expect(naming(trace, `form${form}`)).toEqual([]);
		const waits = longestWaits(trace, 5, 1, 44);
		expect(Math.max(waits.form0, waits.form1, waits.form3, waits.form4)).toBeLessThanOrEqual(10);
		expect(formatViolations(check(trace))).toBe('');
	}, 180_000);
});

describe('newest first: busy windows that each fit in a poll, after two failed polls', () => {
	// The newest-first busy windows above; on poll 13, while form2's walk takes its two polls,
	// the service fails the next 2 requests: the list of forms of polls 13 and 14. On poll 15 form2 has three polls' worth to prove, and its walk is cut again. A
	// form cut by the poll's pages keeps its turn until it is named, so its walk fits on poll 16.
	// (When it kept its turn once until it made progress, it went to the back on poll 15, had
	// five polls' worth to prove whenever its turn came, was cut each time, and was named on
	// polls 18, 23 and 28 though nothing of it was lost.)
	it('no error names a form, and every walk goes on', async () => {
		const trace = await newestFirstBusyTrace(30, (poll) => serverErrorsOn(poll === 13, 'any', 2));
		const failedOn = trace.polls
			.filter((poll) => poll.requests.some((r) => r.status !== 200))
			.map((poll) => poll.index);
		expect(failedOn).toEqual([13, 14]);
		expect(namingAny(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	}, 120_000);
});

describe('a window no poll reads whole beside one that fits', () => {
	// Two selected forms, oldest first, pages of 100, a 60-minute window: form0 holds 3,750
	// (beyond the fifth assumption: its walk needs 39 pages after the two that begin it), form1
	// 3,500, about 60 responses a minute each as as many leave, and from poll 10 one response a
	// poll to form1 that shows up half a window late. form0 reads the end of its list on every
	// poll it is first, and takes its normal turn when it was cut on the poll before: form1,
	// whose window fits, is then first and walked. Responses that leave the window are no
	// progress (`since` passes them with the clock), so form0's count is not reset on the polls
	// it is read behind form1, and it is named. (Keeping the first place each poll, form0 held
	// form1's walk back for 17 polls, unnamed; and with what left the window counted as progress,
	// form0 was never named.)
	it('the form that fits is walked, and the other is named', async () => {
		const trace = await runSchedule({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 2,
				selected: [0, 1],
				version: 2,
				order: 'oldestFirst',
				pageCap: 100,
				lookBackMinutes: 60,
				seeded: [3_750, 3_500],
				seedAgoMs: 1_000,
				seedSpacingMs: 960,
			}),
			steps: stepsAMinuteApart(30, (poll) => [
				...responsesTo([0], 62, 10),
				...(poll >= 4 ? responsesTo([1], 58, 10) : []),
				...(poll >= 10 ? [{ kind: 'late' as const, form: 1, count: 1, permille: 500 }] : []),
			]),
			assumptions: 'beyond',
		});
		const late = trace.server.responses.filter(
			(r) => r.formId === 'form1' && r.versions[0].atMs < r.visibleAtMs - 1_000,
		);
		expect(late.length).toBe(20);
		const waits = late.map((r) => pollsUnnamedBeforeEmitted(trace, r.id));
		expect(Math.max(...waits)).toBeLessThanOrEqual(2);
		expect(naming(trace, 'form1')).toEqual([]);
		expect(naming(trace, 'form0').filter((error) => Number(error.split(':')[0]) < 30)).not.toEqual(
			[],
		);
		expect(formatViolations(check(trace))).toBe('');
	}, 90_000);
});

describe('New Response: forms added to Selected Forms whose first read the poll cuts', () => {
	// form0 is selected; form1 and form2, 3,000 responses each in a 60-minute window (oldest
	// first, pages of 100), are added on poll 2. Measured: the poll that adds them walks form1's
	// window whole (33 pages) and cuts form2's walk after 7; form2's first whole read comes on
	// poll 3, and with it goes the floor of the moment it was added. Then respondents update 4 of
	// form2's responses that existed when it was added, 4 more a poll later, and 4 of form1's.
	// None of the responses that existed when the forms were added comes, updated or not (the
	// oracle does not judge forms added later on this).
	it('no response that existed when its form was added comes, updated or not', async () => {
		const updates = (form: number, picks: number[]): Step[] =>
			picks.map((pick) => ({ kind: 'update' as const, form, pick }));
		const trace = await runSchedule({
			settings: settingsWith({
				watch: 'selectedForms',
				formCount: 3,
				selected: [0],
				version: 2,
				order: 'oldestFirst',
				updatedResponses: 'ignore',
				pageCap: 100,
				lookBackMinutes: 60,
				seeded: [10, 3_000, 3_000],
				seedAgoMs: MINUTE,
				seedSpacingMs: 200,
			}),
			steps: [
				...responsesAMinuteToEach(3, 2),
				{ kind: 'select', selected: [0, 1, 2] },
				...responsesAMinuteToEach(3, 2),
				...updates(2, [2_990, 2_500, 1_000, 10]),
				...responsesAMinuteToEach(3, 1),
				...updates(2, [2_980, 2_000, 1_500, 20]),
				...responsesAMinuteToEach(3, 1),
				...updates(1, [2_970, 2_200, 1_100, 30]),
				...responsesAMinuteToEach(3, 4),
			],
		});
		expect(trace.schedule.assumptions).toBe('within');
		const addedAtMs = trace.polls[2].startMs;
		const existedWhenAdded = new Set(
			trace.server.responses
				.filter((r) => r.formId !== 'form0' && r.visibleAtMs < addedAtMs - 1_000)
				.map((r) => r.id),
		);
		const updated = trace.server.responses.filter(
			(r) => existedWhenAdded.has(r.id) && r.versions.length > 1,
		);
		expect(updated.length).toBe(12);
		expect(trace.emitted.filter((e) => existedWhenAdded.has(e.id)).map((e) => e.tag)).toEqual([]);
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
		const trace = await runSchedule({
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

describe('a failing form behind busy windows', () => {
	// Six selected forms, oldest first, pages of 100, a 60-minute window: four of 3,500 responses
	// (about 50 a minute each, as many leave), and two small ones. From poll 3 the service answers
	// 503 to form5's next requests, one to a read (a poll of several forms retries no 503). The busy windows
	// take a poll's 40 pages each, but a read that failed for a moment did not have its turn:
	// form5, reached on poll 3 or 4, is read first on each poll until it is read. (When a failed read used the turn, form5
	// was read every 5th poll, counted on the polls between, and named on polls 8, 13 and 18
	// for three failed reads; its responses waited until poll 18.)
	const failingFrom3 = async (failedReads: number) => {
		const steps = stepsAMinuteApart(
			20,
			(poll) => [
				...serverErrorsOn(poll === 3, 5, failedReads),
				...responsesTo([0, 1, 2, 3, 4, 5], 50, 150),
			],
			MINUTE - 6 * 49 * 150,
		);
		return await runSchedule({
			settings: settingsWith({
				...busyWindows,
				formCount: 6,
				selected: [0, 1, 2, 3, 4, 5],
				seeded: [3_500, 3_500, 3_500, 3_500, 0, 0],
			}),
			steps,
			assumptions: 'within',
		});
	};
	const failedReadsOf = (trace: Trace, formId: string) =>
		trace.polls
			.filter((poll) => poll.requests.some((r) => r.formId === formId && r.status !== 200))
			.map((poll) => poll.index);
	const emittedOn = (trace: Trace, formId: string) =>
		trace.emitted.filter((e) => e.formId === formId).map((e) => e.poll);

	it('three failed reads, on three polls in a row: its responses come on the next', async () => {
		const trace = await failingFrom3(3);
		const failed = failedReadsOf(trace, 'form5');
		expect(failed).toEqual([failed[0], failed[0] + 1, failed[0] + 2]);
		expect(failed[0]).toBeLessThanOrEqual(4);
		expect(Math.min(...emittedOn(trace, 'form5').filter((poll) => poll >= failed[0]))).toBe(
			failed[0] + 3,
		);
		expect(naming(trace, 'form5')).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	}, 120_000);

	it('five failed reads, on five polls in a row: it is named on the 5th, for the failure', async () => {
		const trace = await failingFrom3(5);
		const failed = failedReadsOf(trace, 'form5');
		expect(failed).toEqual([0, 1, 2, 3, 4].map((poll) => failed[0] + poll));
		const named = naming(trace, 'form5');
		expect(named.map((error) => Number(error.split(':')[0]))).toEqual([failed[4]]);
		expect(named[0]).toContain('could not be read');
		expect(namingAny(trace)).toEqual([]);
		expect(formatViolations(check(trace))).toBe('');
	}, 120_000);
});
