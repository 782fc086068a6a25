/**
 * The trigger in the n8n users run: All Forms with listings that lack a form or cannot be read,
 * polls that read only the forms that changed, Emit Existing Responses within the poll budget,
 * and a credential edited while the workflow is active.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';
import { MAX_ITEMS_PER_POLL, MAX_PAGES_PER_POLL } from '../../nodes/FormsWtf/trigger/read';
import { SWEEP_POLLS } from '../../nodes/FormsWtf/trigger/forms';
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

const allForms: IDataObject = { watch: 'allForms', options: {} };
const ids = (items: IDataObject[]) => items.map((item) => item.id as string);
const nodeState = (staticData: IDataObject) => Object.values(staticData)[0] as IDataObject;
/** The state without its count of passing failures: the cursors a failed poll must leave alone. */
const cursorsOf = (staticData: IDataObject) => {
	// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
	const { failures: _failures, ...cursors } = nodeState(staticData);
	return cursors;
};

/** Requests for responses (per form) that `run` sends. */
async function responseRequests(run: () => Promise<unknown>): Promise<string[]> {
	await harness.control.clearRequestLog();
	await run();
	return (await harness.control.requestLog())
		.filter((entry) => entry.path.endsWith('/responses'))
		.map((entry) => entry.path);
}

describe('Forms.wtf Trigger, All Forms', () => {
	it('a form missing from one listing keeps its cursor: nothing emitted twice when it is listed again', async () => {
		const form = await harness.control.form('bugs');
		const trigger = new TriggerSession(harness, allForms);
		await trigger.poll();
		const submitted = await harness.control.submitResponses(form.id, [{}, {}]);
		expect(ids((await trigger.poll()).items)).toEqual(ids(submitted));

		await harness.control.injectFault({ kind: 'listingWithout', formIds: [form.id] });
		expect((await trigger.poll()).items).toEqual([]);
		expect((await trigger.poll()).items).toEqual([]);
		const later = await harness.control.submitResponse(form.id);
		expect(ids((await trigger.poll()).items)).toEqual([later.id]);
	});

	it.each([
		['an object without forms', {}],
		['forms that is not a list', { forms: 'none' }],
		['a bare list', []],
		['a form without an id', { forms: [{ title: 'No id' }] }],
	])('a listing that is %s fails the poll and leaves the state untouched', async (_name, body) => {
		const form = await harness.control.form('bugs');
		const trigger = new TriggerSession(harness, allForms);
		await trigger.poll();
		const submitted = await harness.control.submitResponses(form.id, [{}, {}]);
		const before = structuredClone(trigger.staticData);
		await harness.control.injectFault({ kind: 'jsonBody', body });
		const failed = await trigger.poll();
		expect(failed.items).toEqual([]);
		expect(cursorsOf(trigger.staticData)).toEqual(cursorsOf(before));
		expect(nodeState(trigger.staticData).failures).toBe(1);
		expect(ids((await trigger.poll()).items)).toEqual(ids(submitted));
	});

	it('an idle poll reads no form; a form whose listing changed is read alone', async () => {
		const trigger = new TriggerSession(harness, allForms);
		await trigger.poll();
		// Every form was read at activation: none is due for the sweep before SWEEP_POLLS polls.
		for (let poll = 1; poll < SWEEP_POLLS; poll++)
			expect(await responseRequests(() => trigger.poll())).toEqual([]);
		const form = await harness.control.form('research');
		trigger.restart(); // the next poll runs on a new Workflow from the stored state
		await harness.control.submitResponse(form.id);
		const requests = await responseRequests(() => trigger.poll());
		expect(requests.filter((path) => path.includes(form.id))).toHaveLength(1);
	});

	it('an updated response, which leaves the listing unchanged, is caught by the sweep within 2 × SWEEP_POLLS polls', async () => {
		const forms = (await harness.control.listForms()).filter((form) => form.owner === 'demo');
		const form = await harness.control.form('bugs');
		const trigger = new TriggerSession(harness, allForms);
		await trigger.poll();
		const [response] = await harness.control.submitResponses(form.id, [{}]);
		expect(ids((await trigger.poll()).items)).toEqual([response.id]);
		const updated = await harness.control.updateResponse(form.id, response.id);
		const emitted: IDataObject[] = [];
		let polls = 0;
		while (!emitted.length && polls < 2 * SWEEP_POLLS + forms.length) {
			emitted.push(...(await trigger.poll()).items);
			polls++;
		}
		expect(emitted.map((item) => [item.id, item.submittedAt])).toEqual([
			[response.id, updated.submittedAt],
		]);
		expect(polls).toBeLessThanOrEqual(2 * SWEEP_POLLS);
	});
});

