/**
 * Breaks of the trigger's promise (docs/trigger-promise.md) found by a third adversarial review,
 * of the newest changes (the search for lost anchors a page further back each poll, a whole read
 * that is not proven counted as a poll without progress, the newest N's floor at the activation
 * moment, the host clock without a Date header). Each test is written as the promise says it
 * should be; a break not fixed yet is `it.failing` (it passes while the break is there, and
 * fails the day a change fixes it — then drop `.failing`). The REPRO comment says what broke,
 * why, and the mechanism; replay one with
 *   npx jest test/property/trigger.review2.test.ts --maxWorkers=1 -t '<name>'
 */
import type { IHttpRequestOptions } from 'n8n-workflow';

import type { SimServer } from '../sim/server';
import { aliveIds, MINUTE, setUp, timesEmitted, updateEndOfLastPage } from './named';

/**
 * Installs edits between the first two pages of every read of `formId`: before its second
 * request after each list of forms (Selected Forms asks for the list on every poll), the end of
 * its first page is updated (updateEndOfLastPage).
 */
function editAfterFirstPageOfEachPoll(server: SimServer, formId: string): void {
	const serve = server.handle;
	let requestsOfForm = 0;
	Object.defineProperty(server, 'handle', {
		value: async (credentialsType: string, options: IHttpRequestOptions): Promise<unknown> => {
			if (/\/forms\/?$/.test(new URL(options.url).pathname)) requestsOfForm = 0;
			else if (options.url.includes(`/forms/${formId}/responses`) && ++requestsOfForm === 2)
				updateEndOfLastPage(server, formId, 2);
			return await serve(credentialsType, options);
		},
	});
}

/**
 * One Form, Every Response Since a Date (7 days ago), 200 responses in the last hour, pages of 5
 * at 100 ms, polls of a 1 s budget a minute apart (7 pages each); on 30 polls, 2 edits between
 * the poll's first two pages (before its 3rd request: the list of forms, the first page, then the
 * second). `quietFirst`: the activation poll reads undisturbed before them. What never came, and
 * the errors.
 */
async function backlogEditedOnEveryPoll(
	quietFirst: boolean,
): Promise<{ missing: string[]; errors: string[] }> {
	const { server, driver } = setUp({
		version: 2,
		pageCap: 5,
		requestMs: 100,
		sinceAgoMs: 7 * 24 * 3_600_000,
	});
	server.seed(0, 200, 60 * MINUTE, 1_000);
	const errors: string[] = [];
	if (quietFirst) {
		errors.push(...(await driver.poll({ budgetMs: 1_000 })).errors);
		server.apply({ kind: 'advance', ms: MINUTE });
	}
	for (let poll = 0; poll < 30; poll++) {
		server.arm(3, (s) => updateEndOfLastPage(s, 'form0', 2));
		errors.push(...(await driver.poll({ budgetMs: 1_000 })).errors);
		server.apply({ kind: 'advance', ms: MINUTE });
	}
	const missing = aliveIds(server).filter((id) => timesEmitted(driver.emitted, id) === 0);
	return { missing, errors };
}

