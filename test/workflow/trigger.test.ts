/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';
import { PAGE_OVERLAP } from '../../nodes/FormsWtf/shared/transport/paging';
import { formById } from '../support/formsWtf';
import { TriggerSession } from './triggerSession';

let harness: RunningHarness;
let formId: string; // 2,500 seeded responses
let emptyFormId: string;

beforeAll(async () => {
	harness = await startHarness({ rateLimit: false });
	formId = (await harness.control.form('feedback')).id;
	emptyFormId = (await harness.control.form('rsvp')).id;
});
afterAll(async () => await harness.close());
beforeEach(async () => {
	await harness.control.reset();
	Object.assign(testRetryPolicy, { baseDelayMs: 1, maxDelayMs: 4, maxRateLimitWaitMs: 100 });
});
afterEach(() => resetTestRetryPolicy());

const oneForm = (id: string, options: IDataObject = {}): IDataObject => ({
	watch: 'form',
	formId: formById(id),
	options,
});
const ids = (items: IDataObject[]) => items.map((item) => item.id as string);
/** The request of a poll's second page of 1000: it starts PAGE_OVERLAP responses early (see Continuity). */
const secondPage = `offset=${1000 - PAGE_OVERLAP}&`;
/** The trigger's state without its counts of passing failures: what a failed poll must leave alone. */
const cursorsOf = (staticData: IDataObject): IDataObject =>
	JSON.parse(
		JSON.stringify(staticData, (key, value: unknown) =>
			['failures', 'failedPolls', 'servedPolls', 'namedAt', 'rev'].includes(key)
				? undefined
				: value,
		),
	) as IDataObject;

async function responseRequests(since: () => Promise<unknown>): Promise<number> {
	await harness.control.clearRequestLog();
	await since();
	return (await harness.control.requestLog()).filter((entry) => entry.path.endsWith('/responses'))
		.length;
}

