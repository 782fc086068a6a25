/**
 * The trigger's promise (docs/trigger-promise.md) on three stories a team meets on a real
 * service: responses submitted after the activation's second while its read comes late, the
 * newest N beside a failing form or a form taken out of the selection, and a long backlog read
 * at the API's default page while respondents delete responses. Black-box: what was emitted,
 * what errors were reported, what was asked of the simulated service.
 */
import type { SimServer } from '../sim/server';
import { prng } from '../support/prng';
import { aliveIds, drain, MINUTE, setUp, timesEmitted } from './named';
import type { PollRecord } from './run';

/** The errors of polls that name a form (its id in quotes). */
function errorsNaming(polls: PollRecord[], formId: string): string[] {
	return polls.flatMap((poll) => poll.errors).filter((error) => error.includes(formId));
}

/**
 * Arms, before each of the next `requests` requests, a check: the first time the request just
 * answered matches `when`, `event` happens (once).
 */
function onceAfter(
	server: SimServer,
	requests: number,
	when: (server: SimServer) => boolean,
	event: (server: SimServer) => void,
): () => boolean {
	let happened = false;
	for (let k = 1; k <= requests; k++)
		server.arm(k, (s) => {
			if (happened || !when(s)) return;
			happened = true;
			event(s);
		});
	return () => happened;
}

describe('responses submitted after the activation second are new, however late its read', () => {
	it('a 429 with Retry-After 2 before the first read of the form: what arrives while it is waited out is emitted', async () => {
		const { server, driver } = setUp({ watch: 'allForms', formCount: 1, startOffsetMs: 300 });
		server.seed(0, 5, MINUTE, 1_000);
		const existing = aliveIds(server);
		server.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 2 } }, 1, 0);
		// While the 429 is waited out, two responses arrive: the read after the wait sees them.
		const arrived = onceAfter(
			server,
			8,
			(s) => s.log.at(-1)?.status === 429,
			(s) => s.apply({ kind: 'submit', form: 0, count: 2, gapMs: 1 }),
		);
		const activation = await driver.poll();
		expect(activation.errors).toEqual([]);
		expect(arrived()).toBe(true);
		const late = aliveIds(server).filter((id) => !existing.includes(id));
		const submittedAt = server.responses.filter((r) => late.includes(r.id))[0].versions[0].atMs;
		expect(submittedAt).toBeGreaterThanOrEqual(activation.startMs + 2_000);
		await drain(driver);
		for (const id of late) expect(timesEmitted(driver.emitted, id)).toBe(1);
		for (const id of existing) expect(timesEmitted(driver.emitted, id)).toBe(0);
	});

	it('All Forms reading another form first on a slow service (2 s a request): what arrives meanwhile on either form is emitted', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 2,
			requestMs: 2_000,
			startOffsetMs: 300,
		});
		server.seed(0, 5, MINUTE, 1_000);
		server.seed(1, 5, MINUTE, 1_000);
		const existing = server.responses.map((r) => r.id);
		// Once the first form's responses were asked, a response arrives on each form: one form
		// was read before it, the other is read after it, seconds after the activation's second.
		const arrived = onceAfter(
			server,
			12,
			(s) => s.log.at(-1)?.path.endsWith('/responses') === true,
			(s) => {
				s.apply({ kind: 'submit', form: 0, count: 1 });
				s.apply({ kind: 'submit', form: 1, count: 1 });
			},
		);
		const activation = await driver.poll();
		expect(activation.errors).toEqual([]);
		expect(arrived()).toBe(true);
		const late = server.responses.filter((r) => !existing.includes(r.id));
		expect(late).toHaveLength(2);
		for (const r of late)
			expect(r.versions[0].atMs).toBeGreaterThanOrEqual(
				Math.floor(activation.startMs / 1000) * 1000 + 2_000,
			);
		await drain(driver);
		for (const r of late) expect(timesEmitted(driver.emitted, r.id)).toBe(1);
		for (const id of existing) expect(timesEmitted(driver.emitted, id)).toBe(0);
	});
});

