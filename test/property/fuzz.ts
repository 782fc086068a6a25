/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The fuzzer itself: fast-check generates schedules (schedule.ts), each is run against the real
 * trigger (run.ts) and judged by the oracle (oracle.ts). One property at a time, or all of
 * them at once; a failure is shrunk to a minimal schedule and reported with its seed and path,
 * which replay it exactly (`FORMSWTF_FUZZ_SEED`, `FORMSWTF_FUZZ_PATH`).
 */
import fc from 'fast-check';

import type { PropertyId, Violation } from './oracle';
import { check, formatViolations, PROPERTIES } from './oracle';
import type { Trace } from './run';
import { runSchedule } from './run';
import type { Assumptions, Schedule } from './schedule';
import { formatSchedule, schedulesDrawn } from './schedule';

export const DEFAULT_SEED = 19_019;

export interface FuzzOptions {
	runs: number;
	seed: number;
	/** fast-check's path of a failure, to replay that one schedule (and shrink on from it). */
	path?: string;
	/** Stops generating (and shrinking) after this long; the best counterexample so far is reported. */
	timeLimitMs?: number;
	/** Draw schedules within the assumptions only, or beyond them only (undefined: both). */
	assumptions?: Assumptions;
	/** Called after each schedule ran (the long run prints progress). */
	onRun?: (trace: Trace, violations: Violation[]) => void;
}

export interface FuzzResult {
	failed: boolean;
	/** Schedules run, shrinking included; and how many of them were within the assumptions. */
	schedulesRun: number;
	withinAssumptions: number;
	ms: number;
	report: string;
	counterexample?: Schedule;
	violations?: Violation[];
}

/**
 * The same schedule is often judged by several properties in one process (each jest test
 * checks one property over the same seeded schedules): its trace is kept for a while.
 */
const traces = new Map<string, Trace>();
const MAX_CACHED_TRACES = 400;

async function traceOf(schedule: Schedule): Promise<Trace> {
	const key = JSON.stringify(schedule);
	let trace = traces.get(key);
	if (!trace) {
		trace = await runSchedule(schedule);
		if (traces.size >= MAX_CACHED_TRACES) traces.delete(traces.keys().next().value as string);
		traces.set(key, trace);
	}
	return trace;
}

export function fuzzOptionsFromEnv(defaultRuns: number): FuzzOptions {
	const runs = Number(process.env.FORMSWTF_FUZZ_RUNS ?? defaultRuns);
	const seed = Number(process.env.FORMSWTF_FUZZ_SEED ?? DEFAULT_SEED);
	const path = process.env.FORMSWTF_FUZZ_PATH || undefined;
	if (!Number.isInteger(runs) || runs < 1)
		throw new Error('FORMSWTF_FUZZ_RUNS must be a whole number, 1 or more');
	if (!Number.isInteger(seed)) throw new Error('FORMSWTF_FUZZ_SEED must be an integer');
	const assumptions = process.env.FORMSWTF_FUZZ_ASSUMPTIONS || undefined;
	if (assumptions !== undefined && assumptions !== 'within' && assumptions !== 'beyond')
		throw new Error('FORMSWTF_FUZZ_ASSUMPTIONS must be within or beyond');
	return { runs, seed, path, ...(assumptions && { assumptions }) };
}

/** Checks one property (or all, `properties` undefined) over `runs` generated schedules. */
export async function fuzz(
	properties: PropertyId[] | undefined,
	options: FuzzOptions,
): Promise<FuzzResult> {
	const started = Date.now();
	let schedulesRun = 0;
	let withinAssumptions = 0;
	const relevant = (violations: Violation[]) =>
		properties === undefined
			? violations
			: violations.filter((v) => properties.includes(v.property));
	const property = fc.asyncProperty(schedulesDrawn(options.assumptions), async (schedule) => {
		schedulesRun++;
		const trace = await traceOf(schedule);
		if (trace.schedule.assumptions === 'within') withinAssumptions++;
		const violations = relevant(check(trace));
		options.onRun?.(trace, violations);
		return violations.length === 0;
	});
	const details = await fc.check(property, {
		seed: options.seed,
		numRuns: options.runs,
		path: options.path,
		interruptAfterTimeLimit: options.timeLimitMs,
		markInterruptAsFailure: false,
	});
	const ms = Date.now() - started;
	const name =
		properties === undefined
			? "the trigger's promise"
			: properties.map((id) => PROPERTIES[id]).join(', ');
	if (!details.failed || !details.counterexample) {
		const note = details.interrupted
			? ` (time limit reached after ${details.numRuns} schedules)`
			: '';
		return {
			failed: false,
			schedulesRun,
			withinAssumptions,
			ms,
			report: `${name}: ${details.numRuns} schedules passed in ${ms} ms (${withinAssumptions} within the assumptions, every property; ${schedulesRun - withinAssumptions} beyond, never twice and never silent)${note}`,
		};
	}
	const [counterexample] = details.counterexample;
	const trace = await traceOf(counterexample);
	const violations = relevant(check(trace));
	const only = properties?.length === 1 ? ` -t '${properties[0]}'` : '';
	const report = [
		`${name}: FAILED after ${details.numRuns} schedules (${details.numShrinks} shrinks, ${ms} ms${details.interrupted ? ', shrinking cut by the time limit' : ''})`,
		`seed ${details.seed}, path "${details.counterexamplePath}"`,
		`replay: FORMSWTF_FUZZ_SEED=${details.seed} FORMSWTF_FUZZ_PATH="${details.counterexamplePath}" npx jest test/property/trigger.fuzz${only}`,
		'shrunk schedule:',
		formatSchedule(counterexample),
		'what broke:',
		formatViolations(violations),
		'polls:',
		formatPolls(trace),
	].join('\n');
	return { failed: true, schedulesRun, withinAssumptions, ms, report, counterexample, violations };
}

/** One line per poll of a trace: when, what it asked, what it emitted. */
export function formatPolls(trace: Trace, max = 30): string {
	const lines: string[] = [];
	const t0 = trace.polls[0]?.startMs ?? 0;
	for (const poll of trace.polls) {
		if (poll.kind === 'final' && poll.emitted.length === 0 && poll.errors.length === 0) continue;
		const requests = poll.requests
			.map((r) => `${r.formId ?? 'list'}${r.status === 200 ? '' : `:${r.status}`}`)
			.join(' ');
		const emitted = poll.emitted.map((e) => e.tag).join(' ');
		lines.push(
			`  #${poll.index} ${poll.kind}${poll.activationTick ? '(activation tick)' : ''}${poll.step >= 0 ? ` @step ${poll.step + 1}` : ''}` +
				` t+${poll.startMs - t0}..${poll.endMs - t0} ms [${requests}]` +
				(emitted ? ` emitted ${emitted}` : '') +
				(poll.errors.length ? ` ERROR ${poll.errors.join(' | ').slice(0, 160)}` : ''),
		);
	}
	if (lines.length > max)
		return [...lines.slice(0, max), `  … ${lines.length - max} more`].join('\n');
	return lines.join('\n') + `\n  (${trace.finalPolls} final polls)`;
}
