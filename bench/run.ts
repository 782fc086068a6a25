/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * `npm run bench [-- options]`: the benchmarks against the local Forms.wtf API (test/harness),
 * in one run. Prints a table per part and the targets, and writes everything measured to
 * bench/results/<timestamp>.json. Figures, not tests: nothing here fails on a slow machine.
 * See bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'fs';
import { cpus, freemem, loadavg, totalmem } from 'os';
import { join, relative, resolve } from 'path';

import type { BenchContext, PartResult } from './lib/context';
import { loadN8nBase } from './lib/n8nBase';
import { verdictLine } from './lib/report';
import { stopChildren } from './lib/spawn';
import { exportPart } from './parts/export';
import { exportSizePart } from './parts/exportSize';
import { rateLimitPart } from './parts/rateLimit';
import { returnAllPart } from './parts/returnAll';
import { triggerPart } from './parts/trigger';
import { webhookPart } from './parts/webhook';

const USAGE = `npm run bench -- [options]
  --quick              small sizes, one repeat: a fast check that everything runs (~3 min)
  --only 1,2,3,4,5,6   run only these parts (1 Return All, 2 rate limit, 3 trigger, 4 export, 5 webhook, 6 export size)
  --repeat N           repeats per measurement (default 3; --quick: 1)
  --sizes N,N          part 1: response counts (default 10000,100000,500000; --quick: 2000,20000)
  --diagnose           part 1: also our node with Output: Raw, and the bare loop with a new connection per request
  --window-ms MS       rate-limit window of part 2 (default 3000; the service's is 60000)
  --heap-mb MB         --max-old-space-size for every child (default: Node's own)
  --pattern-heap-mb MB --max-old-space-size for the Schedule → HTTP → Remove Duplicates run on the big form (default: Node's own)
  --cpu-prof           write a V8 CPU profile of every child's measured steps to bench/results/profiles/<timestamp>/
  --out FILE           results file (default bench/results/<timestamp>.json)`;

interface Options {
	quick: boolean;
	diagnose: boolean;
	sizes?: number[];
	parts: number[];
	repeat: number;
	windowMs: number;
	heapMB?: number;
	patternHeapMB?: number;
	cpuProf: boolean;
	out?: string;
}

