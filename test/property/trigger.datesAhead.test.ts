/**
 * Dates to emit from in the future (forms watched later, restarts, undated responses, New
 * Response, a coarse `since`), look-back windows of many pages with edits while they are walked,
 * and imports in one millisecond: within the promise's assumptions (a window fits in a poll up
 * to 3,615 responses at pages of 100) every response comes once and no form is named. Each story
 * checks the oracle and what the promise's words say a user sees.
 */
import type { Emitted } from './run';
import { emitSinceMs } from './run';
import {
	aliveIds,
	drain,
	editByIds,
	MINUTE,
	pollsAMinuteApart,
	setUp,
	timesEmitted,
} from './named';
import type { SimServer } from '../sim/server';

const HOUR = 60 * MINUTE;

/** The current `submittedAt` of a response, in ms. */
function submittedMs(server: SimServer, id: string): number {
	return server.responses.find((r) => r.id === id)?.versions.at(-1)?.atMs ?? NaN;
}

/** The ids of a form's responses submitted (in their current version) before `dateMs`. */
function submittedBefore(server: SimServer, dateMs: number, formId = 'form0'): string[] {
	return aliveIds(server, formId).filter((id) => submittedMs(server, id) < dateMs);
}

function emittedIds(emitted: Emitted[], ids: string[]): string[] {
	return ids.filter((id) => timesEmitted(emitted, id) > 0);
}

describe('Every Response Since a Date in the future, forms watched later', () => {
	it('All Forms: a form that shows up in the list before the date holds back its responses submitted before the date', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 2,
			version: 2,
			pageCap: 100,
			sinceAgoMs: -30 * MINUTE,
		});
		const dateMs = emitSinceMs(driver.settings) as number;
		server.setHidden(1, true);
		await pollsAMinuteApart(driver, 2);
		server.setHidden(1, false);
		server.apply({ kind: 'submit', form: 1, count: 3, gapMs: 1_000 });
		await pollsAMinuteApart(driver, 5, () => server.apply({ kind: 'submit', form: 1, count: 1 }));
		expect(emittedIds(driver.emitted, submittedBefore(server, dateMs, 'form1'))).toEqual([]);
		// Past the date: those from it on come.
		server.apply({ kind: 'advance', ms: 30 * MINUTE });
		server.apply({ kind: 'submit', form: 1, count: 2, gapMs: 1_000 });
		await drain(driver);
		expect(emittedIds(driver.emitted, submittedBefore(server, dateMs, 'form1'))).toEqual([]);
		const after = aliveIds(server, 'form1').filter((id) => submittedMs(server, id) >= dateMs);
		expect(after.map((id) => timesEmitted(driver.emitted, id))).toEqual([1, 1]);
	});
});

describe('Every Response Since a Date in the future, All Forms, a form listed after the date', () => {
	it('a form missing from the list until an hour after the date: its responses from the date on come once, none before it', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 2,
			version: 2,
			order: 'newestFirst',
			pageCap: 100,
			sinceAgoMs: -20 * MINUTE,
		});
		const dateMs = emitSinceMs(driver.settings) as number;
		server.seed(1, 150, 30 * MINUTE, 1_000);
		server.setHidden(1, true);
		// A response to the unlisted form every minute for 90 minutes: 20 before the date, 70 after.
		await pollsAMinuteApart(driver, 90, () => server.apply({ kind: 'submit', form: 1, count: 1 }));
		server.setHidden(1, false);
		await pollsAMinuteApart(driver, 3);
		await drain(driver);
		expect(emittedIds(driver.emitted, submittedBefore(server, dateMs, 'form1'))).toEqual([]);
		const fromDate = aliveIds(server, 'form1').filter((id) => submittedMs(server, id) >= dateMs);
		expect(fromDate.length).toBeGreaterThan(60);
		expect(fromDate.filter((id) => timesEmitted(driver.emitted, id) !== 1)).toEqual([]);
	});
});