describe('the newest N never wait on a form that cannot be read, nor take a form out of the selection', () => {
	it('Selected Forms A and B, N = 250, pages of 100, B answering 503 from its first read: B is named by its 5th failing poll, and A gives its new and newest existing responses within 5 polls', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
			version: 2,
			newestCount: 250,
			pageCap: 100,
			requestMs: 100,
		});
		// 400 existing responses each, interleaved in time (A's one second after B's).
		server.seed(1, 400, 2 * MINUTE + 1_000, 2_000);
		server.seed(0, 400, 2 * MINUTE, 2_000);
		const existingOfA = aliveIds(server, 'form0');
		const newestOverBoth = [...server.responses]
			.sort((a, b) => b.versions[0].atMs - a.versions[0].atMs)
			.slice(0, 250);
		const chosenOfA = newestOverBoth.filter((r) => r.formId === 'form0').map((r) => r.id);
		const newestOfA = existingOfA.slice(-250);
		// B answers 503 from its first read, the activation's, while the newest are chosen.
		server.inject({ kind: 'serverError', status: 503 }, 10_000, 1);
		const activation = await driver.poll();
		expect(activation.activationFailed).toBe(false);
		const newOfA: Array<{ id: string; atPoll: number }> = [];
		const failing: PollRecord[] = [];
		for (let i = 0; i < 12; i++) {
			server.apply({ kind: 'advance', ms: MINUTE });
			server.apply({ kind: 'submit', form: 0, count: 1 });
			newOfA.push({ id: aliveIds(server, 'form0').at(-1) as string, atPoll: i + 1 });
			failing.push(await driver.poll());
		}
		// B is named by an error by its 5th failing poll.
		expect(errorsNaming(failing.slice(0, 5), 'form1').length).toBeGreaterThan(0);
		// A's newest existing responses: all of its share of the newest 250 over both forms, at
		// most its own newest 250, each once, by the 5th poll after activation.
		const byFifth = [activation, ...failing.slice(0, 5)].flatMap((poll) => poll.emitted);
		const existingEmitted = byFifth.filter((e) => existingOfA.includes(e.id)).map((e) => e.id);
		for (const id of chosenOfA) expect(existingEmitted).toContain(id);
		for (const id of existingEmitted) expect(newestOfA).toContain(id);
		expect(new Set(existingEmitted).size).toBe(existingEmitted.length);
		// Each new response of A within 5 polls of its arrival.
		for (const { id, atPoll } of newOfA) {
			const emittedAt = driver.emitted.find((e) => e.id === id)?.poll;
			expect({ id, emittedAt }).toEqual({ id, emittedAt: expect.any(Number) });
			expect((emittedAt as number) - atPoll).toBeLessThan(5);
		}
		expect(driver.emitted.filter((e) => e.formId === 'form1')).toEqual([]);
	});

	it('Selected Forms, pages of 100, a form taken out of the selection while the newest 150 are chosen: none of its responses comes in place of the other form’s newest', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [1, 0],
			version: 2,
			newestCount: 150,
			pageCap: 100,
			requestMs: 100,
		});
		// form1's responses are the newest: they would be chosen first, then form1 is taken out.
		server.seed(0, 400, 30 * MINUTE, 1_000);
		server.seed(1, 300, MINUTE, 1_000);
		const newestOfForm0 = aliveIds(server, 'form0').slice(-150);
		// The activation poll reads one page (its budget is spent), so the choice is under way.
		await driver.poll({ budgetMs: 1 });
		driver.select([0]);
		await drain(driver);
		expect(driver.emitted.filter((e) => e.formId === 'form1')).toEqual([]);
		const ofForm0 = driver.emitted.filter((e) => e.formId === 'form0').map((e) => e.id);
		expect(ofForm0.sort()).toEqual([...newestOfForm0].sort());
	});
});

describe('no false alarm while respondents delete responses at human rates', () => {
	it.each([
		['oldestFirst', 'about 30 pages a poll (100 ms a request, a 3 s budget)', 3_000, 12, 30],
		['newestFirst', 'about 30 pages a poll (100 ms a request, a 3 s budget)', 3_000, 12, 30],
		['oldestFirst', 'one page a poll', 1, 40, 1],
		['newestFirst', 'one page a poll', 1, 40, 1],
	] as const)(
		'a backlog of 8,000 since a date at pages of 100 (%s, %s), about one deletion a request, some of them of the last responses read: every remaining response once, no error',
		async (order, _rate, budgetMs, polls, requestsPerPoll) => {
			const { server, driver } = setUp({
				version: 2,
				order,
				pageCap: 100,
				requestMs: 100,
				sinceAgoMs: 7 * 24 * 3_600_000,
			});
			server.seed(0, 8_000, 60 * MINUTE, 100);
			const random = prng(41);
			// Before a request: one response goes, half the time one of the last page served.
			const deleteOne = (s: SimServer) => {
				const lastPage = s.log.filter((r) => r.ids?.length).at(-1)?.ids ?? [];
				const alive = aliveIds(s);
				const pick =
					random() < 0.5 && lastPage.length
						? alive.indexOf(lastPage[lastPage.length - 1 - Math.floor(random() * 3)])
						: Math.floor(random() * alive.length);
				if (pick >= 0) s.apply({ kind: 'delete', form: 0, pick });
			};
			for (let poll = 0; poll < polls; poll++) {
				for (let k = 1; k <= requestsPerPoll; k++) server.arm(k, deleteOne);
				const record = await driver.poll({ budgetMs });
				// What is still armed happens between the polls; then the last responses read go.
				server.heal();
				const lastRead = record.requests.filter((r) => r.ids?.length).at(-1)?.ids ?? [];
				const alive = aliveIds(server);
				for (const id of lastRead.slice(-2)) {
					const pick = alive.indexOf(id);
					if (pick >= 0) server.apply({ kind: 'delete', form: 0, pick });
				}
				server.apply({ kind: 'advance', ms: MINUTE });
			}
			await drain(driver);
			const deleted = server.responses.filter((r) => r.deletedAtMs !== undefined).length;
			expect(deleted).toBeGreaterThan(40);
			expect(driver.polls.flatMap((poll) => poll.errors)).toEqual([]);
			for (const id of aliveIds(server)) expect(timesEmitted(driver.emitted, id)).toBe(1);
			const ids = driver.emitted.map((e) => e.id);
			expect(new Set(ids).size).toBe(ids.length);
		},
		120_000,
	);
});