describe('Forms.wtf Trigger, the size of a poll', () => {
	it('All Forms activation with its budget spent reads two pages; existing responses of the others are never emitted, new ones are', async () => {
		const demoForms = (await harness.control.listForms()).filter(
			(form) => form.owner === 'demo' && form.responseCount > 0,
		);
		const trigger = new TriggerSession(harness, allForms);
		const atActivation = await responseRequests(async () =>
			expect((await trigger.poll({ pollBudgetMs: 1 })).items).toEqual([]),
		);
		expect(atActivation).toHaveLength(2);
		const submitted = [];
		for (const form of demoForms) submitted.push(await harness.control.submitResponse(form.id));
		const emitted: IDataObject[] = [];
		for (let poll = 0; poll < demoForms.length + 1; poll++)
			emitted.push(...(await trigger.poll({ pollBudgetMs: 1 })).items);
		expect(ids(emitted).sort()).toEqual(ids(submitted).sort());
	});

	it(`emits at most ${MAX_ITEMS_PER_POLL} responses (and the pages under way) in a poll; the next polls go on where it stopped`, async () => {
		const form = await harness.control.form('rsvp');
		const trigger = new TriggerSession(harness, {
			watch: 'form',
			formId: formById(form.id),
			options: {},
		});
		await trigger.poll();
		const submitted = await harness.control.submitBurst(form.id, 2 * MAX_ITEMS_PER_POLL + 1500);
		let first: IDataObject[] = [];
		const pages = await responseRequests(async () => (first = (await trigger.poll()).items));
		expect(first.length).toBeGreaterThanOrEqual(MAX_ITEMS_PER_POLL);
		expect(first.length).toBeLessThanOrEqual(MAX_ITEMS_PER_POLL + 2 * 1000);
		expect(pages.length).toBeLessThanOrEqual(MAX_PAGES_PER_POLL);
		const emitted = ids(first);
		for (let poll = 0; poll < 4 && emitted.length < submitted.length; poll++) {
			const items = (await trigger.poll()).items;
			expect(items.length).toBeLessThanOrEqual(MAX_ITEMS_PER_POLL + 2 * 1000);
			emitted.push(...ids(items));
		}
		expect(emitted.length).toBe(submitted.length);
		expect(new Set(emitted)).toEqual(new Set(ids(submitted)));
	});
});

describe('Forms.wtf Trigger, Emit Existing Responses within the poll budget', () => {
	it('reads page by page across polls, then emits exactly the newest ones and everything newer', async () => {
		const form = await harness.control.form('feedback'); // 2,500 responses
		const all = await readAllResponses(form.id);
		const newest = [...all]
			.sort(
				(a, b) => Date.parse(b.submittedAt) - Date.parse(a.submittedAt) || (a.id < b.id ? 1 : -1),
			)
			.slice(0, 1200);
		const trigger = new TriggerSession(harness, {
			watch: 'form',
			formId: formById(form.id),
			options: { backfill: 1200 },
		});

		// A budget that is always spent: every poll reads exactly one page, then stops.
		const emitted: IDataObject[] = [];
		const pagesPerPoll: number[] = [];
		let arrived: IDataObject[] = [];
		for (let poll = 0; poll < 12; poll++) {
			if (poll === 1) arrived = await harness.control.submitResponses(form.id, [{}, {}]);
			const requests = await responseRequests(async () =>
				emitted.push(...(await trigger.poll({ pollBudgetMs: 1 })).items),
			);
			pagesPerPoll.push(requests.length);
		}
		expect(Math.max(...pagesPerPoll)).toBeLessThanOrEqual(2); // the activation's clock probe and one page
		const emittedIds = ids(emitted);
		expect(emittedIds.filter((id, i) => emittedIds.indexOf(id) !== i)).toEqual([]);
		expect([...emittedIds].sort()).toEqual([...ids(newest), ...ids(arrived)].sort());
	});
});

describe('Forms.wtf Trigger, credential edited while the workflow is active', () => {
	let production: RunningHarness;
	beforeAll(async () => {
		production = await startHarness({ rateLimit: false });
	});
	afterAll(async () => await production.close());

	it('the next poll uses the new base URL and key', async () => {
		const form = await harness.control.form('bugs');
		const trigger = new TriggerSession(harness, {
			watch: 'form',
			formId: formById(form.id),
			options: {},
		});
		await trigger.poll();
		await trigger.poll();
		await production.control.clearRequestLog();
		await trigger.editCredential({ baseUrl: production.baseUrl, apiKey: production.keys.business });
		await harness.control.clearRequestLog();
		await trigger.poll();
		expect(await harness.control.requestLog()).toEqual([]);
		const sent = await production.control.requestLog();
		expect(sent.length).toBeGreaterThan(0);
		expect(sent.every((entry) => entry.plan === 'business')).toBe(true);
	});
});

async function readAllResponses(
	formId: string,
): Promise<Array<{ id: string; submittedAt: string }>> {
	const responses: Array<{ id: string; submittedAt: string }> = [];
	for (let offset = 0; ; offset += 1000) {
		const answer = await fetch(
			`${harness.baseUrl}/forms/${formId}/responses?limit=1000&offset=${offset}`,
			{
				headers: { Authorization: `Bearer ${harness.keys.team}` },
			},
		);
		const page = (await answer.json()) as {
			responses: Array<{ id: string; submittedAt: string }>;
			hasMore: boolean;
		};
		responses.push(...page.responses);
		if (!page.hasMore) return responses;
	}
}