describe('Every Response Since a Date in the future, a stored date that does not fit', () => {
	// The date 30 minutes after activation, two selected forms. After two polls the stored date to
	// emit from does not fit (not a number): the trigger warns that it was reset, so that forms
	// listed later start at the activation; each form's floor is still the date. A floor that is
	// no longer the stored date is not taken for the floor of the moment the form started at,
	// which goes with the form's first whole read: that one lies between the activation and the
	// poll, and a date still ahead does not. (Taken for one, every response submitted before the
	// date came: 0, 2 and 2 on the three polls after the restart, 26 to 27 minutes before it.)
	it('no response submitted before the date comes', async () => {
		const { server, driver } = setUp({
			version: 2,
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
			sinceAgoMs: -30 * MINUTE,
			pageCap: 100,
			lookBackMinutes: 10,
		});
		await driver.poll();
		server.apply({ kind: 'advance', ms: MINUTE });
		server.apply({ kind: 'submit', form: 0, count: 2, gapMs: 1 });
		await driver.poll();
		const stored = driver.session.storedStaticData;
		const key = Object.keys(stored).find((name) => name.startsWith('node:')) as string;
		(stored[key] as Record<string, unknown>).emitSinceMs = 'not a number';
		driver.session.restart();
		const emittedBeforeTheDate: number[] = [];
		for (let poll = 0; poll < 3; poll++) {
			server.apply({ kind: 'advance', ms: MINUTE });
			server.apply({ kind: 'submit', form: 0, count: 1, gapMs: 1 });
			server.apply({ kind: 'submit', form: 1, count: 1, gapMs: 1 });
			emittedBeforeTheDate.push((await driver.poll()).emitted.length);
		}
		expect(emittedBeforeTheDate).toEqual([0, 0, 0]);
		await drain(driver);
	});
});

describe('Every Response Since a Date in the future, One Form', () => {
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		it(`${order}: restarts and discarded polls on both sides of the date hold back what came before it and bring each one from it on once`, async () => {
			const { server, driver } = setUp({
				version: 2,
				order,
				pageCap: 100,
				sinceAgoMs: -10 * MINUTE,
			});
			server.seed(0, 30, 2 * MINUTE, 1_000);
			const dateMs = emitSinceMs(driver.settings) as number;
			const submit = () => server.apply({ kind: 'submit', form: 0, count: 2, gapMs: 7_000 });
			for (let minute = 0; minute < 20; minute++) {
				submit();
				if (minute % 3 === 1) driver.session.restart();
				await driver.poll({ discarded: minute % 4 === 2 });
				server.apply({ kind: 'advance', ms: MINUTE });
			}
			await drain(driver);
			expect(emittedIds(driver.emitted, submittedBefore(server, dateMs))).toEqual([]);
			const fromDate = aliveIds(server).filter((id) => submittedMs(server, id) >= dateMs);
			expect(fromDate.length).toBeGreaterThan(15);
			expect(fromDate.filter((id) => timesEmitted(driver.emitted, id) !== 1)).toEqual([]);
		});

	for (const order of ['oldestFirst', 'newestFirst'] as const)
		it(`New Response, ${order}: a response submitted after activation but before the date, updated after the date within the look-back window, is not emitted`, async () => {
			const { server, driver } = setUp({
				version: 2,
				order,
				pageCap: 100,
				updatedResponses: 'ignore',
				sinceAgoMs: -5 * MINUTE,
			});
			const dateMs = emitSinceMs(driver.settings) as number;
			await pollsAMinuteApart(driver, 2);
			server.apply({ kind: 'submit', form: 0, count: 4, gapMs: 20_000 });
			const heldBack = aliveIds(server);
			await pollsAMinuteApart(driver, 4);
			expect(server.now).toBeGreaterThan(dateMs);
			// Their respondents edit them after the date, within minutes of the version before.
			editByIds(server, 'update', heldBack, { gapMs: 10_000 });
			server.apply({ kind: 'submit', form: 0, count: 2, gapMs: 1_000 });
			await drain(driver);
			expect(heldBack.every((id) => submittedMs(server, id) >= dateMs)).toBe(true);
			expect(emittedIds(driver.emitted, heldBack)).toEqual([]);
			const fresh = aliveIds(server).filter((id) => !heldBack.includes(id));
			expect(fresh.map((id) => timesEmitted(driver.emitted, id))).toEqual([1, 1]);
		});

	for (const dateAbsent of [false, true])
		it(`responses without a date${dateAbsent ? ', no Date header' : ''}: one that shows up long before the date is held back, one that shows up after it comes once`, async () => {
			const { server, driver } = setUp({
				version: 2,
				order: 'newestFirst',
				pageCap: 100,
				sinceAgoMs: -10 * MINUTE,
				dateAbsent,
			});
			const dateMs = emitSinceMs(driver.settings) as number;
			await pollsAMinuteApart(driver, 2);
			server.apply({ kind: 'submitGarbled', form: 0, garble: 'null' });
			const before = aliveIds(server)[0];
			await pollsAMinuteApart(driver, 10);
			expect(server.now).toBeGreaterThan(dateMs + MINUTE);
			server.apply({ kind: 'submitGarbled', form: 0, garble: 'missing' });
			const after = aliveIds(server)[1];
			await drain(driver);
			expect(timesEmitted(driver.emitted, before)).toBe(0);
			expect(timesEmitted(driver.emitted, after)).toBe(1);
		});

	it('since compared by whole seconds, a date at .300 s: responses of the date’s second before it are held back, those at and after it come once', async () => {
		const { server, driver } = setUp({
			version: 2,
			order: 'oldestFirst',
			pageCap: 100,
			since: 'wholeSeconds',
			startOffsetMs: 300,
			sinceAgoMs: -3 * MINUTE,
		});
		const dateMs = emitSinceMs(driver.settings) as number;
		expect(dateMs % 1000).toBe(300);
		await pollsAMinuteApart(driver, 2);
		server.apply({ kind: 'advance', ms: dateMs - 200 - server.now });
		server.apply({ kind: 'burst', form: 0, count: 3 });
		server.apply({ kind: 'advance', ms: 199 });
		server.apply({ kind: 'burst', form: 0, count: 3 });
		server.apply({ kind: 'advance', ms: 1 });
		server.apply({ kind: 'burst', form: 0, count: 3 });
		server.apply({ kind: 'advance', ms: 1 });
		server.apply({ kind: 'burst', form: 0, count: 3 });
		await pollsAMinuteApart(driver, 3);
		await drain(driver);
		const before = submittedBefore(server, dateMs);
		expect(before).toHaveLength(6);
		expect(emittedIds(driver.emitted, before)).toEqual([]);
		const fromDate = aliveIds(server).filter((id) => !before.includes(id));
		expect(fromDate.map((id) => timesEmitted(driver.emitted, id))).toEqual(Array(6).fill(1));
	});

	it('the date in the very second of activation, a response of that second before and after it: only the one after comes', async () => {
		const { server, driver } = setUp({
			version: 2,
			order: 'newestFirst',
			pageCap: 100,
			startOffsetMs: 100,
			sinceAgoMs: -500,
		});
		const dateMs = emitSinceMs(driver.settings) as number;
		server.apply({ kind: 'submit', form: 0, count: 1 });
		server.arm(2, { kind: 'submit', form: 0, count: 1 });
		await driver.poll();
		server.apply({ kind: 'advance', ms: dateMs + 100 - server.now });
		server.apply({ kind: 'submit', form: 0, count: 1 });
		await drain(driver);
		const before = submittedBefore(server, dateMs);
		expect(before.length).toBeGreaterThan(0);
		expect(emittedIds(driver.emitted, before)).toEqual([]);
		const fromDate = aliveIds(server).filter((id) => !before.includes(id));
		expect(fromDate.map((id) => timesEmitted(driver.emitted, id))).toEqual([1]);
	});
});

