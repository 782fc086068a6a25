/** What every part of the benchmark gets from bench/run.ts, and what it gives back. */
import type { ChildOptions } from './spawn';
import type { Verdict } from './report';

export interface BenchContext {
	quick: boolean;
	/** Repeats of each measurement (median reported). */
	repeat: number;
	/** Part 1: also run the diagnostic clients (our node with Output: Raw; bare with a new connection per request). */
	diagnose: boolean;
	/** Part 1: response counts instead of the defaults. */
	sizes?: number[];
	/** Rate-limit window of part 2, in ms (the service's is 60 s). */
	windowMs: number;
	child: ChildOptions;
	/** Heap limit for the Schedule → HTTP → Remove Duplicates pattern on the big form (MB); default Node's. */
	patternHeapMB?: number;
	log(message: string): void;
}

export interface PartResult {
	title: string;
	/** Printed as they are, one after another. */
	tables: string[];
	verdicts: Verdict[];
	notes: string[];
	/** Everything measured, for the JSON file. */
	data: unknown;
}
