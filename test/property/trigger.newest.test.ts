/**
 * The newest N existing responses, then the new ones (docs/trigger-promise.md): global over the
 * watched forms; a form that cannot be read while they are chosen, that leaves the list of
 * forms or the selection, is left out of the choice and holds up none of the others. On the
 * simulated service; black-box: what was emitted, what errors were reported.
 */
import { aliveIds, drain, MINUTE, setUp, timesEmitted } from './named';

describe('the newest N existing responses', () => {
	it('fewer existing than N (350, N = 500), pages of 100, a poll of the durable scheduler: all 350 come once within 15 polls, no stall', async () => {
		const { server, driver } = setUp({
			version: 2,
			newestCount: 500,
			pageCap: 100,
			requestMs: 100,
		});
		server.seed(0, 350, MINUTE, 1_000);
		const existing = aliveIds(server);
		for (let i = 0; i < 15; i++) {
			const poll = await driver.poll({ budgetMs: 36_000 });
			expect(poll.errors).toEqual([]);
		}
		for (const id of existing) expect(timesEmitted(driver.emitted, id)).toBe(1);
		await drain(driver);
	});

	it('responses of the activation second are new: they come besides the newest N, which are chosen before it', async () => {
		const { server, driver } = setUp({ version: 2, newestCount: 5, startOffsetMs: 300 });
		server.seed(0, 1_200, MINUTE, 1_000);
		const old = aliveIds(server);
		server.apply({ kind: 'submit', form: 0, count: 7, gapMs: 1 });
		const inTheSecond = aliveIds(server).slice(-7);
		server.apply({ kind: 'advance', ms: 5 });
		const activation = await driver.poll();
		expect(activation.errors).toEqual([]);
		expect(activation.requests.some((r) => inTheSecond.every((id) => r.ids?.includes(id)))).toBe(
			true,
		);
		await drain(driver);
		for (const id of [...old.slice(-5), ...inTheSecond])
			expect(timesEmitted(driver.emitted, id)).toBe(1);
		for (const id of old.slice(0, -5)) expect(timesEmitted(driver.emitted, id)).toBe(0);
	});

	it('a few of them updated while they are read (pages of 100): none is skipped, and never more than N come', async () => {
		const { server, driver } = setUp({
			version: 2,
			newestCount: 200,
			pageCap: 100,
			requestMs: 100,
		});
		server.seed(0, 400, MINUTE, 100);
		const existing = aliveIds(server);
		// After the activation poll's first page (its budget cuts the read), 4 of the oldest are
		// updated: they move to the end (oldest first), and the others move up 4 places.
		await driver.poll({ budgetMs: 1 });
		for (let k = 0; k < 4; k++) server.apply({ kind: 'update', form: 0, pick: k });
		await drain(driver);
		const existingEmitted = driver.emitted.filter(
			(e) => e.tag.endsWith('#1') && existing.includes(e.id),
		);
		expect(existingEmitted.map((e) => e.id).sort()).toEqual(existing.slice(-200).sort());
	});

	it('Selected Forms: a new response of one form comes though it is older than a response of another form seen by the activation seconds later', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
			version: 2,
			newestCount: 1,
		});
		server.seed(0, 5, 10 * MINUTE, 1_000);
		server.seed(1, 5, 20 * MINUTE, 1_000);
		server.inject({ kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds: 2 } }, 1, 1);
		let x = '';
		let y = '';
		// While form1's 429 is waited out: X on form0 (already read), then Y on form1 (read after).
		for (let k = 1; k <= 6; k++)
			server.arm(k, (s) => {
				if (x || s.log.at(-1)?.status !== 429) return;
				s.apply({ kind: 'submit', form: 0, count: 1 });
				x = aliveIds(s, 'form0').at(-1) as string;
				s.apply({ kind: 'advance', ms: 1 });
				s.apply({ kind: 'submit', form: 1, count: 1 });
				y = aliveIds(s, 'form1').at(-1) as string;
			});
		const activation = await driver.poll();
		expect(activation.errors).toEqual([]);
		expect(x && y).toBeTruthy();
		server.apply({ kind: 'advance', ms: MINUTE });
		for (let poll = 0; poll < 3; poll++) await driver.poll();
		expect(timesEmitted(driver.emitted, y)).toBe(1);
		expect(timesEmitted(driver.emitted, x)).toBe(1);
		await drain(driver);
	});

	it('read over many polls while two earlier responses are updated between polls: they all come, or the form is named', async () => {
		const { server, driver } = setUp({
			version: 2,
			newestCount: 500,
			pageCap: 100,
			requestMs: 100,
		});
		server.seed(0, 2_000, MINUTE, 10);
		const newestExisting = aliveIds(server).slice(-500);
		const submitted: string[] = [];
		const errors: string[] = [];
		for (let poll = 0; poll < 30; poll++) {
			errors.push(...(await driver.poll({ budgetMs: 300 })).errors);
			server.apply({ kind: 'update', form: 0, pick: 2 * poll + 10 });
			server.apply({ kind: 'update', form: 0, pick: 2 * poll + 11 });
			server.apply({ kind: 'submit', form: 0, count: 1 });
			submitted.push(aliveIds(server).at(-1) as string);
			server.apply({ kind: 'advance', ms: 60_000 });
		}
		const emitted = [...newestExisting, ...submitted.slice(0, 20)].filter(
			(id) => timesEmitted(driver.emitted, id) > 0,
		);
		expect(emitted.length === 520 || errors.some((e) => e.includes('form0'))).toBe(true);
	});
	it('New Response: a response of the activation second, updated just after a rate limit delayed the read, comes once', async () => {
		const { server, driver } = setUp({
			newestCount: 250,
			updatedResponses: 'ignore',
			lookBackMinutes: 0,
			pageCap: 100,
			startOffsetMs: 0,
		});
		// The first request waits out a 429 (about a second): the moment may be either second.
		server.inject({ kind: 'rateLimit', retryAfter: { kind: 'absent' } }, 1);
		server.apply({ kind: 'submit', form: 0, count: 1, gapMs: 0 });
		const [id] = aliveIds(server);
		const activation = await driver.poll();
		expect(activation.emitted.map((e) => e.id)).toEqual([id]);
		server.apply({ kind: 'updateServed', form: 0, count: 1 });
		await drain(driver);
		expect(timesEmitted(driver.emitted, id)).toBe(1);
	});
	it('a millisecond of more than a page, oldest first, on a service slower than the poll’s budget: each poll asks two pages at most, and the form is named, not silently stalled', async () => {
		const { server, driver } = setUp({
			newestCount: 1,
			lookBackMinutes: 0,
			pageCap: 100,
			requestMs: 2_000,
			startOffsetMs: 0,
		});
		server.seed(0, 120, 0, 0);
		for (let poll = 0; poll < 5; poll++) {
			// An update moves a response to the end: the pages then show the list's order.
			server.apply({ kind: 'update', form: 0, pick: 0 });
			const record = await driver.poll({ budgetMs: 1_000 });
			expect(record.requests.length).toBeLessThanOrEqual(2);
			if (poll === 4) expect(record.errors.join()).toMatch(/"form0" made no progress/);
		}
		await drain(driver);
	});
	it('a form whose choosing read every poll cuts short (slow pages, small budgets) leaves the choice on the 5th, and its new responses come', async () => {
		const { server, driver } = setUp({
			newestCount: 1,
			lookBackMinutes: 0,
			pageCap: 100,
			requestMs: 2_000,
			startOffsetMs: 0,
		});
		server.seed(0, 120, 0, 0);
		server.apply({ kind: 'advance', ms: 61_000 });
		for (let poll = 0; poll < 5; poll++) await driver.poll({ budgetMs: 3_000 });
		server.apply({ kind: 'submit', form: 0, count: 1 });
		const [fresh] = aliveIds(server).slice(-1);
		await drain(driver);
		expect(timesEmitted(driver.emitted, fresh)).toBe(1);
		expect(driver.emitted.filter((e) => e.id !== fresh)).toEqual([]);
	});
});

