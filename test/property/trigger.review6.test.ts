/**
 * Breaks of the trigger's promise (docs/trigger-promise.md) found by a sixth adversarial review,
 * of the responses a resume point keeps from before its anchors (ResumePoint.earlier, e1b747a):
 * a read finds its place by any of them. Each test is written as the promise says it should
 * be; a break not fixed yet is `it.failing` (it passes while the break is there, and fails the
 * day a change fixes it — then drop `.failing`). The REPRO comment says what broke, why, and the
 * mechanism; replay one with
 *   npx jest test/property/trigger.review6.test.ts --maxWorkers=1 -t '<name>'
 */
import type { IDataObject } from 'n8n-workflow';

import type { SimServer } from '../sim/server';
import { aliveIds, cursorOf, MINUTE, setUp, timesEmitted } from './named';

/**
 * One Form, Every Response Since a Date (7 days ago), oldest first, `count` responses in the
 * last hour (a second apart), pages of 5 at 100 ms.
 */
function backlogOfOneForm(count: number): ReturnType<typeof setUp> {
	const setup = setUp({ version: 2, pageCap: 5, requestMs: 100, sinceAgoMs: 7 * 24 * 3_600_000 });
	setup.server.seed(0, count, 60 * MINUTE, 1_000);
	return setup;
}

describe('Forms.wtf Trigger, review 6: a checkpoint without a date', () => {
	// Fixed: only dated responses are kept as checkpoints (checkpoints() in allowance.ts).
	// REPRO: One Form, Every Response Since a Date (7 days ago), oldest first, 40 responses in the
	// last hour, pages of 5 at 100 ms, one page a poll (a 1 ms budget); r0009 is served without a
	// date (`submittedAt: null`, which the trigger promises to survive: docs/trigger-promise.md,
	// "A response without a usable submittedAt is emitted once"). After poll 5 the read stands at
	// 13 with anchors r0010..r0013 and keeps r0009 as a checkpoint (`earlier`, submittedAt
	// "null"). Between polls 5 and 6 respondents update r0009 (its new version is again served
	// without a date) and the four anchors: oldest first, all five move to the end. Poll 6 has
	// time to read to the end. r0014 and r0015 are never emitted, and nothing is reported.
	// Why: a checkpoint is matched by id and `submittedAt` as sent (isAnchor); an undated
	// response keeps the same "null" across versions, so its update is not told apart from the
	// version the pass read. The five moves pull r0014.. five places back; the read resumes at 10
	// (overlap 3) and starts at r0016: r0014, r0015 lie before it. It does not find the anchors
	// (updated), reads on page by page looking for its place (Continuity: resume anchors are
	// looked for in every page), and the last page holds r0009, moved to the end, "in the same
	// version". The place counts as found, the read is proven and complete, the pass ends and
	// `since` moves past the skipped pair. The argument on `earlier` (state.ts) holds only for a
	// response whose every update changes `submittedAt`; before e1b747a the read found nothing and
	// searched back a page a poll until it found r0010..r0013's neighbourhood or began again.
	// The promise: every response exactly once (P1); r0014 and r0015 carry dates.
	// Replay:
	//   npx jest test/property/trigger.review6.test.ts --maxWorkers=1 -t 'undated checkpoint'
	it('One Form, oldest first, pages of 5, an undated checkpoint updated (still undated) with the 4 anchors, then a read to the end (undated checkpoint): every response comes', async () => {
		const { server, driver } = backlogOfOneForm(40);
		server.apply({ kind: 'garble', form: 0, pick: 8, garble: 'null' });
		const errors: string[] = [];
		for (let poll = 0; poll < 12; poll++) {
			errors.push(...(await driver.poll({ budgetMs: poll === 6 ? 60_000 : 1 })).errors);
			server.apply({ kind: 'advance', ms: MINUTE });
			if (poll === 5) {
				server.apply({ kind: 'update', form: 0, pick: 8 });
				server.apply({ kind: 'garble', form: 0, pick: 8, garble: 'null' });
				for (const pick of [9, 10, 11, 12]) server.apply({ kind: 'update', form: 0, pick });
			}
		}
		expect(server.unhealthy()).toBe(false);
		expect(errors).toEqual([]);
		const missing = aliveIds(server).filter((id) => timesEmitted(driver.emitted, id) === 0);
		expect(missing).toEqual([]);
	});
});

