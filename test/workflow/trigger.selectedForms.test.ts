/**
 * The trigger for teams with several forms (version 2): Selected Forms, Trigger On, and On
 * Activation, Emit (only new, the newest N, every response since a date), through n8n-core's
 * real poll machinery against the harness.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { readAllPages } from '../harness/testHelpers';
import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';
import { MAX_ITEMS_PER_POLL } from '../../nodes/FormsWtf/trigger/read';
import { formById } from '../support/formsWtf';
import { TriggerSession } from './triggerSession';

let harness: RunningHarness;
beforeAll(async () => {
	harness = await startHarness({ rateLimit: false });
});
afterAll(async () => await harness.close());
beforeEach(async () => {
	await harness.control.reset();
	Object.assign(testRetryPolicy, { baseDelayMs: 1, maxDelayMs: 4, maxRateLimitWaitMs: 100 });
});
afterEach(() => resetTestRetryPolicy());

const ids = (items: Array<{ id?: unknown }>) => items.map((item) => item.id as string);
const readAll = async (formId: string) => (await readAllPages(harness, formId, 1000)).responses;
const V2 = 2;

function selected(formIds: string | string[], extra: IDataObject = {}): IDataObject {
	return {
		event: 'newOrUpdatedResponse',
		watch: 'selectedForms',
		formIds,
		onActivation: 'newOnly',
		options: {},
		...extra,
	};
}

/** Requests `run` sends, by path. */
async function requests(run: () => Promise<unknown>): Promise<string[]> {
	await harness.control.clearRequestLog();
	await run();
	return (await harness.control.requestLog()).map((entry) => entry.path);
}

