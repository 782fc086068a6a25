/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Command-line flags of the harness process (cli.ts), parsed into HarnessOptions. Kept
 * apart from cli.ts so tests can check the parsing without starting a process.
 */
import { parseArgs } from 'util';
import type { HarnessOptions } from './types';

export const HELP = `Usage: npm run harness -- [options]

  --port N                    port on 127.0.0.1 (default 4010; 0 = any free port)
  --seed S                    data seed, number or text (default 1)
  --large-form-responses N    add the form "Airdrop Eligibility Check" with N responses
  --order newest|oldest       order of responses and exports (default newest)
  --since-inclusive           "since" matches submittedAt >= since (default: strictly after)
  --rate-limit N|off          requests per window per key (default 60)
  --rate-window-ms MS         window length (default 60000)
  --retry-after               send Retry-After on 429
  --clock-offset-ms MS        service clock = host clock + MS (Date header, "now")
  --merkle-max-leaves N       most wallets a merkle export hashes (default 20000)
  --json                      print one JSON line {baseUrl, controlUrl, keys} instead of text
  --help`;

function integer(name: string, text: string | undefined, min: number): number | undefined {
	if (text === undefined) return undefined;
	const n = Number(text);
	if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
	return n;
}

/** parseArgs reads "--clock-offset-ms -5000" as two flags; turn it into "--clock-offset-ms=-5000". */
function glueNegativeValues(args: string[]): string[] {
	const out: string[] = [];
	for (let i = 0; i < args.length; i++) {
		const next = args[i + 1];
		if (
			args[i].startsWith('--') &&
			!args[i].includes('=') &&
			next !== undefined &&
			/^-\d/.test(next)
		) {
			out.push(`${args[i]}=${next}`);
			i++;
		} else {
			out.push(args[i]);
		}
	}
	return out;
}

export function optionsFromArgs(args: string[]): {
	options: HarnessOptions;
	json: boolean;
	help: boolean;
} {
	const { values } = parseArgs({
		args: glueNegativeValues(args),
		strict: true,
		options: {
			port: { type: 'string' },
			seed: { type: 'string' },
			'large-form-responses': { type: 'string' },
			order: { type: 'string' },
			'since-inclusive': { type: 'boolean' },
			'rate-limit': { type: 'string' },
			'rate-window-ms': { type: 'string' },
			'retry-after': { type: 'boolean' },
			'clock-offset-ms': { type: 'string' },
			'merkle-max-leaves': { type: 'string' },
			json: { type: 'boolean' },
			help: { type: 'boolean' },
		},
	});
	const options: HarnessOptions = { port: integer('port', values.port, 0) ?? 4010 };
	if (values.seed !== undefined) options.seed = values.seed;
	options.largeFormResponses = integer('large-form-responses', values['large-form-responses'], 0);
	if (values.order !== undefined) {
		if (values.order !== 'newest' && values.order !== 'oldest')
			throw new Error('--order must be newest or oldest');
		options.responseOrder = values.order === 'newest' ? 'newestFirst' : 'oldestFirst';
	}
	if (values['since-inclusive'] === true) options.sinceInclusive = true;
	if (values['retry-after'] === true) options.retryAfterHeader = true;
	const rate = values['rate-limit'];
	const windowMs = integer('rate-window-ms', values['rate-window-ms'], 1);
	if (rate === 'off' || rate === '0') {
		options.rateLimit = false;
	} else if (rate !== undefined || windowMs !== undefined) {
		options.rateLimit = {
			requests: integer('rate-limit', rate, 1) ?? 60,
			windowMs: windowMs ?? 60_000,
		};
	}
	if (values['clock-offset-ms'] !== undefined) {
		const offset = Number(values['clock-offset-ms']);
		if (!Number.isFinite(offset)) throw new Error('--clock-offset-ms must be a number');
		options.clockOffsetMs = offset;
	}
	options.merkleMaxLeaves = integer('merkle-max-leaves', values['merkle-max-leaves'], 1);
	return { options, json: values.json === true, help: values.help === true };
}