/** Respondents update these responses of form0 (each moves to the newest end, a new `submittedAt`). */
function updateByIds(server: SimServer, ids: string[]): void {
	for (const id of ids) {
		const alive = server.responses.filter((r) => r.formId === 'form0' && server.isVisible(r));
		const pick = alive.findIndex((r) => r.id === id);
		if (pick >= 0) server.apply({ kind: 'update', form: 0, pick });
	}
}

describe('Forms.wtf Trigger, review 6: checkpoints at the start make a pass begun again look found', () => {
	// Fixed: no checkpoint is kept for a place before the start, a search point's anchors are not
	// taken for checkpoints at its offset, and a pass begun again counts its restarts until a read
	// gets back to where it had been (ResumePoint.reached), whatever place it finds on the way. The
	// form is now named "kept moving" (the promise allows it under such edits) and every response
	// comes.
	// REPRO: One Form, Every Response Since a Date (7 days ago), oldest first, 200 responses in
	// the last hour, pages of 5 at 100 ms, one page a poll (a 1 ms budget: the read moves on by
	// 2). Every 20 polls respondents update the read's 4 anchors and the responses it keeps from
	// before them (`earlier`) at offset 8 or more: 7 edits in 20 minutes, the first 8 responses
	// never touched. After 200 polls 104 of the 200 responses had never been emitted (80 after 30 quiet
	// polls more), and nothing
	// is reported; the read's offset climbs to ~31, searches back a page a poll to 0, and climbs
	// again, for ever (a healthy read would have emitted the backlog in ~100 polls).
	// Why: checkpoints() picks the candidate nearest a page, two, four ... back from where the read
	// ends; on a pass 30 responses deep the targets from four pages back are negative, so the
	// nearest are the ones at offset 0..4 (r0001, r0002, ...): they are kept for ever. And a search
	// point's anchors become candidates at `start.offset - n + i`, the search point's offset, not
	// where they were read: the dead anchors of a search that reached 0 enter at offset 0 and stay
	// too (at poll 46: r0001@0, r0038@0, r0039@0, r0030@0, r0032@0, r0033@0, r0034@0). So 7 of the 8
	// checkpoints sit at 0, one or two are useful, and 7 edits take those and the anchors. The
	// search then goes down to offset 0, where the read from 0 comes upon r0001, a checkpoint:
	// `foundPlace` is true and `restarts` stays 0, so the pass that began again from the start
	// counts as having found its place, every re-read counts as progress (`moved`), and the form
	// is never named "kept moving" (docs/trigger-promise.md: a form whose responses keep being
	// edited MAY be named; one that is neither read nor named is a silent stall). This is
	// review 5's 'restart resets itself' come back through the checkpoints.
	// The promise: never a silent stall (P8b): the backlog comes, or the form is named.
	// Replay:
	//   npx jest test/property/trigger.review6.test.ts --maxWorkers=1 -t 'checkpoints at the start'
	it('One Form, oldest first, pages of 5 read one a poll, the anchors and the checkpoints past offset 8 updated every 20 polls (checkpoints at the start): the backlog comes or the form is named', async () => {
		const { server, driver } = backlogOfOneForm(200);
		const errors: string[] = [];
		for (let poll = 0; poll < 230; poll++) {
			errors.push(...(await driver.poll({ budgetMs: 1 })).errors);
			server.apply({ kind: 'advance', ms: MINUTE });
			const resume = cursorOf(driver, 'form0')?.resume as IDataObject | undefined;
			if (poll < 200 && poll % 20 === 19 && resume) {
				const earlier = ((resume.earlier ?? []) as IDataObject[]).filter(
					(checkpoint) => (checkpoint.offset as number) >= 8,
				);
				const anchors = resume.anchors as IDataObject[];
				updateByIds(
					server,
					[...earlier, ...anchors].map((point) => point.id as string),
				);
			}
		}
		expect(server.unhealthy()).toBe(false);
		const missing = aliveIds(server).filter((id) => timesEmitted(driver.emitted, id) === 0);
		const named = errors.some((error) => error.includes('form0') || error.includes('Form 0'));
		expect({ silentlyMissing: named ? [] : missing }).toEqual({ silentlyMissing: [] });
	});
});