describe('Forms.wtf Trigger, Selected Forms', () => {
	it('emits the new responses of the selected forms only, each naming its form', async () => {
		const [bugs, research, waitlist] = await Promise.all(
			['bugs', 'research', 'waitlist'].map((f) => harness.control.form(f)),
		);
		const trigger = new TriggerSession(harness, selected([bugs.id, research.id]), undefined, V2);
		expect((await trigger.poll()).items).toEqual([]);
		const toBugs = await harness.control.submitResponse(bugs.id);
		await harness.control.submitResponse(waitlist.id);
		const toResearch = await harness.control.submitResponse(research.id);
		const { items } = await trigger.poll();
		expect(items.map((item) => [item.id, item.formId, item.formTitle])).toEqual([
			[toBugs.id, bugs.id, bugs.title],
			[toResearch.id, research.id, research.title],
		]);
		expect((await trigger.poll()).items).toEqual([]);
	});

	it('an idle poll costs the listing and nothing per selected form; a form that changed costs its read', async () => {
		const forms = await Promise.all(
			['bugs', 'research', 'waitlist', 'allowlist'].map((f) => harness.control.form(f)),
		);
		const trigger = new TriggerSession(
			harness,
			selected(forms.map((form) => form.id)),
			undefined,
			V2,
		);
		await trigger.poll();
		await trigger.poll(); // the first read after activation records what the listing says
		const idle = await requests(async () => expect((await trigger.poll()).items).toEqual([]));
		expect(idle).toEqual(['/api/v1/forms']);
		const response = await harness.control.submitResponse(forms[2].id);
		const busy = await requests(async () =>
			expect(ids((await trigger.poll()).items)).toEqual([response.id]),
		);
		expect(busy).toEqual(['/api/v1/forms', `/api/v1/forms/${forms[2].id}/responses`]);
	});

	it('takes IDs by expression: a list, or IDs separated by commas (repeats and spaces ignored)', async () => {
		const [bugs, research] = await Promise.all(
			['bugs', 'research'].map((f) => harness.control.form(f)),
		);
		const trigger = new TriggerSession(
			harness,
			selected(` ${bugs.id},${research.id} , ${bugs.id}`),
			undefined,
			V2,
		);
		await trigger.poll();
		const submitted = [
			await harness.control.submitResponse(research.id),
			await harness.control.submitResponse(bugs.id),
		];
		expect(ids((await trigger.poll()).items).sort()).toEqual(ids(submitted).sort());
	});

	it('names a selected form that does not exist, and goes on with the others', async () => {
		const bugs = await harness.control.form('bugs');
		const trigger = new TriggerSession(harness, selected([bugs.id, 'frm_deleted']), undefined, V2);
		// The activation poll reads every selected form, and reports the missing one on its own
		// (n8n's __emitError: an error execution), naming it by its ID, without failing the activation.
		const activation = await trigger.poll();
		expect(activation.activationFailed).toBeUndefined();
		expect(activation.error?.message).toBe('Selected form "frm_deleted" could not be found');
		expect((activation.error as { description?: string }).description).toContain(
			'Remove it from "Form Names or IDs"',
		);
		// The poll emits the other form's response.
		const response = await harness.control.submitResponse(bugs.id);
		const first = await trigger.poll();
		expect(ids(first.items)).toEqual([response.id]);
		expect(first.error).toBeUndefined();
		// Reported once, not on every poll; new responses still come.
		expect((await trigger.poll()).error).toBeUndefined();
		const later = await harness.control.submitResponse(bugs.id);
		const next = await trigger.poll();
		expect(ids(next.items)).toEqual([later.id]);
		expect(next.error).toBeUndefined();
	});

	it("a restart while a selected form is missing: n8n's activation poll never fails on it", async () => {
		const bugs = await harness.control.form('bugs');
		const trigger = new TriggerSession(harness, selected([bugs.id, 'frm_deleted']), undefined, V2);
		expect((await trigger.poll()).error?.message).toBe(
			'Selected form "frm_deleted" could not be found',
		);
		await trigger.poll(); // emits nothing, so n8n saves nothing
		trigger.restart();
		// n8n saved the activation poll's state, report included: the activation poll after the
		// restart neither fails on the missing form nor reports it again.
		const activation = await trigger.poll();
		expect(activation.activationFailed).toBeUndefined();
		expect(activation.error).toBeUndefined();
		const response = await harness.control.submitResponse(bugs.id);
		expect(ids((await trigger.poll()).items)).toEqual([response.id]);
	});

	it('a selected form the listing lacks is still read: its responses come, once', async () => {
		const [bugs, research] = await Promise.all(
			['bugs', 'research'].map((f) => harness.control.form(f)),
		);
		const trigger = new TriggerSession(harness, selected([bugs.id, research.id]), undefined, V2);
		await trigger.poll();
		await harness.control.injectFault({ kind: 'listingWithout', formIds: [bugs.id], times: 3 });
		const response = await harness.control.submitResponse(bugs.id);
		expect(ids((await trigger.poll()).items)).toEqual([response.id]);
		expect((await trigger.poll()).items).toEqual([]);
		expect((await trigger.poll()).items).toEqual([]);
		expect((await trigger.poll()).items).toEqual([]);
	});

	it('a form added to the selection starts when it is added; a form taken out is no longer emitted', async () => {
		const [bugs, research] = await Promise.all(
			['bugs', 'research'].map((f) => harness.control.form(f)),
		);
		const first = new TriggerSession(harness, selected([bugs.id]), undefined, V2);
		await first.poll();
		const activatedAtMs = (Object.values(first.storedStaticData)[0] as IDataObject).activatedAtMs;
		expect(typeof activatedAtMs).toBe('number');
		// Before research is selected (a few seconds before: the service's clock has whole seconds).
		await harness.control.submitResponse(research.id, {
			submittedAt: new Date(Date.now() - 5_000).toISOString(),
		});
		// The user edits the workflow: n8n keeps the static data and starts a new activation.
		const edited = new TriggerSession(harness, selected([research.id]), undefined, V2);
		edited.staticData = first.storedStaticData;
		expect((await edited.poll()).items).toEqual([]);
		const toResearch = await harness.control.submitResponse(research.id);
		await harness.control.submitResponse(bugs.id);
		expect(ids((await edited.poll()).items)).toEqual([toResearch.id]);
		// The same activation went on: only the selection changed.
		expect((Object.values(edited.storedStaticData)[0] as IDataObject).activatedAtMs).toBe(
			activatedAtMs,
		);
	});

	it('Fetch Test Event shows the newest response of the selected forms in a few requests', async () => {
		const [bugs, research] = await Promise.all(
			['bugs', 'research'].map((f) => harness.control.form(f)),
		);
		const newest = await harness.control.submitResponse(research.id);
		const trigger = new TriggerSession(
			harness,
			selected([bugs.id, research.id, 'frm_deleted']),
			undefined,
			V2,
		);
		let outcome: { items: IDataObject[]; error?: Error } = { items: [] };
		const sent = await requests(async () => (outcome = await trigger.fetchTestEvent()));
		expect(outcome.error).toBeUndefined();
		expect(outcome.items.map((item) => [item.id, item.formId])).toEqual([[newest.id, research.id]]);
		expect(sent.length).toBeLessThanOrEqual(4);
	});

	it('refuses an empty selection with words a user can act on', async () => {
		const trigger = new TriggerSession(harness, selected([]), undefined, V2);
		const { error } = await trigger.poll();
		expect(error?.message).toBe('No forms selected');
	});
});

