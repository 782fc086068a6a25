/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The long run of the trigger's fuzzer (`npm run fuzz`): every property at once over
 * FORMSWTF_FUZZ_RUNS schedules (default 100,000) from FORMSWTF_FUZZ_SEED, with progress and
 * schedules per second on stderr. FORMSWTF_FUZZ_PROPERTY=P2b (comma-separated ids) checks only
 * those properties, so that shrinking stays on one promise. A failure is shrunk and printed
 * with its seed and path (replay: the same variables plus FORMSWTF_FUZZ_PATH); exit code 1.
 * FORMSWTF_FUZZ_ASSUMPTIONS=within (or beyond) draws only schedules within the promise's
 * assumptions (or only beyond them); by default two within for one beyond.
 */
import '../runner';

import { fuzz, fuzzOptionsFromEnv } from './fuzz';
import type { PropertyId } from './oracle';
import { PROPERTIES } from './oracle';

async function main(): Promise<void> {
	const options = fuzzOptionsFromEnv(100_000);
	const wanted = process.env.FORMSWTF_FUZZ_PROPERTY?.split(',')
		.map((id) => id.trim())
		.filter(Boolean);
	for (const id of wanted ?? []) {
		if (!(id in PROPERTIES))
			throw new Error(`Unknown property ${id}; one of ${Object.keys(PROPERTIES).join(', ')}`);
	}
	const properties = wanted as PropertyId[] | undefined;
	const started = Date.now();
	let runs = 0;
	let lastReport = started;
	process.stderr.write(
		`fuzzing ${properties?.join(', ') ?? 'every property'}: ${options.runs} schedules${options.assumptions ? ` ${options.assumptions} the assumptions` : ''} from seed ${options.seed}\n`,
	);
	const result = await fuzz(properties, {
		...options,
		onRun: () => {
			runs++;
			const now = Date.now();
			if (now - lastReport >= 10_000) {
				lastReport = now;
				const perSecond = runs / ((now - started) / 1000);
				process.stderr.write(`${runs} schedules, ${perSecond.toFixed(1)}/s\n`);
			}
		},
	});
	const seconds = (Date.now() - started) / 1000;
	console.log(result.report);
	console.log(
		`${result.schedulesRun} schedules in ${seconds.toFixed(1)} s: ${(result.schedulesRun / seconds).toFixed(1)} per second`,
	);
	process.exitCode = result.failed ? 1 : 0;
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 2;
});
