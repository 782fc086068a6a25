/**
 * The trigger's stored state as n8n hands it over, in shapes the trigger did not write: what an
 * earlier release stored, and parts of an unexpected shape. Every poll must go on: the part that
 * does not fit is reset without emitting again what was emitted, a warning says so, and new
 * responses keep coming.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';
import { ensureRunnerReady } from '../runner/setup';
import { formById } from '../support/formsWtf';
import { TriggerSession } from './triggerSession';

let harness: RunningHarness;
let formId: string;

beforeAll(async () => {
	harness = await startHarness({ rateLimit: false });
	formId = (await harness.control.form('feedback')).id;
	await ensureRunnerReady();
});
afterAll(async () => await harness.close());
beforeEach(async () => {
	await harness.control.reset();
	Object.assign(testRetryPolicy, { baseDelayMs: 1, maxDelayMs: 4, maxRateLimitWaitMs: 100 });
});
afterEach(() => {
	resetTestRetryPolicy();
	jest.restoreAllMocks();
});

const ids = (items: IDataObject[]) => items.map((item) => item.id as string);

/** The trigger's own part of the workflow's static data (node scope), and a way to change it. */
function withNodeState(staticData: IDataObject, change: (state: IDataObject) => void): IDataObject {
	const copy = structuredClone(staticData);
	const [key] = Object.keys(copy);
	change(copy[key] as IDataObject);
	return copy;
}

function cursorOf(state: IDataObject): IDataObject {
	return Object.values(state.forms as IDataObject)[0] as IDataObject;
}

/** An active trigger that has emitted one response, so the stored state holds a real cursor. */
async function triggerThatEmitted(): Promise<{ trigger: TriggerSession; emitted: string[] }> {
	const trigger = new TriggerSession(harness, {
		watch: 'form',
		formId: formById(formId),
		options: {},
	});
	await trigger.poll();
	const first = await harness.control.submitResponses(formId, [{}, {}]);
	const { items } = await trigger.poll();
	expect(ids(items)).toEqual(ids(first));
	return { trigger, emitted: ids(first) };
}

describe('Forms.wtf Trigger, stored state of an unexpected shape', () => {
	it('a part of the state that does not fit is reset with a warning, and the poll goes on', async () => {
		const { trigger, emitted } = await triggerThatEmitted();
		trigger.staticData = withNodeState(trigger.staticData, (state) => (state.rev = '12'));
		const warn = jest.spyOn(Container.get(Logger), 'warn');
		const later = await harness.control.submitResponses(formId, [{}]);
		const repaired = await trigger.poll();
		expect(repaired.error).toBeUndefined();
		expect(ids(repaired.items)).toEqual(ids(later));
		expect(ids(repaired.items).filter((id) => emitted.includes(id))).toEqual([]);
		expect(warn.mock.calls.map(([message]) => message).join('\n')).toMatch(/did not fit/);
	});

	it.each<[string, (state: IDataObject) => void]>([
		['since is not a date', (state) => (cursorOf(state).since = 'last tuesday')],
		['since is missing', (state) => delete cursorOf(state).since],
		['seen is not an object', (state) => (cursorOf(state).seen = 'a,b,c')],
		['seen is missing', (state) => delete cursorOf(state).seen],
		['the floor is of the wrong shape', (state) => (cursorOf(state).floor = [1, 2])],
	])(
		'%s: the form goes on from now with a warning, emitting nothing twice',
		async (_name, change) => {
			const { trigger, emitted } = await triggerThatEmitted();
			trigger.staticData = withNodeState(trigger.staticData, change);
			const warn = jest.spyOn(Container.get(Logger), 'warn');
			const reset = await trigger.poll();
			expect(reset.error).toBeUndefined();
			expect(ids(reset.items).filter((id) => emitted.includes(id))).toEqual([]);
			expect(warn.mock.calls.map(([message]) => message).join('\n')).toMatch(/did not fit/);
			// "Now" is the second the service's Date header shows: a response of a later second is new.
			const next = await harness.control.submitResponses(formId, [
				{ submittedAt: new Date(Date.now() + 2_000).toISOString() },
			]);
			expect(ids((await trigger.poll()).items)).toEqual(ids(next));
			expect((await trigger.poll()).items).toEqual([]);
		},
	);

	it('a cursor that is not an object at all goes on from now: nothing emitted again, new responses emitted', async () => {
		const { trigger, emitted } = await triggerThatEmitted();
		trigger.staticData = withNodeState(trigger.staticData, (state) => {
			const forms = state.forms as IDataObject;
			forms[Object.keys(forms)[0]] = 'garbage';
		});
		const repaired = await trigger.poll();
		expect(repaired.error).toBeUndefined();
		expect(ids(repaired.items).filter((id) => emitted.includes(id))).toEqual([]);
		// "Now" is the end of the second the service's Date header shows: a response of a later second.
		const next = await harness.control.submitResponses(formId, [
			{ submittedAt: new Date(Date.now() + 2_000).toISOString() },
		]);
		expect(ids((await trigger.poll()).items)).toEqual(ids(next));
	});

	it('what the first release stored (version 1, a read cut short at an offset) goes on without loss or repeat', async () => {
		const { trigger, emitted } = await triggerThatEmitted();
		// The first release's shape: version 1, and an offset alone where a cut read goes on.
		trigger.staticData = withNodeState(trigger.staticData, (state) => {
			state.version = 1;
			cursorOf(state).resumeOffset = 2;
		});
		const later = await harness.control.submitResponses(formId, [{}, {}, {}]);
		const { items, error } = await trigger.poll();
		expect(error).toBeUndefined();
		expect(ids(items).sort()).toEqual(ids(later).sort());
		expect(ids(items).filter((id) => emitted.includes(id))).toEqual([]);
		expect(ids((await trigger.poll()).items)).toEqual([]);
	});
});
