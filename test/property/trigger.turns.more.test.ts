/**
 * More turns between forms whose look-back windows each fit in a poll, but not together: with
 * New Response, with busy windows that responses keep leaving, and with backlogs inside the
 * windows that the items a poll hands over are shared among. The first two are open (each fails
 * today, and `it.failing` turns red when it is fixed; docs/design.md, "One way to fail", says
 * so). Black-box: what was emitted, reported and asked of the simulated service.
 */
import { MINUTE, naming, pollsUnnamedBeforeEmitted, settingsWith } from './named';
import { runUnstarved } from './fuzz';
import { check, formatViolations } from './oracle';
import type { Trace } from './run';
import type { Step } from './schedule';

/** `polls` polls a minute apart, each after `perForm` responses to every one of `forms` forms. */
function responsesAMinuteToEach(forms: number, polls: number, perForm = 1): Step[] {
	const gapMs = Math.floor(MINUTE / (forms * perForm));
	return Array.from({ length: polls }, () => [
		...Array.from({ length: forms }, (_, form) => ({
			kind: 'submit' as const,
			form,
			count: perForm,
			gapMs,
		})),
		{ kind: 'poll' as const, budget: 'default' as const },
		{ kind: 'advance' as const, ms: MINUTE - forms * (perForm - 1) * gapMs },
	]).flat();
}

/** The longest wait of a new response shown from poll `fromPoll` to poll `toPoll`, form by form. */
function longestWaits(trace: Trace, forms: number, fromPoll: number, toPoll: number) {
	const out: Record<string, number> = {};
	for (let form = 0; form < forms; form++) {
		const formId = `form${form}`;
		const fresh = trace.server.responses.filter(
			(r) =>
				r.formId === formId &&
				r.visibleAtMs >= trace.polls[fromPoll].startMs &&
				r.visibleAtMs < trace.polls[toPoll].startMs,
		);
		out[formId] = Math.max(0, ...fresh.map((r) => pollsUnnamedBeforeEmitted(trace, r.id)));
	}
	return out;
}

describe('New Response: several forms whose windows each fit in a poll, but not together', () => {
	// The story of five selected forms of 3,000 responses in a 60-minute window (oldest first,
	// pages of 100, a response a minute each), with Trigger On New Response. A whole walk reaches
	// 33 of a poll's 40 pages: one form is walked a poll, and the others should read the end of
	// their lists, where their new responses are (with New or Updated Response they do: a new
	// response waits 2 polls at most, measured on the same schedule). Here the forms that were not
	// read whole at activation keep the activation's floor until `since` passes it, a look-back
	// window later, and a window with a floor is walked instead of read at its end, though the
	// form's first whole walk since already learned every existing response in it. Measured over
	// 20 polls: each poll walks one form whole (33 pages), the next form walks the 7 pages left and
	// is cut (form0, whose floor went with its whole read at activation, reads its end instead),
	// the others are not reached; new responses wait 3 polls (form0) or 4 (form1 to form4),
	// unnamed. Within the assumptions; the oracle's liveness bound (18 polls here) does not see
	// it. (Before a window with a floor was walked rather than read at its end, the same story
	// kept the 2 polls.)
	it.failing(
		'each new response comes within 2 polls, as with New or Updated Response',
		async () => {
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
			const waits = longestWaits(trace, 5, 1, 20);
			const tooLong = Object.entries(waits).filter(([, polls]) => polls > 2);
			expect(tooLong.map(([formId, polls]) => `${formId}: ${polls}`)).toEqual([]);
			expect(formatViolations(check(trace))).toBe('');
		},
		60_000,
	);
});

describe('busy windows that each fit in a poll, but not together, as responses keep leaving them', () => {
	// Five selected forms, oldest first, pages of 100, a 60-minute window holding 3,500 responses
	// each, and 60 a minute each come as about 58 leave: measured, each window holds 3,504 to
	// 3,534 and 56 to 59 leave it between two polls (the fifth assumption: a window fits when it
	// holds at most 3,615 and at most 100 left it since the last poll; the fuzzer's classifier
	// counts every response the steps add as if all were in one window, so the story says
	// `within` itself). A walk costs 38 to 39 pages, so one form is walked a poll. A read begins
	// where its form's last read's window began: a form not reached for several polls has several
	// minutes more to prove (a page per 100), and when its turn comes the walk no longer fits; it
	// reads the end of its list instead, is counted (its first read of the poll, cut) and takes
	// its turn. Counted, it is counted again on every poll that does not reach it, with "the poll
	// ran out of time", though every poll read 40 pages at most in 41 ms (virtual) of its 5
	// minutes. Measured: form2 is walked on poll 7 and not again; on polls 12 and 17 it is first,
	// reads 5 pages, and is named on poll 16 ("made no progress: the poll ran out of time"), the
	// 5th poll it was counted; its new responses wait up to 8 polls unnamed, the other forms' 4.
	// Within the assumptions by their letter, though at the edge of what the polls hold: five
	// walks of about 37 pages and what left five windows in 5 polls come to about the 200 pages
	// those polls read. The oracle's P4a lets "made no progress" pass in a poll that read 40 pages.
	it.failing(
		'no error names a form whose window fits',
		async () => {
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
			expect(formatViolations(check(trace))).toBe('');
		},
		90_000,
	);
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
