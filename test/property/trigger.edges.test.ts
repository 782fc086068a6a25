/**
 * Reading from the end that proves itself when a millisecond (or a second) holds more than a
 * page, the newest N where arrivals and ties could hide or add some, a form selected again, and
 * a version 3 floor: each test states what the promise asks.
 */
import type { IDataObject } from 'n8n-workflow';

import type { SimServer } from '../sim/server';
import { aliveIds, MINUTE, setUp, timesEmitted } from './named';
import type { Driver } from './run';

const HOUR = 60 * MINUTE;

/** Plain polls a minute apart on a healthy service; the errors they reported. */
async function pollsAMinuteApart(
	driver: Driver,
	server: SimServer,
	count: number,
): Promise<string[]> {
	const errors: string[] = [];
	for (let poll = 0; poll < count; poll++) {
		errors.push(...(await driver.poll()).errors);
		server.apply({ kind: 'advance', ms: MINUTE });
	}
	expect(server.unhealthy()).toBe(false);
	return errors;
}

describe('Forms.wtf Trigger: bursts, ties and the newest N at the edges of a page', () => {
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		it(`Every Response Since a Date, ${order}, pages of 100: a burst in one millisecond before a long backlog does not stall the backlog`, async () => {
			const { server, driver } = setUp({
				version: 2,
				order,
				pageCap: 100,
				requestMs: 1,
				sinceAgoMs: 7 * 24 * HOUR,
			});
			// An import: 150 responses in one millisecond three hours ago, then 4,500 one second apart.
			server.seed(0, 150, 3 * HOUR, 0);
			server.seed(0, 4_500, HOUR, 1_000);
			const errors = await pollsAMinuteApart(driver, server, 12);
			expect(errors).toEqual([]);
			const missing = aliveIds(server).filter((id) => timesEmitted(driver.emitted, id) !== 1);
			expect(missing).toEqual([]);
		});

	it('Every Response Since a Date, since compared by whole seconds, pages of 100: a second of 150 responses before a long backlog does not stall the backlog', async () => {
		const { server, driver } = setUp({
			version: 2,
			since: 'wholeSeconds',
			pageCap: 100,
			requestMs: 1,
			startOffsetMs: 900,
			sinceAgoMs: 7 * 24 * HOUR,
		});
		// 150 responses 5 ms apart in one second (one a millisecond at most), then 4,500 one second apart.
		server.seed(0, 150, 3 * HOUR, 5);
		server.seed(0, 4_500, HOUR, 1_000);
		const errors = await pollsAMinuteApart(driver, server, 12);
		expect(errors).toEqual([]);
		const missing = aliveIds(server).filter((id) => timesEmitted(driver.emitted, id) !== 1);
		expect(missing).toEqual([]);
	});

	it('the newest 3 over two forms, oldest first, pages of 100: arrivals before the choosing read of a form do not hide its newest existing responses', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 2,
			version: 2,
			pageCap: 100,
			requestMs: 1,
			startOffsetMs: 0,
			newestCount: 3,
		});
		// form0: r0001..r0150, an hour ago; form1: r0151..r0300, newer (ten minutes ago).
		server.seed(0, 150, HOUR, 1_000);
		server.seed(1, 150, 10 * MINUTE, 1_000);
		// Before form1's first page (the list of forms, then form0's two pages): 2 s after the
		// moment, 30 new responses of form1 (r0301..r0330).
		server.arm(4, (sim) => {
			sim.apply({ kind: 'advance', ms: 2_000 });
			sim.apply({ kind: 'submit', form: 1, count: 30, gapMs: 1 });
		});
		await driver.poll();
		await driver.drain();
		expect(driver.polls.flatMap((poll) => poll.errors)).toEqual([]);
		const existing = driver.emitted.filter((e) => Number(e.id.slice(1)) <= 300).map((e) => e.id);
		expect(existing).toHaveLength(3);
		expect(existing.sort()).toEqual(['r0298', 'r0299', 'r0300']);
		for (let n = 301; n <= 330; n++) expect(timesEmitted(driver.emitted, `r0${n}`)).toBe(1);
	});

	it('a version 3 cursor whose floor is the oldest chosen response still emits that response after the upgrade', async () => {
		const { server, driver } = setUp({ lookBackMinutes: 10, startOffsetMs: 0 });
		// r0001..r0005, one second apart, the last ten seconds before the moment.
		server.seed(0, 5, 10_000, 1_000);
		await driver.poll();
		const key = Object.keys(driver.session.storedStaticData).find((k) => k.startsWith('node:'));
		const stored = driver.session.storedStaticData[key as string] as IDataObject;
		const at = (id: string) => server.responses.find((r) => r.id === id)?.versions[0].atMs ?? 0;
		const activatedAtMs = stored.activatedAtMs as number;
		// Version 3 after the newest 3 were chosen (existing.ts): the floor is the oldest chosen
		// one, which version 3 emits (cursor.ts: only what sorts before the floor is kept out);
		// the poll that would have emitted them did not get to it before n8n was upgraded.
		driver.session.storedStaticData[key as string] = {
			version: 3,
			scope: stored.scope,
			rev: 1,
			activatedAtMs,
			forms: {
				form0: {
					since: new Date(activatedAtMs - 10 * MINUTE - 1).toISOString(),
					seen: { r0001: at('r0001'), r0002: at('r0002') },
					floor: { atMs: at('r0003'), id: 'r0003' },
				},
			},
		};
		driver.session.restart();
		await driver.drain();
		expect(driver.emitted.map((e) => e.id)).toEqual(['r0003', 'r0004', 'r0005']);
	});

	for (const order of ['oldestFirst', 'newestFirst'] as const)
		it(`the newest 3, ${order}, pages of 100: a form whose first page is one millisecond still gives its newest 3`, async () => {
			const { server, driver } = setUp({
				version: 2,
				order,
				pageCap: 100,
				requestMs: 1,
				newestCount: 3,
			});
			// Oldest first, an import in one millisecond a year ago leads the list; newest first, a
			// burst in one millisecond an hour ago does. Either way 4,500 more one second apart.
			if (order === 'oldestFirst') {
				server.seed(0, 150, 365 * 24 * HOUR, 0);
				server.seed(0, 4_500, HOUR, 1_000);
			} else {
				server.seed(0, 4_500, 2 * HOUR, 1_000);
				server.seed(0, 150, HOUR, 0);
			}
			const errors = await pollsAMinuteApart(driver, server, 8);
			expect(errors).toEqual([]);
			const ids = aliveIds(server);
			expect(driver.emitted.map((e) => e.id)).toEqual(ids.slice(-3));
		});

	it('the newest 3, newest first, pages of 100: a millisecond that spans the first two pages does not let more than 3 existing responses through', async () => {
		const { server, driver } = setUp({
			version: 2,
			order: 'newestFirst',
			pageCap: 100,
			requestMs: 1,
			newestCount: 3,
		});
		// r0001..r0150 in one millisecond two hours ago, r0151 and r0152 an hour ago: the first
		// page holds r0152, r0151 and r0001..r0098 of the millisecond.
		server.seed(0, 150, 2 * HOUR, 0);
		server.seed(0, 2, HOUR, 1_000);
		const errors = await pollsAMinuteApart(driver, server, 3);
		expect(errors).toEqual([]);
		const emitted = driver.emitted.map((e) => e.id);
		expect(emitted).toHaveLength(3);
		expect(emitted).toEqual(expect.arrayContaining(['r0151', 'r0152']));
	});

	it('Every Response Since a Date, Selected Forms: a form taken out of the selection and selected again does not emit its responses again', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
			version: 2,
			requestMs: 1,
			sinceAgoMs: 24 * HOUR,
		});
		server.seed(0, 3, HOUR, 1_000);
		await driver.poll();
		expect(driver.emitted.map((e) => e.id)).toEqual(['r0001', 'r0002', 'r0003']);
		server.apply({ kind: 'advance', ms: MINUTE });
		driver.select([1]);
		await driver.poll();
		server.apply({ kind: 'advance', ms: MINUTE });
		driver.select([0, 1]);
		await driver.drain();
		expect(driver.emitted.map((e) => e.id)).toEqual(['r0001', 'r0002', 'r0003']);
	});

	// Beyond the assumptions: a service whose list is not ordered by submittedAt (here: by
	// creation, so a response created late with an early timestamp sits at the end).
});