function parseArgs(argv: string[]): Options {
	const options: Options = {
		quick: false,
		diagnose: false,
		parts: [1, 2, 3, 4, 5, 6],
		repeat: 0,
		windowMs: 3000,
		cpuProf: false,
	};
	const number = (flag: string, value: string | undefined) => {
		const n = Number(value);
		if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number`);
		return n;
	};
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		switch (arg) {
			case '--quick':
				options.quick = true;
				break;
			case '--diagnose':
				options.diagnose = true;
				break;
			case '--sizes':
				options.sizes = (argv[++i] ?? '')
					.split(',')
					.map((p) => Math.round(number('--sizes', p.trim())));
				break;
			case '--only':
				options.parts = (argv[++i] ?? '').split(',').map((p) => number('--only', p.trim()));
				break;
			case '--repeat':
				options.repeat = Math.round(number(arg, argv[++i]));
				break;
			case '--window-ms':
				options.windowMs = number(arg, argv[++i]);
				break;
			case '--heap-mb':
				options.heapMB = number(arg, argv[++i]);
				break;
			case '--pattern-heap-mb':
				options.patternHeapMB = number(arg, argv[++i]);
				break;
			case '--cpu-prof':
				options.cpuProf = true;
				break;
			case '--out':
				options.out = argv[++i];
				break;
			case '--help':
			case '-h':
				console.log(USAGE);
				process.exit(0);
				break;
			default:
				throw new Error(`unknown option ${arg}\n${USAGE}`);
		}
	}
	if (options.repeat === 0) options.repeat = options.quick ? 1 : 3;
	return options;
}

async function main(): Promise<void> {
	const options = parseArgs(process.argv.slice(2));
	const started = new Date();
	const stamp = started.toISOString().replace(/[:.]/g, '-');
	const resultsDir = resolve(__dirname, 'results');
	mkdirSync(resultsDir, { recursive: true });
	const cpuProfileDir = options.cpuProf ? join(resultsDir, 'profiles', stamp) : undefined;
	if (cpuProfileDir) mkdirSync(cpuProfileDir, { recursive: true });

	const ctx: BenchContext = {
		quick: options.quick,
		diagnose: options.diagnose,
		sizes: options.sizes,
		repeat: options.repeat,
		windowMs: options.windowMs,
		child: { heapMB: options.heapMB, cpuProfileDir },
		patternHeapMB: options.patternHeapMB,
		log: (message) => console.log(`  … ${message}`),
	};
	const n8nBase = loadN8nBase();
	const environment = {
		node: process.version,
		platform: `${process.platform} ${process.arch}`,
		cpus: cpus().length,
		cpuModel: cpus()[0]?.model,
		memoryGB: +(totalmem() / 2 ** 30).toFixed(1),
		freeMemoryGBAtStart: +(freemem() / 2 ** 30).toFixed(1),
		loadAvgAtStart: loadavg().map((l) => +l.toFixed(2)),
		n8nBase: n8nBase.ok
			? `${n8nBase.base.install} (n8n-nodes-base ${n8nBase.base.version})`
			: `unavailable: ${n8nBase.reason}`,
	};
	console.log(
		`Forms.wtf benchmarks${options.quick ? ' (quick)' : ''}: parts ${options.parts.join(', ')}, ${options.repeat} repeat(s), on ${environment.cpus} CPUs, load ${environment.loadAvgAtStart.join(' ')}`,
	);
	if (!n8nBase.ok)
		console.log(
			`Note: n8n's own nodes are not available, so (b) and the Schedule pattern are skipped.\n  ${n8nBase.reason}`,
		);

	const parts: Array<[number, (c: BenchContext) => Promise<PartResult>]> = [
		[1, returnAllPart],
		[2, rateLimitPart],
		[3, triggerPart],
		[4, exportPart],
		[5, webhookPart],
		[6, exportSizePart],
	];
	const results: PartResult[] = [];
	for (const [number, part] of parts) {
		if (!options.parts.includes(number)) continue;
		const partStart = Date.now();
		try {
			const result = await part(ctx);
			results.push(result);
			printPart(result);
			console.log(`  (part ${number} took ${((Date.now() - partStart) / 1000).toFixed(0)} s)`);
		} catch (error) {
			console.log(
				`\nPart ${number} could not run: ${error instanceof Error ? error.stack : String(error)}`,
			);
			results.push({
				title: `Part ${number}`,
				tables: [],
				verdicts: [],
				notes: [`could not run: ${String(error)}`],
				data: null,
			});
		}
	}

	console.log('\nTargets');
	for (const result of results)
		for (const verdict of result.verdicts) console.log(verdictLine(verdict));

	const out = resolve(options.out ?? join(resultsDir, `${stamp}.json`));
	writeFileSync(
		out,
		JSON.stringify(
			{
				startedAt: started.toISOString(),
				durationS: Math.round((Date.now() - started.getTime()) / 1000),
				options,
				environment: { ...environment, loadAvgAtEnd: loadavg().map((l) => +l.toFixed(2)) },
				parts: results,
			},
			null,
			1,
		),
	);
	console.log(
		`\nResults: ${relative(process.cwd(), out)}${cpuProfileDir ? `; CPU profiles: ${relative(process.cwd(), cpuProfileDir)}` : ''} (${((Date.now() - started.getTime()) / 60000).toFixed(1)} min)`,
	);
}

function printPart(result: PartResult): void {
	console.log(`\n${result.title}\n`);
	for (const text of result.tables) console.log(`${text}\n`);
	for (const note of result.notes) console.log(`- ${note}`);
}

process.on('SIGINT', () => {
	stopChildren();
	process.exit(130);
});
process.on('SIGTERM', () => {
	stopChildren();
	process.exit(143);
});

main().then(
	() => {
		stopChildren();
		process.exit(0);
	},
	(error: unknown) => {
		stopChildren();
		console.error(error instanceof Error ? error.message : error);
		process.exit(1);
	},
);