describe('Forms.wtf Trigger, review 2: a long read from the start that is never proven', () => {
	// REPRO: One Form, Every Response Since a Date (7 days ago), 200 responses in the last hour,
	// pages of 5 at 100 ms and a 1 s budget (7 pages a poll, so the backlog takes many polls).
	// On every poll, while the second page is asked for, respondents update the 2 responses the
	// first page ended on (2 edits a poll, 60 in 30 minutes, against about 23 responses read a
	// poll). After 30 polls 114 of the 200 responses have never been emitted, and nothing is
	// logged or reported; the stored resume offset is 0 after every poll. The edits move the
	// first page's last two responses to the end, so the second page (paging.ts: 2 back, for
	// pages of 5) holds none of the first page's anchors: the read is not proven, and once a
	// boundary is lost the rest of the read proves nothing (Continuity keeps the lost anchors
	// pending). allowance.ts resumeAfter sends a read that was not resuming to `again(start)`,
	// { offset: 0, anchors: [] }, dropping the proven pages before the lost boundary, so every
	// poll reads the same first 7 pages. newResponses.ts now counts a read that is not proven as
	// a poll without progress only when it is whole (`read.fromStart && !read.cut && ...`); this
	// one is cut by the budget, so it is neither `moved` nor counted: failedPolls stays unset,
	// no warning, no error, for ever. The promise: every response exactly once; a form that
	// cannot move is named by its 5th poll (P8b: under steady edits every response due is out
	// within a bound of polls, or its form is named).
	// Replay:
	//   npx jest test/property/trigger.review2.test.ts --maxWorkers=1 -t 'cut at every poll'
	it('a backlog read over many polls, 2 edits between its first pages on every poll (cut at every poll): the backlog comes, or the form is named', async () => {
		const { missing, errors } = await backlogEditedOnEveryPoll(false);
		expect(missing.length === 0 || errors.some((e) => e.includes('form0'))).toBe(true);
	});

	// REPRO: the same on a read that resumes: One Form, Every Response Since a Date, 200
	// responses, pages of 5 at 100 ms, a 1 s budget. The activation poll reads 7 pages undisturbed
	// and stops at offset 26. On every later poll, while the resumed read asks for its second
	// page, respondents update the 2 responses its first page ended on. After 30 polls the stored
	// resume offset is still 26, 91 of the 200 responses have never been emitted, and nothing is
	// logged or reported. The resumed read finds its anchors on its first page (`resumed`), then
	// loses the next boundary (the two it would find moved to the end), so it is not proven:
	// resumeAfter answers `again(start)`, the same offset and anchors, and the pages it read past
	// the lost boundary are read again next poll, and lost again. Cut by the budget, resumed, not
	// proven: neither `moved` nor a poll without progress (newResponses.ts counts a read that is
	// not proven only when it is whole and from the start), so the form is never named. Fixing
	// the read from the start alone (the test above) leaves this one.
	// Replay:
	//   npx jest test/property/trigger.review2.test.ts --maxWorkers=1 -t 'resumed at every poll'
	it('a backlog read over many polls, 2 edits between the first pages of every resumed read (resumed at every poll): the backlog comes, or the form is named', async () => {
		const { missing, errors } = await backlogEditedOnEveryPoll(true);
		expect(missing.length === 0 || errors.some((e) => e.includes('form0'))).toBe(true);
	});
});

describe('Forms.wtf Trigger, review 2: the newest N behind a long read that is never proven', () => {
	// REPRO: Selected Forms (form0, form1), The Newest Existing Responses (N = 3), pages of 5 at
	// 100 ms, a 1 s budget. form0 has 4 responses, form1 200 in the last hour (the choice's first
	// window: a read of 7 pages a poll, so it spans polls). On every poll, between the first two
	// pages of form1's read, its respondents update the 2 responses the first page ended on
	// (editAfterFirstPageOfEachPoll: 2 edits a minute). A respondent submits one new response to
	// form0 after every poll. In 20 polls nothing at all is emitted — not the 3 newest existing,
	// not one of form0's new responses — and nothing is logged or reported; every poll spends its
	// budget on form1's pages 0 to 6 again. The mechanism of the two tests above, inside the
	// choice: form1's choosing read is cut and not proven, so resumeAfter sends it back to where
	// it began, and newResponses.ts neither counts it as progress nor as a poll without progress
	// (only a whole read is counted, since the last change); form1's failedPolls never grows, so
	// existing.ts settleChoice never sees it `stalled` (choiceStalls stays 0), it is never left
	// out, and the choice, which holds every form's new responses until it ends, never ends. The
	// promise: one form never holds up the others; a form that cannot move is named by its 5th
	// poll and then left out of the choice. (The review's 'never proven, newest N' test is the
	// whole-read case, now fixed.)
	// Replay:
	//   npx jest test/property/trigger.review2.test.ts --maxWorkers=1 -t 'long choosing read'
	it('the newest N, a long choosing read edited between its first pages on every poll (long choosing read): the new responses of the others come, or the form is named', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
			version: 2,
			newestCount: 3,
			pageCap: 5,
			requestMs: 100,
		});
		editAfterFirstPageOfEachPoll(server, 'form1');
		server.seed(0, 4, 10 * MINUTE, 1_000);
		server.seed(1, 200, 20 * MINUTE, 1_000);
		const newOnForm0: string[] = [];
		const errors: string[] = [];
		for (let poll = 0; poll < 20; poll++) {
			errors.push(...(await driver.poll({ budgetMs: 1_000 })).errors);
			server.apply({ kind: 'submit', form: 0, count: 1 });
			newOnForm0.push(aliveIds(server, 'form0').at(-1) as string);
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		const late = newOnForm0.slice(0, 10).filter((id) => timesEmitted(driver.emitted, id) === 0);
		// Either form0's new responses of the first 10 minutes came, or the user is told which form holds them up.
		expect(late.length === 0 || errors.some((e) => e.includes('form1'))).toBe(true);
	});
});

