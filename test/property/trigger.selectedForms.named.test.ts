/**
 * Named schedules for Selected Forms (issue 21) on the simulated service: how a selected form
 * that does not exist is reported, whatever way n8n runs the polls.
 */
import { SimServer } from '../sim/server';
import { drain, MINUTE, settingsWith, setUp } from './named';
import { REQUEST_MS, startMs } from './run';

const MISSING = 'Selected form "formGone" could not be found';

describe('Forms.wtf Trigger, Selected Forms with a selected form the service does not have', () => {
	it("is reported, and never fails n8n's activation poll, when every poll is an activation (n8n's durable scheduler builds each poll afresh; an activation n8n retries reuses the stored data)", async () => {
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

	it('a server without a Date header, the missing form selected first: the trigger activates on the clock of the next form', async () => {
		const patch = {
			version: 2 as const,
			watch: 'selectedForms' as const,
			formCount: 2,
			selected: [1],
			selectMissing: true,
		};
		const settings = settingsWith(patch);
		const server = new SimServer(
			{
				since: settings.since,
				order: settings.order,
				pageCap: settings.pageCap,
				totalAbsent: false,
				requestMs: REQUEST_MS,
				dateAbsent: true,
			},
			startMs(settings),
			settings.formCount,
		);
		// The selection is ["formGone", "form1"]: the missing form first.
		const { driver } = setUp(patch, server);
		// The activation reads every selected form: it reports the missing one, and activates.
		const activation = await driver.poll();
		expect(activation.errors).toEqual([MISSING]);
		expect(activation.activationFailed).toBe(false);
		server.apply({ kind: 'advance', ms: MINUTE });
		server.apply({ kind: 'submit', form: 1, count: 2, gapMs: 1_000 });
		const next = await driver.poll();
		expect(next.emitted).toHaveLength(2);
		expect(next.errors).toEqual([]);
	});
});
