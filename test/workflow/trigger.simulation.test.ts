/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * A seeded randomized run of the trigger against the harness: submissions at random moments,
 * same-millisecond bursts, late-visible responses inside the look-back window, updates,
 * injected faults, polls cut short by the budget, polls started together, polls n8n discards
 * and restarts (a new Workflow from the stored static data each time), under both
 * `since` modes and both orders. It then checks exactly-once over every response submitted
 * after activation. A failing run names its seed; FORMSWTF_SIM_SEED=<seed> runs that one alone.
 */
import type { IDataObject } from 'n8n-workflow';

import type { FaultSpec, FormResponse, RunningHarness } from '../harness';
import { startHarness } from '../harness';
import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';
import { PAGE_OVERLAP } from '../../nodes/FormsWtf/shared/transport/paging';
import { formById } from '../support/formsWtf';
import { TriggerSession } from './triggerSession';
import { prng } from '../support/prng';

const SEEDS = process.env.FORMSWTF_SIM_SEED
	? [Number(process.env.FORMSWTF_SIM_SEED)]
	: [101, 202, 303, 404];
const STEPS = 70;

let harness: RunningHarness;
beforeAll(async () => {
	harness = await startHarness({ rateLimit: false });
});
afterAll(async () => await harness.close());
beforeEach(() =>
	Object.assign(testRetryPolicy, { baseDelayMs: 1, maxDelayMs: 4, maxRateLimitWaitMs: 50 }),
);
afterEach(() => resetTestRetryPolicy());

const FAULTS: FaultSpec[] = [
	{ kind: 'status', status: 500, times: 4 },
	{ kind: 'status', status: 503, times: 1 },
	{ kind: 'status', status: 429, times: 100 },
	{ kind: 'status', status: 429, times: 2 },
	{ kind: 'drop', times: 4 },
	{ kind: 'malformedJson', times: 1 },
	{ kind: 'delay', ms: 30, times: 2 },
	{ kind: 'status', status: 500, times: 4, pathIncludes: `offset=${1000 - PAGE_OVERLAP}` },
];

describe('Forms.wtf Trigger, randomized', () => {
	it.each(SEEDS)(
		'delivers every response exactly once (seed %i)',
		async (seed) => {
			const random = prng(seed);
			const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
			await harness.control.reset();
			await harness.control.updateSettings({
				sinceInclusive: seed % 2 === 0,
				responseOrder: Math.floor(seed / 100) % 2 === 0 ? 'oldestFirst' : 'newestFirst',
				clockOffsetMs: Math.round((random() - 0.5) * 4 * 3_600_000),
			});
			const form = await harness.control.form(pick(['feedback', 'bugs', 'research']));
			const lookBackMinutes = 1 + Math.floor(random() * 10);
			const trigger = new TriggerSession(harness, {
				watch: 'form',
				formId: formById(form.id),
				options: { lookBackMinutes },
			});
			expect((await trigger.poll()).items).toEqual([]);

			const finalVersion = new Map<string, string>(); // id → submittedAt of its newest version
			const emitted: IDataObject[] = [];
			let newestMs = 0;
			const track = (responses: FormResponse[]) => {
				for (const response of responses) {
					finalVersion.set(response.id, response.submittedAt);
					newestMs = Math.max(newestMs, Date.parse(response.submittedAt));
				}
			};
			const poll = async (options: { pollBudgetMs?: number } = {}) =>
				emitted.push(...(await trigger.poll(options)).items);

			for (let step = 0; step < STEPS; step++) {
				const action = random();
				if (action < 0.3) {
					track(await harness.control.submitBurst(form.id, 1 + Math.floor(random() * 60)));
				} else if (action < 0.38 && newestMs > 0) {
					// Shows up late, but inside the look-back window.
					const lateMs = newestMs - Math.floor(random() * lookBackMinutes * 30_000);
					track(
						await harness.control.submitBurst(
							form.id,
							1 + Math.floor(random() * 5),
							new Date(lateMs).toISOString(),
						),
					);
				} else if (action < 0.45 && finalVersion.size > 0) {
					const id = pick([...finalVersion.keys()]);
					track([await harness.control.updateResponse(form.id, id)]);
				} else if (action < 0.6) {
					await harness.control.injectFault(pick(FAULTS));
				} else if (action < 0.7) {
					track(await harness.control.submitBurst(form.id, 1000 + Math.floor(random() * 1200)));
				} else if (action < 0.8) {
					await poll({ pollBudgetMs: 1 });
				} else if (action < 0.84) {
					for (const outcome of await trigger.pollTogether()) emitted.push(...outcome.items);
				} else if (action < 0.88) {
					// Saved while it ran: n8n drops the result and loads the workflow from the database.
					emitted.push(...(await trigger.poll({ discarded: true })).items);
				} else if (action < 0.9) {
					trigger.restart();
				} else {
					await poll();
				}
			}
			await harness.control.clearFaults();
			for (let i = 0; i < 10; i++) await poll();

			const versions = emitted.map((item) => `${item.id as string}@${item.submittedAt as string}`);
			const duplicates = versions.filter((version, i) => versions.indexOf(version) !== i);
			expect(duplicates).toEqual([]);
			// Every response submitted after activation arrived, in its newest version.
			const lastEmitted = new Map<string, string>();
			for (const item of emitted) lastEmitted.set(item.id as string, item.submittedAt as string);
			const missing = [...finalVersion].filter(([id, at]) => lastEmitted.get(id) !== at);
			expect(missing).toEqual([]);
			// Nothing that existed before activation was emitted, unless it was updated afterwards.
			expect([...lastEmitted.keys()].filter((id) => !finalVersion.has(id))).toEqual([]);
			expect(finalVersion.size).toBeGreaterThan(500);
			// A guard against a hang, not a speed target: a seed waits out real Retry-Afters and
			// delays, and takes 5–30 s on a small machine beside other work.
		},
		90_000,
	);
});
