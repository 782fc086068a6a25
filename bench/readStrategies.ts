/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * `npx tsx bench/readStrategies.ts [--seeds N]`: the two ways of reading a form's responses
 * since a cursor (test/sim/readStrategies.ts) on a backlog of 20,000 responses in the
 * simulated service, oldest-first and newest-first, pages of 100 and of 1,000, on a quiet form
 * and on busy ones; prints a table of the figures and the lines of each prototype. Figures,
 * not a test: the jest test test/sim/readStrategies.test.ts checks the exactly-once.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import type { Activity, Scenario, ScenarioFigures, StrategyName } from '../test/sim/readScenario';
import { runScenario } from '../test/sim/readScenario';
import type { ResponseOrder } from '../test/sim/server';

const BACKLOG = 20_000;
const MAX_PAGES = 40;
/** A run that has not read the whole window by then is given up (drained: 0/N). */
const MAX_POLLS = 100;

/** Human rates, per request of the reader; between two polls, as much as in N requests. */
const ACTIVITIES: Array<{ name: string; activity?: Activity }> = [
	{ name: 'quiet' },
	{
		name: 'busy, 10 between polls',
		activity: { arrival: 0.5, update: 0.1, deletion: 0.1, requestsBetweenPolls: 10 },
	},
	{
		name: 'busy, 60 between polls',
		activity: { arrival: 0.5, update: 0.1, deletion: 0.1, requestsBetweenPolls: 60 },
	},
	// Someone clears out spam while the backlog is read: deletions alone, about 5 between polls.
	{
		name: 'clear-out, 10 between polls',
		activity: { arrival: 0, update: 0, deletion: 0.5, requestsBetweenPolls: 10 },
	},
];

interface Row {
	strategy: StrategyName;
	order: ResponseOrder;
	pageCap: number;
	activity: string;
	runs: ScenarioFigures[];
}

function seedsFromArgs(argv: string[]): number {
	const at = argv.indexOf('--seeds');
	if (at < 0) return 5;
	const seeds = Number(argv[at + 1]);
	if (!Number.isInteger(seeds) || seeds < 1) throw new Error('--seeds needs a whole number ≥ 1');
	return seeds;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const mean = (values: number[]) => sum(values) / values.length;

function cells(row: Row): string[] {
	const drained = row.runs.filter((r) => r.drained);
	const perResponse = drained.map((r) => r.requestsToDrain / r.emittedToDrain);
	const polls = drained.map((r) => r.pollsToDrain);
	return [
		row.strategy === 'stableEnd' ? 'A stable end' : 'B head-first',
		row.order,
		String(row.pageCap),
		row.activity,
		drained.length === row.runs.length ? 'all' : `${drained.length}/${row.runs.length}`,
		drained.length ? mean(perResponse).toFixed(4) : '-',
		drained.length ? `${mean(polls).toFixed(1)} (${Math.max(...polls)})` : '-',
		drained.length ? mean(drained.map((r) => r.requestsToDrain)).toFixed(0) : '-',
		String(sum(row.runs.map((r) => r.passesBegunAgain))),
		String(sum(row.runs.map((r) => r.emittedTwice))),
		String(sum(row.runs.filter((r) => r.settled).map((r) => r.missed))),
		String(sum(row.runs.filter((r) => !r.settled).map((r) => r.missed))),
		String(sum(row.runs.map((r) => r.stuckPolls))),
		String(Math.max(...row.runs.map((r) => r.mostRemembered))),
	];
}

const HEADER = [
	'strategy',
	'order',
	'page',
	'activity',
	'drained',
	'requests/response',
	'polls to drain: mean (max)',
	'requests to drain',
	'passes begun again',
	'emitted twice',
	'missed',
	'unread at give-up',
	'stuck polls',
	'most versions remembered',
];

function table(rows: string[][]): string {
	const line = (values: string[]) => `| ${values.join(' | ')} |`;
	return [line(HEADER), line(HEADER.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Lines of code (not blank, not comment) between two markers of the prototypes' file. */
function codeLines(source: string, from: string, to: string): number {
	const body = source.slice(source.indexOf(from), source.indexOf(to));
	const withoutBlockComments = body.replace(/\/\*[\s\S]*?\*\//g, '');
	return withoutBlockComments
		.split('\n')
		.map((l) => l.trim())
		.filter((l) => l !== '' && !l.startsWith('//')).length;
}

async function main(): Promise<void> {
	const seeds = seedsFromArgs(process.argv.slice(2));
	const rows: Row[] = [];
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		for (const pageCap of [100, 1000])
			for (const { name, activity } of ACTIVITIES)
				for (const strategy of ['stableEnd', 'anchored'] as const) {
					const row: Row = { strategy, order, pageCap, activity: name, runs: [] };
					for (let seed = 1; seed <= seeds; seed++) {
						const scenario: Scenario = {
							strategy,
							order,
							pageCap,
							since: 'exclusive',
							backlog: BACKLOG,
							spacingMs: 1000,
							activity,
							maxPages: MAX_PAGES,
							maxPolls: MAX_POLLS,
							seed,
						};
						row.runs.push(await runScenario(scenario));
					}
					rows.push(row);
				}
	console.log(
		`Backlog ${BACKLOG} responses, at most ${MAX_PAGES} pages a poll, given up after ` +
			`${MAX_POLLS} polls, ${seeds} seeds a row, since exclusive; busy: a chance of 0.5 of an ` +
			'arrival, 0.1 of an update, 0.1 of a deletion per request, and as much between two ' +
			'polls as in 10 or 60 requests; clear-out: deletions alone, a chance of 0.5 per ' +
			'request. Missed: alive after a second whole read and never ' +
			'emitted. Most versions remembered: the largest state kept between two polls.\n',
	);
	console.log(table(rows.map(cells)));
	const source = readFileSync(join(__dirname, '..', 'test', 'sim', 'readStrategies.ts'), 'utf8');
	const shared = codeLines(source, 'import type', '// ---- strategy A');
	const a = codeLines(source, '// ---- strategy A', '// ---- strategy B');
	const b = codeLines(source, '// ---- strategy B', '// ---- end of strategies');
	console.log(
		`\nLines of code (no blank, no comment): A stable end ${a}, B head-first ${b}, ` +
			`shared (reader, emit, forget) ${shared}.`,
	);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
