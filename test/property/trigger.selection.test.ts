/**
 * Selected Forms on the simulated service: a selected form the service does not have, forms
 * added to the selection later, and a form taken out and selected again. Black-box: what was
 * emitted and what was reported.
 */
import { aliveIds, drain, MINUTE, setUp, timesEmitted } from './named';

const MISSING = 'Selected form "formGone" could not be found';

describe('Selected Forms', () => {
	it("a selected form the service does not have is reported, and never fails n8n's activation poll, when every poll is an activation (the durable scheduler)", async () => {
		const { server, driver } = setUp({
			version: 2,
			watch: 'selectedForms',
			formCount: 2,
			selected: [1],
			selectMissing: true,
		});
		const errors: string[] = [];
		for (let poll = 0; poll < 4; poll++) {
			server.apply({ kind: 'submit', form: 1, count: 1, gapMs: 1 });
			driver.session.restart();
			const record = await driver.poll();
			expect(record.activationTick).toBe(true);
			expect(record.activationFailed).toBe(false);
			errors.push(...record.errors);
			server.apply({ kind: 'advance', ms: MINUTE });
		}
		expect(errors).toContain(MISSING);
		await drain(driver);
	});

	it('a service without a Date header, the missing form selected first: the trigger activates, and the next form’s new responses come', async () => {
		const { server, driver } = setUp({
			version: 2,
			watch: 'selectedForms',
			formCount: 2,
			selected: [1],
			selectMissing: true,
			dateAbsent: true,
		});
		// The selection is ["formGone", "form1"]: the missing form first.
		const activation = await driver.poll();
		expect(activation.errors).toEqual([MISSING]);
		expect(activation.activationFailed).toBe(false);
		server.apply({ kind: 'advance', ms: MINUTE });
		server.apply({ kind: 'submit', form: 1, count: 2, gapMs: 1_000 });
		const next = await driver.poll();
		expect(next.emitted).toHaveLength(2);
		expect(next.errors).toEqual([]);
	});

	it('a form added to the selection later: what its first read saw of that second is existing, what came after is new', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0],
			startOffsetMs: 300,
		});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 10_000 });
		server.seed(1, 50, MINUTE, 1_000);
		server.apply({ kind: 'submit', form: 1, count: 7, gapMs: 1 });
		const inTheSecond = aliveIds(server, 'form1').slice(-7);
		driver.select([0, 1]);
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 5_000 });
		server.apply({ kind: 'submit', form: 1, count: 2, gapMs: 1 });
		await drain(driver);
		for (const id of aliveIds(server, 'form1').slice(0, 57))
			expect(timesEmitted(driver.emitted, id)).toBe(0);
		for (const id of inTheSecond) expect(timesEmitted(driver.emitted, id)).toBe(0);
		for (const id of aliveIds(server, 'form1').slice(-2))
			expect(timesEmitted(driver.emitted, id)).toBe(1);
	});

	it('a form added to the selection later that answers 503, on a service without a Date header, holds up none of the others, and no other form is named', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0],
			dateAbsent: true,
		});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		driver.select([0, 1]);
		server.inject({ kind: 'serverError', status: 503 }, 10_000, 1);
		const newOnForm0: string[] = [];
		const errors: string[] = [];
		for (let i = 0; i < 8; i++) {
			server.apply({ kind: 'submit', form: 0, count: 1 });
			newOnForm0.push(aliveIds(server).at(-1) as string);
			server.apply({ kind: 'advance', ms: 60_000 });
			errors.push(...(await driver.poll()).errors);
		}
		for (const id of newOnForm0.slice(0, 7)) expect(timesEmitted(driver.emitted, id)).toBe(1);
		expect(errors.every((error) => error.includes('form1'))).toBe(true);
	});

	it('a form taken out of the selection and selected again starts afresh: what came while it was out stays out, what comes after comes once', async () => {
		const { server, driver } = setUp({
			watch: 'selectedForms',
			formCount: 2,
			selected: [0, 1],
		});
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		server.apply({ kind: 'submit', form: 1, count: 2, gapMs: 1 });
		expect((await driver.poll()).emitted).toHaveLength(2);
		driver.select([0]);
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		server.apply({ kind: 'submit', form: 1, count: 3, gapMs: 1 });
		const whileOut = aliveIds(server, 'form1').slice(-3);
		expect((await driver.poll()).emitted).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		driver.select([0, 1]);
		expect((await driver.poll()).errors).toEqual([]);
		server.apply({ kind: 'advance', ms: 2_000 });
		server.apply({ kind: 'submit', form: 1, count: 1 });
		await drain(driver);
		for (const id of whileOut) expect(timesEmitted(driver.emitted, id)).toBe(0);
		expect(timesEmitted(driver.emitted, aliveIds(server, 'form1').at(-1) as string)).toBe(1);
		for (const id of aliveIds(server, 'form1').slice(0, 2))
			expect(timesEmitted(driver.emitted, id)).toBe(1);
	});
});