describe('Forms.wtf Trigger', () => {
	it('emits nothing that existed at activation, then each new response once, oldest first', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId));
		expect((await trigger.poll()).items).toEqual([]);
		expect(trigger.staticData).not.toEqual({});

		const submitted = await harness.control.submitResponses(formId, [{}, {}, {}]);
		const { items } = await trigger.poll();
		expect(ids(items)).toEqual(submitted.map((response) => response.id));
		expect(items[0].answers).toEqual(expect.any(Object));
		expect((await trigger.poll()).items).toEqual([]);
	});

	it('costs one request when nothing is new, however many responses the form has', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId));
		await trigger.poll();
		expect(await responseRequests(() => trigger.poll())).toBe(1);
	});

	it.each([
		['exclusive since, newest first', false, 'newestFirst'],
		['inclusive since, newest first', true, 'newestFirst'],
		['exclusive since, oldest first', false, 'oldestFirst'],
		['inclusive since, oldest first', true, 'oldestFirst'],
	] as const)(
		'a burst sharing one millisecond at the cursor, %s',
		async (_name, sinceInclusive, responseOrder) => {
			await harness.control.updateSettings({ sinceInclusive, responseOrder });
			const trigger = new TriggerSession(harness, oneForm(formId));
			await trigger.poll();
			const at = new Date(Date.now() + 1000).toISOString();
			const first = await harness.control.submitBurst(formId, 40, at);
			expect(ids((await trigger.poll()).items).sort()).toEqual(ids(first).sort());
			// More in the very same millisecond, after the cursor has reached it.
			const second = await harness.control.submitBurst(formId, 25, at);
			expect(ids((await trigger.poll()).items).sort()).toEqual(ids(second).sort());
			expect((await trigger.poll()).items).toEqual([]);
		},
	);

	it('a poll that fails halfway emits what it read, and the next poll the rest: nothing lost, nothing twice', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId));
		await trigger.poll();
		const submitted = await harness.control.submitBurst(formId, 1500);
		// The second page (it starts PAGE_OVERLAP responses early) fails past every retry.
		await harness.control.injectFault({
			kind: 'status',
			status: 500,
			times: 4,
			pathIncludes: secondPage,
		});
		const failed = await trigger.poll();
		expect(failed.error).toBeUndefined();
		// The first page, and the list's last response that told its order.
		expect(failed.items.length).toBeGreaterThanOrEqual(1000);
		const { items } = await trigger.poll();
		expect([...ids(failed.items), ...ids(items)].sort()).toEqual(ids(submitted).sort());
		expect((await trigger.poll()).items).toEqual([]);
	});

	it.each([
		['a dropped connection', { kind: 'drop', times: 4 }],
		['malformed JSON', { kind: 'malformedJson', times: 1 }],
		['rate limit', { kind: 'status', status: 429, times: 5000 }],
	] as const)('%s on a later poll: logged, state kept, nothing lost', async (_name, fault) => {
		const trigger = new TriggerSession(harness, oneForm(formId));
		await trigger.poll();
		const submitted = await harness.control.submitResponses(formId, [{}, {}]);
		const before = structuredClone(trigger.staticData);
		await harness.control.injectFault(fault);
		const failed = await trigger.poll();
		expect(failed.error).toBeUndefined();
		expect(failed.items).toEqual([]);
		expect(cursorsOf(trigger.staticData)).toEqual(cursorsOf(before));
		await harness.control.clearFaults();
		expect(ids((await trigger.poll()).items)).toEqual(ids(submitted));
	});

	it('a poll n8n discards (workflow saved while it ran) is read again: nothing lost, nothing twice', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId));
		await trigger.poll();
		const first = await harness.control.submitResponses(formId, [{}, {}, {}]);
		// Read, then thrown away by n8n: not emitted, not stored; the workflow is loaded again.
		expect((await trigger.poll({ discarded: true })).items).toEqual([]);
		const second = await harness.control.submitResponses(formId, [{}]);
		expect(ids((await trigger.poll()).items)).toEqual(ids([...first, ...second]));
		expect((await trigger.poll()).items).toEqual([]);
	});

	it('run again after n8n restarts from the state it stored, emits nothing twice', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId));
		await trigger.poll();
		const submitted = await harness.control.submitResponses(formId, [{}, {}, {}]);
		expect(ids((await trigger.poll()).items)).toEqual(ids(submitted));
		// Polls that emit nothing are never saved by n8n: a restart goes back to the last emit.
		expect((await trigger.poll()).items).toEqual([]);
		trigger.restart();
		expect((await trigger.poll()).items).toEqual([]);
		expect((await trigger.poll()).items).toEqual([]);
	});

	it('two polls started together emit each response once between them', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId));
		await trigger.poll();
		const submitted = await harness.control.submitBurst(formId, 30);
		await harness.control.injectFault({ kind: 'delay', ms: 200, times: 1 });
		const [a, b] = await trigger.pollTogether();
		expect([...ids(a.items), ...ids(b.items)].sort()).toEqual(ids(submitted).sort());
		expect((await trigger.poll()).items).toEqual([]);
	});

	it('responses that arrive while a poll reads pages are emitted once, by this poll or the next', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId));
		await trigger.poll();
		const early = await harness.control.submitBurst(formId, 2100);
		// 15 responses arrive right after the second page is answered: in the middle of the walk.
		await harness.control.insertAfterAnswer(secondPage, 15);
		const first = await trigger.poll();
		const second = await trigger.poll();
		expect((await harness.control.listHooks()).fired).toBe(1);
		const emitted = [...ids(first.items), ...ids(second.items)];
		expect(new Set(emitted).size).toBe(emitted.length);
		expect(ids(early).filter((id) => !emitted.includes(id))).toEqual([]);
		expect(emitted).toHaveLength(2100 + 15);
	});

	it.each([
		['ahead', 2 * 3_600_000],
		['behind', -2 * 3_600_000],
	])('the service clock %s of the n8n host changes nothing', async (_name, clockOffsetMs) => {
		await harness.control.updateSettings({ clockOffsetMs });
		const trigger = new TriggerSession(harness, oneForm(formId));
		expect((await trigger.poll()).items).toEqual([]);
		const submitted = await harness.control.submitResponses(formId, [{}, {}]);
		expect(ids((await trigger.poll()).items)).toEqual(ids(submitted));
		expect((await trigger.poll()).items).toEqual([]);
	});

	it('a response that shows up late, inside the look-back window, is still emitted', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId));
		await trigger.poll();
		const [newer] = await harness.control.submitResponses(formId, [{}]);
		expect(ids((await trigger.poll()).items)).toEqual([newer.id]);
		const late = await harness.control.submitResponses(formId, [
			{ submittedAt: new Date(Date.parse(newer.submittedAt) - 3 * 60_000).toISOString() },
		]);
		expect(ids((await trigger.poll()).items)).toEqual(ids(late));
	});

	it('updated responses are emitted again by default, and skipped with Ignore', async () => {
		const emitting = new TriggerSession(harness, oneForm(formId));
		const ignoring = new TriggerSession(harness, oneForm(formId, { updatedResponses: 'ignore' }));
		await emitting.poll();
		await ignoring.poll();
		const [response] = await harness.control.submitResponses(formId, [{}]);
		expect(ids((await emitting.poll()).items)).toEqual([response.id]);
		expect(ids((await ignoring.poll()).items)).toEqual([response.id]);
		const updated = await harness.control.updateResponse(formId, response.id);
		const again = (await emitting.poll()).items;
		expect(ids(again)).toEqual([response.id]);
		expect(again[0].submittedAt).toBe(updated.submittedAt);
		expect((await ignoring.poll()).items).toEqual([]);
	});

	it('backfill emits the newest existing responses on the first poll, oldest first', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId, { backfill: 5 }));
		const { items } = await trigger.poll();
		expect(items).toHaveLength(5);
		const times = items.map((item) => Date.parse(item.submittedAt as string));
		expect([...times].sort((a, b) => a - b)).toEqual(times);
		const all = await harness.control.form('feedback');
		expect(all.responseCount).toBe(2500);
		expect((await trigger.poll()).items).toEqual([]);
	});

	it('stops within the poll budget and delivers the rest on later polls', async () => {
		// Without a look-back window each page proves the ones before its last, whatever their age.
		const trigger = new TriggerSession(harness, oneForm(formId, { lookBackMinutes: 0 }));
		await trigger.poll();
		await new Promise((resolve) => setTimeout(resolve, 2600));
		const startMs = Date.now() - 2550;
		const drafts = Array.from({ length: 2500 }, (_, i) => ({
			submittedAt: new Date(startMs + i).toISOString(),
		}));
		const submitted = await harness.control.submitResponses(formId, drafts);
		const emitted: string[] = [];
		let polls = 0;
		for (; polls < 10 && emitted.length < submitted.length; polls++) {
			emitted.push(...ids((await trigger.poll({ pollBudgetMs: 1 })).items));
		}
		expect(polls).toBeGreaterThan(1);
		expect(emitted.sort()).toEqual(ids(submitted).sort());
		expect((await trigger.poll()).items).toEqual([]);
	});

	it('keeps its state small: only the look-back window is remembered', async () => {
		const trigger = new TriggerSession(harness, oneForm(formId, { lookBackMinutes: 1 }));
		await trigger.poll();
		const start = Date.now();
		let batch: Array<{ id: string; submittedAt: string }> = [];
		for (let hour = 1; hour <= 5; hour++) {
			const at = (offset: number) => new Date(start + hour * 3_600_000 + offset).toISOString();
			// The service's clock an hour on, just after the batch (a window never passes the clock).
			await harness.control.updateSettings({ clockOffsetMs: hour * 3_600_000 + 200_000 });
			batch = await harness.control.submitResponses(
				formId,
				Array.from({ length: 200 }, (_, i) => ({ submittedAt: at(i * 1000) })),
			);
			expect((await trigger.poll()).items).toHaveLength(200);
		}
		const forms = trigger.staticData['node:Forms.wtf Trigger'] as IDataObject | undefined;
		const cursor = ((forms?.forms ?? {}) as Record<string, { since: string; seen: object }>)[
			formId
		];
		// What is remembered is the last minute: the last batch (one a second) from `since`, which
		// a busy machine may move a second or two, kept to the whole second.
		const sinceMs = Date.parse(cursor.since);
		const atMs = (response: { submittedAt: string }) => Date.parse(response.submittedAt);
		const inWindow = batch.filter((r) => atMs(r) > sinceMs).map((r) => r.id);
		const keptFromWindow = batch.filter((r) => atMs(r) >= sinceMs - 1000).map((r) => r.id);
		expect(inWindow.length).toBeGreaterThanOrEqual(55);
		expect(Object.keys(cursor.seen)).toEqual(expect.arrayContaining(inWindow));
		expect(keptFromWindow).toEqual(expect.arrayContaining(Object.keys(cursor.seen)));
	});

	it('watching all forms tags each item with its form', async () => {
		const trigger = new TriggerSession(harness, { watch: 'allForms', options: {} });
		await trigger.poll();
		const bugs = await harness.control.form('bugs');
		const [a] = await harness.control.submitResponses(formId, [{}]);
		// A millisecond later, explicitly: two submissions in a row can share a millisecond, and
		// items of one moment are ordered by id, not by which form they came from.
		const later = new Date(Date.parse(a.submittedAt) + 1).toISOString();
		const [b] = await harness.control.submitResponses(bugs.id, [{ submittedAt: later }]);
		const { items } = await trigger.poll();
		expect(items.map((item) => [item.id, item.formId, item.formTitle])).toEqual([
			[a.id, formId, 'Community Feedback Survey'],
			[b.id, bugs.id, bugs.title],
		]);
	});

	describe('Fetch Test Event', () => {
		it('returns the newest response and leaves the stored state alone', async () => {
			const trigger = new TriggerSession(harness, oneForm(formId));
			await trigger.poll();
			const before = structuredClone(trigger.staticData);
			const [newest] = await harness.control.submitResponses(formId, [{}]);
			const { items } = await trigger.fetchTestEvent();
			expect(ids(items)).toEqual([newest.id]);
			expect(trigger.staticData).toEqual(before);
			expect(ids((await trigger.poll()).items)).toEqual([newest.id]);
		});

		it('says so when the form has no responses', async () => {
			const trigger = new TriggerSession(harness, oneForm(emptyFormId));
			const { error } = await trigger.fetchTestEvent();
			expect(error?.message).toBe('This form has no responses yet');
		});
	});

	describe('errors', () => {
		it('the first poll throws, so the user sees the problem at once', async () => {
			const trigger = new TriggerSession(harness, oneForm(formId), harness.keys.revoked);
			const { error } = await trigger.poll();
			expect(error?.message).toBe('Forms.wtf did not accept the API key');
			expect(trigger.staticData['node:Forms.wtf Trigger'] ?? {}).toEqual({});
		});

		it('a later poll throws for what the user must fix, and keeps the state', async () => {
			const trigger = new TriggerSession(harness, oneForm(formId));
			await trigger.poll();
			const before = structuredClone(trigger.staticData);
			await harness.control.injectFault({ kind: 'status', status: 500, times: 1000 });
			for (let i = 0; i < 4; i++) expect((await trigger.poll()).error).toBeUndefined();
			// Reported on the 5th failed poll in a row: passing failures have gone on for too long.
			// The error names the form and the cause.
			expect((await trigger.poll()).error?.message).toBe(
				`Form "${formId}" could not be read: Forms.wtf had a server error (500)`,
			);
			expect(cursorsOf(trigger.staticData)).toEqual(cursorsOf(before));
		});

		it('a form that no longer exists is reported on the next poll', async () => {
			const trigger = new TriggerSession(harness, oneForm(formId));
			await trigger.poll();
			const other = new TriggerSession(harness, oneForm('no-such-form'));
			other.staticData = JSON.parse(
				JSON.stringify(trigger.staticData).split(formId).join('no-such-form'),
			) as IDataObject;
			expect((await other.poll()).error?.message).toBe('Form "no-such-form" was not found');
		});
	});
});