describe('the newest N never wait on a form that leaves the choice', () => {
	it('Selected Forms: a form answering 503 never keeps the trigger from activating, nor holds up the other form, and is named', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
			version: 2,
			newestCount: 5,
		});
		server.seed(0, 8, MINUTE, 1_000);
		server.seed(1, 8, 2 * MINUTE, 1_000);
		server.inject({ kind: 'serverError', status: 503 }, 1_000, 1);
		const newestOfForm0 = aliveIds(server, 'form0').slice(-5);
		const polls = [];
		for (let i = 0; i < 6; i++) polls.push(await driver.poll());
		expect(polls.some((poll) => poll.activationFailed)).toBe(false);
		expect(polls.flatMap((poll) => poll.errors).some((error) => error.includes('form1'))).toBe(
			true,
		);
		for (const id of newestOfForm0) expect(timesEmitted(driver.emitted, id)).toBe(1);
		server.heal();
		await drain(driver);
	});

	it('Selected Forms, pages of 100: a form that fails 4 polls in 5 while they are chosen holds up none of the other form’s new responses', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
			version: 2,
			newestCount: 250,
			pageCap: 100,
			requestMs: 100,
		});
		server.seed(0, 100, 10 * MINUTE, 1_000);
		server.seed(1, 4_000, 20 * MINUTE, 100);
		const newOnForm0: string[] = [];
		for (let poll = 0; poll < 30; poll++) {
			if (poll > 0 && poll % 5 !== 0) server.inject({ kind: 'serverError', status: 503 }, 1, 1);
			await driver.poll({ budgetMs: 1_000 });
			server.heal();
			server.apply({ kind: 'submit', form: 0, count: 1 });
			newOnForm0.push(aliveIds(server, 'form0').at(-1) as string);
			server.apply({ kind: 'advance', ms: 60_000 });
		}
		const late = newOnForm0.slice(0, 20).filter((id) => timesEmitted(driver.emitted, id) === 0);
		expect(late).toEqual([]);
	});

	it('All Forms, pages of 100: a form read whole at activation, then missing from one listing while they are chosen, emits none of its existing responses', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 2,
			version: 2,
			newestCount: 3,
			pageCap: 100,
			requestMs: 100,
			startOffsetMs: 300,
		});
		server.seed(0, 2, 2 * MINUTE, 1_000);
		server.seed(1, 3_000, 10 * MINUTE, 100);
		const form0 = aliveIds(server, 'form0');
		// form1 fails at activation: the newest are still being chosen on the next poll.
		server.inject({ kind: 'serverError', status: 503 }, 1, 1);
		const activation = await driver.poll({ budgetMs: 500 });
		expect(activation.errors).toEqual([]);
		expect(activation.requests.some((r) => r.formId === 'form0' && r.hasMore === false)).toBe(true);
		expect(activation.emitted).toEqual([]);
		server.setHidden(0, true);
		await driver.poll({ budgetMs: 500 });
		server.setHidden(0, false);
		await drain(driver);
		for (const id of form0) expect(timesEmitted(driver.emitted, id)).toBe(0);
	});

	it('All Forms: a form whose reads fail on 4 polls while the newest are chosen, then succeed, is not named', async () => {
		const { server, driver } = setUp({
			watch: 'allForms',
			formCount: 3,
			newestCount: 1,
			lookBackMinutes: 0,
			pageCap: 100,
			startOffsetMs: 0,
		});
		// The activation poll's budget reads two forms; form2 is chosen on the next polls.
		const activation = await driver.poll({ budgetMs: 1 });
		expect(activation.requests.some((r) => r.formId === 'form2')).toBe(false);
		server.inject({ kind: 'drop' }, 4, 2);
		for (let poll = 0; poll < 5; poll++) {
			server.apply({ kind: 'update', form: 0, pick: 0 });
			expect((await driver.poll({ budgetMs: 1 })).errors).toEqual([]);
		}
		expect(
			driver.polls.at(-1)?.requests.some((r) => r.formId === 'form2' && r.status === 200),
		).toBe(true);
		await drain(driver);
	});

	it('Selected Forms: 20 forms whose first reads fail are each asked again on the next poll, and stay in the choice', async () => {
		const { forms, server, driver } = selectedFormsWithNewest(20, 100);
		const newestOf9 = aliveIds(server, 'form9').slice(-5);
		// Each form's first read fails, at the cost of one request: every form is asked on the
		// first two polls.
		for (const form of forms) server.inject({ kind: 'serverError', status: 503 }, 1, form);
		for (let poll = 0; poll < 10; poll++) {
			await driver.poll();
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		const askedForm9 = driver.polls.map((p) => p.requests.some((r) => r.formId === 'form9'));
		expect(askedForm9.slice(0, 2)).toEqual([true, true]);
		expect(
			driver.polls.flatMap((poll) => poll.errors).filter((e) => e.includes('(form9)')),
		).toEqual([]);
		for (const id of newestOf9) expect(timesEmitted(driver.emitted, id)).toBe(1);
		server.heal();
		await drain(driver);
	});

	it('Selected Forms: 8 of 10 forms answering 503 while the newest are chosen hold up the other forms for 10 polls at most, and neither is named', async () => {
		const { forms, server, driver } = selectedFormsWithNewest(10, 30);
		const healthy = [0, 9];
		const newest = healthy.flatMap((form) => aliveIds(server, `form${form}`).slice(-5));
		for (const form of forms.filter((f) => !healthy.includes(f)))
			server.inject({ kind: 'serverError', status: 503 }, 10_000, form);
		await driver.poll();
		server.apply({ kind: 'submit', form: 0, count: 1 });
		const submitted = aliveIds(server, 'form0').at(-1) as string;
		for (let poll = 1; poll < 12; poll++) {
			server.apply({ kind: 'advance', ms: MINUTE });
			await driver.poll();
		}
		// Three failed reads end each poll, the first of them asked first again; a failing form
		// leaves the choice when it is asked from its 5th poll on, the last of them on poll 7.
		const comesOn = driver.polls.findIndex((poll) => poll.emitted.some((e) => e.id === submitted));
		expect(comesOn).toBeGreaterThan(0);
		expect(comesOn).toBeLessThanOrEqual(10);
		const errors = driver.polls.flatMap((poll) => poll.errors);
		expect(errors.filter((e) => e.includes('(form0)') || e.includes('(form9)'))).toEqual([]);
		for (const id of newest) expect(timesEmitted(driver.emitted, id)).toBe(1);
		server.heal();
		await drain(driver);
	});

	it('Selected Forms: a form whose choosing read fails once, beside 15 forms that keep failing, is asked again on the next poll and keeps its newest', async () => {
		const forms = [...Array(17).keys()];
		const failing = forms.slice(2);
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 17,
			selected: forms,
			version: 2,
			newestCount: 10,
		});
		for (const form of failing) server.seed(form, 5, 180 * MINUTE, 1_000);
		server.seed(0, 20, 120 * MINUTE, 1_000);
		server.seed(1, 20, MINUTE, 1_000);
		const newestOf1 = aliveIds(server, 'form1').slice(-10);
		for (const form of failing) server.inject({ kind: 'serverError', status: 503 }, 10_000, form);
		server.inject({ kind: 'serverError', status: 503 }, 1, 1);
		for (let poll = 0; poll < 10; poll++) {
			await driver.poll();
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		const askedForm1 = driver.polls.map((p) => p.requests.some((r) => r.formId === 'form1'));
		expect(askedForm1.slice(0, 2)).toEqual([true, true]);
		expect(
			driver.polls.flatMap((poll) => poll.errors).filter((e) => e.includes('(form1)')),
		).toEqual([]);
		server.heal();
		await drain(driver);
		for (const id of newestOf1) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it('Selected Forms: 16 forms whose choosing reads each fail once, on the same polls, all keep their newest', async () => {
		const forms = [...Array(16).keys()];
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 16,
			selected: forms,
			version: 2,
			newestCount: 80,
		});
		// Each form's 5 responses in a minute of their own: the newest 80 are all of them.
		for (const form of forms) server.seed(form, 5, (17 - form) * MINUTE, 1_000);
		const existing = forms.flatMap((form) => aliveIds(server, `form${form}`));
		for (const form of forms) server.inject({ kind: 'serverError', status: 503 }, 1, form);
		// Three failed reads end each poll: a form whose read failed waits behind those not asked
		// yet, and is named on the 5th poll of its run, but read fine when next asked.
		for (let poll = 0; poll < 10; poll++) {
			await driver.poll();
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		await drain(driver);
		for (const id of existing) expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it('Selected Forms: forms put back into the selection on every poll, whose reads fail, hold up neither the choice nor the other forms’ new responses', async () => {
		const [first, second] = [
			[0, 1, 2, 3, 9],
			[0, 4, 5, 6, 9],
		];
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 10,
			selected: first,
			version: 2,
			newestCount: 10,
		});
		for (const form of [...Array(10).keys()]) server.seed(form, 20, MINUTE, 1_000);
		const newest = [0, 9].flatMap((form) => aliveIds(server, `form${form}`).slice(-5));
		for (const form of [1, 2, 3, 4, 5, 6])
			server.inject({ kind: 'serverError', status: 503 }, 1_000_000, form);
		// Each form that comes back starts afresh, and its first read fails.
		const submitted: { id: string; afterPoll: number }[] = [];
		for (let poll = 0; poll < 30; poll++) {
			if (poll > 0) driver.select(poll % 2 ? second : first);
			await driver.poll();
			server.apply({ kind: 'advance', ms: MINUTE });
			if (poll % 10 !== 0) continue;
			server.apply({ kind: 'submit', form: 0, count: 1 });
			submitted.push({ id: aliveIds(server, 'form0').at(-1) as string, afterPoll: poll });
		}
		for (const { id, afterPoll } of submitted) {
			const comesOn = driver.polls.findIndex((poll) => poll.emitted.some((e) => e.id === id));
			expect(comesOn - afterPoll).toBeGreaterThan(0);
			expect(comesOn - afterPoll).toBeLessThanOrEqual(2);
		}
		const errors = driver.polls.flatMap((poll) => poll.errors);
		expect(errors.filter((e) => e.includes('(form0)') || e.includes('(form9)'))).toEqual([]);
		for (const id of newest) expect(timesEmitted(driver.emitted, id)).toBe(1);
		server.heal();
		driver.select(first);
		await drain(driver);
	});

	it('Selected Forms: a form added while the newest wait on 30 forms answering 503 has its responses on the next poll, and is not named', async () => {
		const failing = [...Array(30).keys()];
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 32,
			selected: [...failing, 30],
			version: 2,
			newestCount: 5,
		});
		for (let form = 0; form < 32; form++) server.seed(form, 3, MINUTE, 1_000);
		for (const form of failing)
			server.inject({ kind: 'serverError', status: 503 }, 1_000_000, form);
		const submitted: { id: string; beforePoll: number }[] = [];
		for (let poll = 0; poll < 20; poll++) {
			if (poll === 1) driver.select([...failing, 30, 31]);
			if (poll >= 2) {
				server.apply({ kind: 'submit', form: 31, count: 1 });
				submitted.push({ id: aliveIds(server, 'form31').at(-1) as string, beforePoll: poll });
			}
			await driver.poll();
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		// Each failing form costs one request a poll: form31 is asked on every poll.
		for (const { id, beforePoll } of submitted) {
			const comesOn = driver.polls.findIndex((poll) => poll.emitted.some((e) => e.id === id));
			expect(comesOn).toBeGreaterThanOrEqual(beforePoll);
			expect(comesOn).toBeLessThanOrEqual(beforePoll + 1);
		}
		for (const poll of driver.polls)
			expect(poll.requests.filter((r) => r.faulted).length).toBeLessThanOrEqual(failing.length);
		const errors = driver.polls.flatMap((poll) => poll.errors);
		expect(errors.filter((e) => e.includes('(form31)'))).toEqual([]);
		server.heal();
		await drain(driver);
	});
});

/** Selected Forms, each of `formCount` forms with 20 responses a second apart, the newest `count` emitted on activation. */
function selectedFormsWithNewest(formCount: number, count: number) {
	const forms = [...Array(formCount).keys()];
	const { server, driver } = setUp({
		watch: 'selectedForms',
		formCount,
		selected: forms,
		version: 2,
		newestCount: count,
	});
	for (const form of forms) server.seed(form, 20, MINUTE, 1_000);
	return { forms, server, driver };
}
