/**
 * The long fuzz runs a schedule again when a poll failed on n8n-workflow's regex time-out (a
 * machine starved of CPU), and keeps a failure that comes every time.
 */
import { runUnstarved, starvation } from './fuzz';
import type { Trace } from './run';
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
