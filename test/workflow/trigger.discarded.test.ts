/**
 * n8n 2.41 throws a poll's result away when the workflow was saved or re-published while the
 * poll ran, and its durable scheduler repeats a window whose cursor failed to commit: in both
 * cases the stored state is the one from before the poll, and the next poll runs on a new
 * Workflow loaded from it. The simulation of the issue: a quarter of the polls discarded.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { formById } from '../support/formsWtf';
import { TriggerSession } from './triggerSession';
import { prng } from '../support/prng';

let harness: RunningHarness;
beforeAll(async () => {
	harness = await startHarness({ rateLimit: false });
});
afterAll(async () => await harness.close());

const POLLS = 80;

describe('Forms.wtf Trigger, polls n8n discards', () => {
	it.each([
		['one form', 'form'],
		['all forms', 'allForms'],
	] as const)(
		'%s: a quarter of the polls discarded loses nothing and emits nothing twice',
		async (_name, watch) => {
			await harness.control.reset();
			const random = prng(watch === 'form' ? 7 : 11);
			const forms = await Promise.all(
				['feedback', 'bugs', 'research'].map(async (slug) => await harness.control.form(slug)),
			);
			const parameters: IDataObject =
				watch === 'form'
					? { watch, formId: formById(forms[0].id), options: {} }
					: { watch, options: {} };
			const trigger = new TriggerSession(harness, parameters);
			expect((await trigger.poll()).items).toEqual([]);

			const submitted: string[] = [];
			const emitted: string[] = [];
			let discarded = 0;
			for (let poll = 0; poll < POLLS; poll++) {
				const form = watch === 'form' ? forms[0] : forms[Math.floor(random() * forms.length)];
				const count = Math.floor(random() * 15);
				const burst = count ? await harness.control.submitBurst(form.id, count) : [];
				submitted.push(...burst.map((response) => response.id));
				const discard = random() < 0.25;
				if (discard) discarded++;
				emitted.push(
					...(await trigger.poll({ discarded: discard })).items.map((item) => item.id as string),
				);
			}
			for (let poll = 0; poll < 25; poll++)
				emitted.push(...(await trigger.poll()).items.map((item) => item.id as string));

			expect(discarded).toBeGreaterThan(POLLS / 8);
			expect(emitted.filter((id, i) => emitted.indexOf(id) !== i)).toEqual([]);
			expect(submitted.filter((id) => !emitted.includes(id))).toEqual([]);
			expect(emitted.length).toBe(submitted.length);
		},
	);
});