describe('Forms.wtf Trigger, review 2: one passing 503 behind forms with backlogs', () => {
	// Fixed: a form in a run of polls without progress comes first on every poll but the one
	// right after its own read (formsToRead.ts), and a form not reached counts only when what
	// stopped the reading holds back every form (failures in a row, the key's rate limit) or it
	// is already in a run and reads failed or waited (newResponses.ts). Fuzz seed 42002 (the
	// same class) holds too.
	// It was: Selected Forms (form0 to form5), Every Response Since a Date (7 days ago), pages of 5
	// at 100 ms, a 1 s budget. form0 to form4 have 400 responses each (backlogs of many polls);
	// form5 has 3, and one new response a poll. The forms are read in rotation, one backlog a
	// poll. On poll 5, form5's turn, its read answers 503 twice (the request and its retry); from
	// then on the service answers every request. form5 is not read again on polls 6 to 9 and on
	// poll 9 the workflow gets the error 'Form "Form 5" (form5) made no progress: the poll ran out
	// of time' (its description: a rate limit, or a slow service), although the service answered
	// every request since poll 5 and form5 was not asked once. formsToRead.ts puts a form that
	// failed on the poll before last (`failing`) only on that next poll; after it, forms go by
	// `readAtRev`, and form5's (the poll of its failure) is newer than that of the 4 backlogs not
	// yet read since, so it waits behind them (its comment: "nor are they starved by them (the
	// next poll they come first)" does not hold). newResponses.ts counts a form not reached as a
	// poll without progress when it already has failedPolls, whatever stopped the reading, so the
	// 4 polls it was never asked count, and the 5th names it with a cause that did not happen.
	// Without the one 503 the same wait is silent. The promise: while the service is healthy, no
	// failure (P4a); a form is named when its reads fail or it is made to wait longer than a poll.
	// P9 asks for the error once a form gets no page for 5 polls after a failure, so the way that
	// keeps both is that a form whose read failed is read again before its 5th poll.
	// Replay:
	//   npx jest test/property/trigger.review2.test.ts --maxWorkers=1 -t 'one passing 503'
	it('Selected Forms, one passing 503 on a form read in rotation behind backlogs (one passing 503): it is read again before it is named', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 6,
			selected: [0, 1, 2, 3, 4, 5],
			version: 2,
			sinceAgoMs: 7 * 24 * 3_600_000,
			pageCap: 5,
			requestMs: 100,
		});
		for (let form = 0; form < 5; form++) server.seed(form, 400, 60 * MINUTE, 1_000);
		server.seed(5, 3, 60 * MINUTE, 1_000);
		const errors: string[] = [];
		let readAgain = false;
		for (let poll = 0; poll < 10; poll++) {
			// form5's turn in the rotation: its request and the retry answer 503.
			if (poll === 5) server.inject({ kind: 'serverError', status: 503 }, 2, 5);
			server.apply({ kind: 'submit', form: 5, count: 1 });
			const record = await driver.poll({ budgetMs: 1_000 });
			if (poll === 5)
				expect(record.requests.filter((r) => r.formId === 'form5').map((r) => r.status)).toEqual([
					503, 503,
				]);
			if (poll > 5)
				readAgain ||= record.requests.some((r) => r.formId === 'form5' && r.status === 200);
			errors.push(...record.errors);
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		expect(server.unhealthy()).toBe(false);
		expect({ readAgain, named: errors.some((e) => e.includes('(form5)')) }).toEqual({
			readAgain: true,
			named: false,
		});
	});
});
