/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * `npm run harness -- [flags]`: runs the harness as a process for the demo, benchmarks and
 * manual checks. Prints the base URL and keys (or one JSON line with --json, for scripts),
 * and stops cleanly on SIGINT or SIGTERM.
 */
import { HELP, optionsFromArgs } from './cliArgs';
import { startHarness } from './index';

async function main(): Promise<void> {
	let parsed: ReturnType<typeof optionsFromArgs>;
	try {
		parsed = optionsFromArgs(process.argv.slice(2));
	} catch (error) {
		console.error(`${(error as Error).message}\n\n${HELP}`);
		process.exit(2);
	}
	if (parsed.help) {
		console.log(HELP);
		return;
	}
	const harness = await startHarness(parsed.options);
	const controlUrl = `${harness.origin}/__harness`;
	if (parsed.json) {
		console.log(JSON.stringify({ baseUrl: harness.baseUrl, controlUrl, keys: harness.keys }));
	} else {
		console.log(`forms.wtf harness listening
  base URL:    ${harness.baseUrl}
  control API: ${controlUrl}
  keys:        team     ${harness.keys.team}
               business ${harness.keys.business}
               free     ${harness.keys.free}     (403: plan below Team)
               pro      ${harness.keys.pro}      (403: plan below Team)
               revoked  ${harness.keys.revoked}  (401)
Stop with Ctrl+C.`);
	}

	let stopping = false;
	const stop = (signal: NodeJS.Signals): void => {
		if (stopping) process.exit(1); // a second signal: do not wait any longer
		stopping = true;
		if (!parsed.json) console.log(`\n${signal}: closing`);
		harness.close().then(
			() => process.exit(0),
			(error: unknown) => {
				console.error(error);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

void main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