/**
 * Polls a minute apart until `id` is emitted (at most `polls`): how many it took, and the errors
 * that named form0 meanwhile.
 */
async function pollsUntilEmitted(
	driver: ReturnType<typeof setUp>['driver'],
	id: string,
	polls: number,
): Promise<{ took: number; named: string[] }> {
	const named: string[] = [];
	for (let poll = 1; poll <= polls; poll++) {
		const record = await driver.poll();
		named.push(...record.errors.filter((error) => error.includes('form0')));
		driver.server.apply({ kind: 'advance', ms: MINUTE });
		if (timesEmitted(driver.emitted, id) > 0) return { took: poll, named };
	}
	return { took: Infinity, named };
}

describe('a look-back window of many pages, up to what a poll reads', () => {
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		for (const windowHolds of [3_000, 3_600])
			it(`${order}, a 15-minute window holding ${windowHolds} responses (an import a minute before activation): a response submitted after it comes within 5 polls, or the form is named by then`, async () => {
				const { server, driver } = setUp({
					version: 2,
					order,
					pageCap: 100,
					lookBackMinutes: 15,
				});
				// Responses 20 ms apart, the last a minute before activation: none leaves the window for 13 minutes.
				server.seed(0, windowHolds, MINUTE, 20);
				await pollsAMinuteApart(driver, 2);
				server.apply({ kind: 'submit', form: 0, count: 1 });
				const fresh = aliveIds(server).at(-1) as string;
				const { took, named } = await pollsUntilEmitted(driver, fresh, 12);
				const outcome = took <= 5 ? 'came' : named.length ? 'named' : `silent for ${took} polls`;
				expect(outcome).toMatch(/^(came|named)$/);
				await drain(driver);
			});
});

