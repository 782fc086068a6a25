/**
 * How the trigger shares a poll between forms and when it names one: a form read last behind
 * forms that spend the poll, the newest N of an oldest-first form with a busy look-back window,
 * an import in one millisecond, and what lies beyond the assumptions (the newest N slower than
 * a poll, an import of more in one millisecond than a poll reads). On the simulated service,
 * black-box: what was emitted, what was reported, what was asked.
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
import { assumptionsOf } from './schedule';

describe('a form read last in every poll, after other forms spent its pages', () => {
	// A read the poll cuts before it proves anything keeps the form's turn: the next poll reads
	// it first. The forms that spend each poll (one new response each) do not get it named.
	it('All Forms, newest first, pages of 100: a form whose look-back window holds 2 pages is not named while the other forms fill each poll', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 40,
			version: 2,
			order: 'newestFirst',
			pageCap: 100,
		});
		for (let form = 0; form < 40; form++) if (form !== 9) server.seed(form, 3, 5 * MINUTE, 1_000);
		server.seed(9, 150, 4 * MINUTE, 1_000);
		const others = [...Array(40).keys()].filter((form) => form !== 9);
		const errors = await pollsAMinuteApart(driver, 6, () => {
			for (const form of others) server.apply({ kind: 'submit', form, count: 1, gapMs: 1 });
		});
		expect(errors.flat().filter((error) => error.includes('(form9)'))).toEqual([]);
		await drain(driver);
	});

	// The same with a form that needs more pages: its window holds an import of 500 responses in
	// one millisecond (5 pages; proving it costs 7). 34 other forms get a response before every
	// poll; form9 starts at page 34 and is cut at 6 pages every poll, from the activation on.
	it('All Forms, 35 forms, newest first, pages of 100: a form whose window holds an import of 500 in one millisecond is not named while 34 other forms are busy', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 35,
			version: 2,
			order: 'newestFirst',
			pageCap: 100,
		});
		for (let form = 0; form < 35; form++) if (form !== 9) server.seed(form, 3, 4 * MINUTE, 1_000);
		server.seed(9, 20, 20 * MINUTE, 1_000);
		server.seed(9, 500, 4 * MINUTE, 0);
		const others = [...Array(35).keys()].filter((form) => form !== 9);
		const errors = await pollsAMinuteApart(driver, 6, () => {
			for (const form of others) server.apply({ kind: 'submit', form, count: 1, gapMs: 1 });
		});
		expect(errors.flat().filter((error) => error.includes('(form9)'))).toEqual([]);
		await drain(driver);
	});

	// The same by the poll's time: n8n 2.41's durable scheduler gives a poll 36 s, the service
	// answers a page in 2 s. Selected Forms, 14 forms: 13 get a response before every poll and
	// are read first (26 s), form9 gets one page before the trigger's 80 % of the budget is
	// spent, and on the 5th poll it is named "made no progress: the poll ran out of time" in
	// polls that took about 30 s of their 36.
	it('Selected Forms, 36 s polls, pages of 100 in 2 s, newest first: a form whose look-back window holds 2 pages is not named while the other forms fill each poll', async () => {
		const forms = [...Array(14).keys()];
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 14,
			selected: forms,
			version: 2,
			order: 'newestFirst',
			pageCap: 100,
			requestMs: 2_000,
		});
		for (const form of forms) if (form !== 9) server.seed(form, 3, 5 * MINUTE, 1_000);
		server.seed(9, 150, 4 * MINUTE, 1_000);
		const others = forms.filter((form) => form !== 9);
		const errors = await pollsAMinuteApart(
			driver,
			6,
			() => {
				for (const form of others) server.apply({ kind: 'submit', form, count: 1, gapMs: 1 });
			},
			36_000,
		);
		expect(errors.flat().filter((error) => error.includes('(form9)'))).toEqual([]);
		await drain(driver);
	});
});

describe('the newest N of an oldest-first form whose look-back window holds many pages', () => {
	// The choosing read reads back through the look-back window only as far as the poll goes: the
	// newest are known first, and a window of 14 pages does not keep them from coming.
	it('the newest 10, One Form, oldest first, pages of 100, 1,400 responses in the look-back window: the newest 10 come once, and the form is not named', async () => {
		const { server, driver } = setUp({
			version: 2,
			order: 'oldestFirst',
			pageCap: 100,
			newestCount: 10,
		});
		server.seed(0, 500, 60 * MINUTE, 1_000);
		server.seed(0, 1_400, 1_000, 400);
		const newest = aliveIds(server).slice(-10);
		const errors = await pollsAMinuteApart(driver, 6);
		expect(newest.map((id) => timesEmitted(driver.emitted, id))).toEqual(Array(10).fill(1));
		expect(errors.flat()).toEqual([]);
		await drain(driver);
	});
});

describe('beyond the assumptions: never twice, never silent', () => {
	// The promise assumes the newest N fit in what one poll reads, in pages and in n8n's time for
	// a poll: 2,000 at pages of 2 s do not fit in 36 s. The form is named and leaves the choice.
	it('the newest 2,000, newest first, pages of 100 in 2 s, 36 s polls: the form is named, nothing comes twice', async () => {
		const { server, driver } = setUp({
			version: 2,
			order: 'newestFirst',
			pageCap: 100,
			requestMs: 2_000,
			newestCount: 2_000,
		});
		server.seed(0, 2_500, 60 * MINUTE, 1_000);
		const errors = await pollsAMinuteApart(driver, 6, () => undefined, 36_000);
		expect(errors.flat().join()).toMatch(/"form0" made no progress/);
		await drain(driver, 'beyond');
	});

	it('Every Response Since a Date, oldest first, pages of 100: an import of 3,800 in one millisecond is named, and nothing comes twice', async () => {
		const { server, driver } = setUp({
			version: 2,
			order: 'oldestFirst',
			pageCap: 100,
			sinceAgoMs: 7 * 24 * 60 * MINUTE,
		});
		server.seed(0, 3_800, 3 * 60 * MINUTE, 0);
		server.seed(0, 50, 60 * MINUTE, 1_000);
		const errors = await pollsAMinuteApart(driver, 8);
		expect(errors.flat().join()).toMatch(/"form0"/);
		await drain(driver, 'beyond');
	});
});

describe('version 1 workflows that ask for more than 2,000 existing responses', () => {
	it('version 1, Existing Responses to Emit 2,500, pages of 1,000: the newest 2,000 come once, no older one', async () => {
		const { server, driver } = setUp({ version: 1, newestCount: 2_500 });
		server.seed(0, 3_000, 60 * MINUTE, 1_000);
		const all = aliveIds(server);
		await pollsAMinuteApart(driver, 3);
		await driver.drain();
		expect(all.slice(-2_000).filter((id) => timesEmitted(driver.emitted, id) !== 1)).toEqual([]);
		expect(all.slice(0, -2_000).filter((id) => timesEmitted(driver.emitted, id) > 0)).toEqual([]);
		await drain(driver);
	});
});

describe('an import in one millisecond, once it has left the look-back window', () => {
	// A whole read trails the read's start (the service's clock) by the look-back window, not the
	// newest response: a quiet form costs one request a poll again once an import is older.
	it('Only New Responses, newest first, pages of 100: an import of 1,500 in one millisecond before activation; the quiet form costs one request a poll, and is never named', async () => {
		const { server, driver } = setUp({ version: 2, order: 'newestFirst', pageCap: 100 });
		server.seed(0, 50, 30 * MINUTE, 1_000);
		server.seed(0, 1_500, 2 * MINUTE, 0);
		const errors = await pollsAMinuteApart(driver, 15);
		expect(errors.flat()).toEqual([]);
		expect(driver.polls.slice(-3).map((poll) => poll.requests.length)).toEqual([1, 1, 1]);
		await drain(driver);
	});
});

describe('what the promise assumes a poll reads', () => {
	const schedule = (seeded: number, budget: 'tiny' | 'default') => ({
		settings: settingsWith({ seeded: [seeded], seedSpacingMs: 0, pageCap: 100 }),
		steps: [{ kind: 'poll' as const, budget }],
	});

	it('a millisecond of 260 responses is within the assumptions for polls that read 40 pages, beyond them for polls that read 2', () => {
		expect(assumptionsOf(schedule(260, 'default'))).toBe('within');
		expect(assumptionsOf(schedule(260, 'tiny'))).toBe('beyond');
		expect(assumptionsOf(schedule(50, 'tiny'))).toBe('within');
	});
});

describe('the newest N: a form stalled by its failures leaves the choice', () => {
	it('All Forms: a form the activation poll never reached (a Retry-After it had no time for), then failing 5 polls, leaves the choice on the 5th of them: only its response of the activation second comes', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 3,
			version: 1,
			newestCount: 1,
			lookBackMinutes: 0,
			pageCap: 100,
			startOffsetMs: 0,
		});
		server.seed(2, 120, 0, 1_000);
		server.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 1 } }, 1, 0);
		await driver.poll({ budgetMs: 1_000 });
		server.inject({ kind: 'wrongShape', body: 'errorObject' }, 5, 2);
		await driver.poll({ budgetMs: 1 });
		for (let poll = 0; poll < 5; poll++) await driver.poll();
		await drain(driver);
		// Its response of the activation second is new; none before it comes.
		const inTheSecond = aliveIds(server, 'form2').slice(-1);
		expect(driver.emitted.filter((e) => e.formId === 'form2').map((e) => e.id)).toEqual(
			inTheSecond,
		);
	});
});