describe('Forms.wtf Trigger, Trigger On', () => {
	it.each([
		['newResponse', 0],
		['newOrUpdatedResponse', 1],
	])('%s: an updated response is emitted again %i times', async (event, again) => {
		const bugs = await harness.control.form('bugs');
		const trigger = new TriggerSession(
			harness,
			{ event, watch: 'form', formId: formById(bugs.id), options: {} },
			undefined,
			V2,
		);
		await trigger.poll();
		const response = await harness.control.submitResponse(bugs.id);
		expect(ids((await trigger.poll()).items)).toEqual([response.id]);
		await harness.control.updateResponse(bugs.id, response.id);
		expect(ids((await trigger.poll()).items)).toHaveLength(again);
	});
});

describe('Forms.wtf Trigger, On Activation, Emit', () => {
	it('every response since a date: oldest first, in polls of a bounded size, exactly once through a restart and a discarded poll', async () => {
		const form = await harness.control.form('feedback'); // 2,500 existing responses over past months
		await harness.control.submitBurst(form.id, 2_500);
		const all = await readAll(form.id);
		const times = all.map((r) => Date.parse(r.submittedAt)).sort((a, b) => a - b);
		// A date that leaves out the oldest part of the form.
		const sinceMs = times[Math.floor(times.length / 10)];
		const expected = all.filter((r) => Date.parse(r.submittedAt) >= sinceMs);
		expect(expected.length).toBeGreaterThan(MAX_ITEMS_PER_POLL + 2 * 1000);
		const parameters = {
			event: 'newOrUpdatedResponse',
			watch: 'form',
			formId: formById(form.id),
			onActivation: 'since',
			submittedSince: new Date(sinceMs).toISOString(),
			options: {},
		};
		const trigger = new TriggerSession(harness, parameters, undefined, V2);
		const first = await trigger.poll();
		expect(first.error).toBeUndefined();
		expect(first.items.length).toBeGreaterThanOrEqual(MAX_ITEMS_PER_POLL);
		expect(first.items.length).toBeLessThanOrEqual(MAX_ITEMS_PER_POLL + 2 * 1000);
		const atMs = (item: IDataObject) => Date.parse(item.submittedAt as string);
		expect(first.items.map(atMs)).toEqual([...first.items.map(atMs)].sort((a, b) => a - b));
		const emitted = [...first.items];
		const arrived = await harness.control.submitResponse(form.id);
		// n8n discards a poll (the workflow saved meanwhile), then restarts.
		await trigger.poll({ discarded: true });
		trigger.restart();
		for (let poll = 0; poll < 5; poll++) emitted.push(...(await trigger.poll()).items);
		expect(ids(emitted).sort()).toEqual([...ids(expected), arrived.id].sort());
	});

	it('the newest N existing responses, then new ones', async () => {
		const bugs = await harness.control.form('bugs');
		const all = await readAll(bugs.id);
		const newest3 = [...all]
			.sort((a, b) => Date.parse(b.submittedAt) - Date.parse(a.submittedAt))
			.slice(0, 3);
		const parameters = {
			watch: 'form',
			formId: formById(bugs.id),
			onActivation: 'newest',
			existingCount: 3,
			options: {},
		};
		const trigger = new TriggerSession(harness, parameters, undefined, V2);
		const emitted: IDataObject[] = [];
		for (let poll = 0; poll < 3; poll++) emitted.push(...(await trigger.poll()).items);
		expect(ids(emitted).sort()).toEqual(ids(newest3).sort());
	});

	it('more than 2,000 newest responses is refused with what to do; version 1 reads 2,000 of what it asks', async () => {
		const bugs = await harness.control.form('bugs');
		const parameters = {
			watch: 'form',
			formId: formById(bugs.id),
			onActivation: 'newest',
			existingCount: 2001,
			options: {},
		};
		const refused = await new TriggerSession(harness, parameters, undefined, V2).poll();
		expect(refused.error?.message).toBe(
			'"Number of Existing Responses" must be a whole number from 1 to 2000',
		);
		expect((refused.error as { description?: string }).description).toContain(
			'Every Response Since a Date',
		);
		const v1 = { watch: 'form', formId: formById(bugs.id), options: { backfill: 5000 } };
		const asked = await new TriggerSession(harness, v1).poll();
		expect(asked.error).toBeUndefined();
		expect(asked.items.length).toBe(Math.min(2000, (await readAll(bugs.id)).length));
	});

	it('since a date with Selected Forms: each selected form from that date, none of the others', async () => {
		const [bugs, research, waitlist] = await Promise.all(
			['bugs', 'research', 'waitlist'].map((f) => harness.control.form(f)),
		);
		const sinceMs = Date.now() - 60_000;
		const recent = [
			await harness.control.submitResponse(bugs.id, {
				submittedAt: new Date(sinceMs + 1_000).toISOString(),
			}),
			await harness.control.submitResponse(research.id, {
				submittedAt: new Date(sinceMs).toISOString(),
			}),
		];
		await harness.control.submitResponse(waitlist.id, {
			submittedAt: new Date(sinceMs + 2_000).toISOString(),
		});
		await harness.control.submitResponse(bugs.id, {
			submittedAt: new Date(sinceMs - 1).toISOString(),
		});
		const trigger = new TriggerSession(
			harness,
			selected([bugs.id, research.id], {
				onActivation: 'since',
				submittedSince: new Date(sinceMs).toISOString(),
			}),
			undefined,
			V2,
		);
		expect(ids((await trigger.poll()).items)).toEqual([recent[1].id, recent[0].id]);
		expect((await trigger.poll()).items).toEqual([]);
	});

	it.each([
		['', 'No date in "Submitted Since"'],
		['next tuesday', '"Submitted Since" is not a date'],
	])('a Submitted Since of %j is refused: %s', async (submittedSince, message) => {
		const bugs = await harness.control.form('bugs');
		const parameters = {
			watch: 'form',
			formId: formById(bugs.id),
			onActivation: 'since',
			submittedSince,
			options: {},
		};
		const { error } = await new TriggerSession(harness, parameters, undefined, V2).poll();
		expect(error?.message).toBe(message);
	});

	it('a date without a time zone is read in the time zone of the workflow', async () => {
		const bugs = await harness.control.form('bugs');
		// The runner's workflows use n8n's default time zone, America/New_York.
		const at = await harness.control.submitResponse(bugs.id, {
			submittedAt: '2026-01-15T14:00:00.000Z',
		}); // 09:00 in New York
		await harness.control.submitResponse(bugs.id, { submittedAt: '2026-01-15T13:59:59.000Z' });
		const parameters = {
			watch: 'form',
			formId: formById(bugs.id),
			onActivation: 'since',
			submittedSince: '2026-01-15T09:00:00',
			options: {},
		};
		const { items } = await new TriggerSession(harness, parameters, undefined, V2).poll();
		expect(ids(items)).toContain(at.id);
		expect(
			items.every(
				(item) => Date.parse(item.submittedAt as string) >= Date.parse('2026-01-15T14:00:00.000Z'),
			),
		).toBe(true);
	});
});