describe('a look-back window of many pages walked while respondents edit', () => {
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		for (const event of ['newOrUpdated', 'new'] as const)
			it(`${order}, ${event === 'new' ? 'New Response' : 'New or Updated Response'}, since a date: 2,500 responses in a 12-minute window, a deletion and an update before every request of each poll, each comes once`, async () => {
				const { server, driver } = setUp({
					version: 2,
					order,
					pageCap: 100,
					lookBackMinutes: 12,
					requestMs: 100,
					updatedResponses: event === 'new' ? 'ignore' : 'emit',
					sinceAgoMs: 7 * 24 * HOUR,
				});
				server.seed(0, 2_500, 30_000, 250);
				for (let poll = 0; poll < 6; poll++) {
					for (let k = 1; k <= 40; k++) {
						server.arm(k, { kind: 'delete', form: 0, pick: 17 * k + poll });
						server.arm(k, { kind: 'update', form: 0, pick: 31 * k + 7 * poll });
						if (k % 5 === 0) server.arm(k, { kind: 'submit', form: 0, count: 1 });
					}
					await driver.poll();
					server.heal();
					server.apply({ kind: 'advance', ms: MINUTE });
				}
				await drain(driver);
				const emittedCount = new Set(driver.emitted.map((e) => e.id)).size;
				expect(emittedCount).toBeGreaterThan(2_000);
			});
});

describe('All Forms, several forms whose look-back windows each fit in one poll', () => {
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		it(`${order}: four forms of 2,400 responses in a 10-minute window each, a response to each every minute: no form is named and each response comes within 8 polls`, async () => {
			const { server, driver } = setUp({
				watch: 'allForms',
				formCount: 4,
				version: 2,
				order,
				pageCap: 100,
			});
			for (let form = 0; form < 4; form++) server.seed(form, 2_400, 30_000, 200);
			const submitted: Array<{ id: string; poll: number }> = [];
			const errors = await pollsAMinuteApart(driver, 12, () => {
				for (let form = 0; form < 4; form++) {
					server.apply({ kind: 'submit', form, count: 1 });
					submitted.push({ id: server.responses.at(-1)?.id ?? '', poll: driver.polls.length });
				}
			});
			expect(errors.flat()).toEqual([]);
			const late = submitted.filter(({ id, poll }) => {
				const at = driver.emitted.find((e) => e.id === id)?.poll ?? Infinity;
				return poll >= 1 && poll < 4 && at - poll > 8;
			});
			expect(late).toEqual([]);
			await drain(driver);
		});
});

describe('an import in one millisecond that fits in 40 pages, more than one poll emits', () => {
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		for (const when of [
			'before activation, a date in the past',
			'at a date in the future',
			'at a date in the future, since compared by whole seconds',
		] as const)
			it(`${order}, 3,500 responses in one millisecond ${when}: each comes once, the form is not named`, async () => {
				const future = when.startsWith('at');
				const { server, driver } = setUp({
					version: 2,
					order,
					pageCap: 100,
					sinceAgoMs: future ? -2 * MINUTE : 7 * 24 * HOUR,
					since: when.endsWith('whole seconds') ? 'wholeSeconds' : 'exclusive',
				});
				const dateMs = emitSinceMs(driver.settings) as number;
				server.seed(0, 5, 10 * MINUTE, 1_000);
				if (!future) server.apply({ kind: 'burst', form: 0, count: 3_500 });
				server.apply({ kind: 'advance', ms: 1_000 });
				await driver.poll();
				if (future) {
					server.apply({ kind: 'advance', ms: dateMs - server.now });
					server.apply({ kind: 'burst', form: 0, count: 3_500 });
				}
				const errors = await pollsAMinuteApart(driver, 8, () =>
					server.apply({ kind: 'submit', form: 0, count: 1 }),
				);
				expect(errors.flat()).toEqual([]);
				await drain(driver);
				const due = aliveIds(server).filter((id) => submittedMs(server, id) >= dateMs);
				expect(due.filter((id) => timesEmitted(driver.emitted, id) !== 1)).toEqual([]);
			});
});
