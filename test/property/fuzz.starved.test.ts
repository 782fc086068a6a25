/**
 * The long fuzz runs a schedule again when a poll failed on n8n-workflow's regex time-out (a
 * machine starved of CPU), and keeps a failure that comes every time; a story polls again.
 */
import { runUnstarved, starvation } from './fuzz';
import { MINUTE, setUp } from './named';
import type { Trace } from './run';
import { STARVED } from './run';
import type { Schedule } from './schedule';

const schedule = {} as Schedule;
const traceWith = (errors: string[]) => ({ polls: [{ errors }] }) as unknown as Trace;
const starved = traceWith(['Regular expression execution timed out']);

describe('the fuzzer on a machine starved of CPU', () => {
	it('runs a schedule again when a poll failed on the regex time-out only', async () => {
		const clean = traceWith([]);
		const runs = [starved, clean];
		const before = starvation.rerun;
		const trace = await runUnstarved(schedule, async () => runs.shift() as Trace);
		expect(trace).toBe(clean);
		expect(starvation.rerun - before).toBe(1);
	});

	it('keeps the time-out when every run of the schedule hits it', async () => {
		let calls = 0;
		const trace = await runUnstarved(schedule, async () => {
			calls++;
			return starved;
		});
		expect(trace).toBe(starved);
		expect(calls).toBe(3);
	});

	it('does not run a schedule again for any other failure', async () => {
		let calls = 0;
		const failing = traceWith(['Form "form0" made no progress']);
		await runUnstarved(schedule, async () => {
			calls++;
			return failing;
		});
		expect(calls).toBe(1);
	});
});

describe('a story on a machine starved of CPU', () => {
	const starvedPoll = { items: [], error: new Error(STARVED), errors: [new Error(STARVED)] };

	it('polls again when a poll failed on the regex time-out before it asked the service', async () => {
		const { server, driver } = setUp({});
		await driver.poll();
		server.apply({ kind: 'submit', form: 0, count: 1, gapMs: 1 });
		server.apply({ kind: 'advance', ms: MINUTE });
		jest.spyOn(driver.session, 'poll').mockResolvedValueOnce(starvedPoll);
		const record = await driver.poll();
		expect(record.errors).toEqual([]);
		expect(record.emitted).toHaveLength(1);
	});

	it('keeps the time-out of a poll that had asked the service', async () => {
		const { driver } = setUp({});
		const poll = driver.session.poll.bind(driver.session);
		jest.spyOn(driver.session, 'poll').mockImplementation(async (options) => {
			await poll(options);
			return starvedPoll;
		});
		const record = await driver.poll();
		expect(record.errors).toEqual([STARVED]);
	});
});
