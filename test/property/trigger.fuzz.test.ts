/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Model-based property fuzzing of the Forms.wtf Trigger (issue 19): fast-check generates the
 * trigger's settings, the simulated service's behaviour and a schedule of server and trigger
 * events; the real trigger runs through n8n-core against the in-memory service (test/sim), and
 * each promise of the trigger is one test below: within the promise's assumptions every one,
 * beyond them only never twice and never silent (oracle.ts). A failure prints its seed, its path
 * and the shrunk (minimal) schedule.
 *
 * FORMSWTF_FUZZ_RUNS=<n> runs more schedules (`npm run fuzz` for a long run),
 * FORMSWTF_FUZZ_SEED=<seed> another seed, FORMSWTF_FUZZ_PATH=<path> replays one failure,
 * FORMSWTF_FUZZ_ASSUMPTIONS=within|beyond draws one kind of schedule only.
 */
import { fuzz, fuzzOptionsFromEnv } from './fuzz';
import type { PropertyId } from './oracle';
import { PROPERTIES } from './oracle';

/**
 * Schedules per property in `npm test`; the same schedules for every property (one seed). 200:
 * about 30 s on 2 cores, as long as 300 took before schedules carried backlogs of pages of 100.
 */
const CI_RUNS = 200;
/** Generation plus shrinking per property, at most; the best shrunk schedule so far is reported. */
const TIME_LIMIT_MS = Number(process.env.FORMSWTF_FUZZ_TIME_LIMIT_MS ?? 6_000);

const options = fuzzOptionsFromEnv(CI_RUNS);
const longRun = options.runs > CI_RUNS;

describe(`Forms.wtf Trigger, model-based fuzzing (seed ${options.seed}, ${options.runs} schedules)`, () => {
	it.each(Object.keys(PROPERTIES) as PropertyId[])(
		'%s',
		async (id) => {
			const result = await fuzz([id], {
				...options,
				timeLimitMs: longRun ? undefined : TIME_LIMIT_MS,
			});
			if (result.failed) throw new Error(`${PROPERTIES[id]}\n${result.report}`);
		},
		longRun ? 24 * 3_600_000 : TIME_LIMIT_MS + 30_000,
	);
});
