/** What bench/run.ts asks a child process to measure, and what the child reports back. */
import type { RateLimitSettings } from '../../test/harness';
import type { HttpPagingOptions } from './workflows';

export interface Target {
	baseUrl: string;
	/** Key of the measured requests (Team plan). */
	apiKey: string;
	/** Another key for warm-up requests, so they never count against the measured key's rate limit. */
	warmKey: string;
}

/**
 * `oursRaw` (our node with Output: Raw) and `bareNewConnection` (the bare loop opening a new
 * connection per request, as n8n's HTTP helpers do) are diagnostics: they split the gap between
 * our node and the floor into its parts (bench/run.ts --diagnose).
 */
export type ReturnAllClient = 'ours' | 'http' | 'bare' | 'oursRaw' | 'bareNewConnection';

export interface ReturnAllJob {
	kind: 'returnAll';
	client: ReturnAllClient;
	target: Target;
	formId: string;
	warmFormId: string;
	/** Set on the harness right before the measured run (a new rate limit starts from empty windows). */
	rateLimit: RateLimitSettings | false;
	retryAfterHeader: boolean;
	/** Our retry policy's time constants times this (the window's scale: windowMs / 60000). */
	retryScale?: number;
	http?: HttpPagingOptions;
	/** Return the measured step's request log (arrival times and statuses). */
	keepLog?: boolean;
}

export interface TriggerJob {
	kind: 'trigger';
	target: Target;
	forms: Array<{ label: string; formId: string }>;
	quietPolls: number;
}

/**
 * The trigger at scale: All Forms on accounts of `formCounts` forms (activation, then idle
 * polls), and Emit Existing Responses on a large form under a poll budget.
 */
export interface TriggerScaleJob {
	kind: 'triggerScale';
	target: Target;
	formCounts: number[];
	idlePolls: number;
	/**
	 * Emit Existing Responses of this many on this form, each poll under `pollBudgetMs`: once as
	 * seeded, then again after `recentResponses` were submitted over the last day.
	 */
	existing: { formId: string; backfill: number; pollBudgetMs: number; recentResponses: number };
}

/**
 * Selected Forms beside single-form triggers on the same key: one Selected Forms trigger
 * watching `watched` of an account's `totalForms` forms, and `watched` single-form triggers on
 * the same forms; each activated, then `idlePolls` idle polls (a round of every single-form
 * trigger counts as one poll: they all poll at the same minute).
 */
export interface TriggerSelectedJob {
	kind: 'triggerSelected';
	target: Target;
	totalForms: number;
	watched: number;
	idlePolls: number;
}

export interface PatternJob {
	kind: 'pattern';
	target: Target;
	formId: string;
	/** Runs after the first (which records every response as seen). */
	runs: number;
	historySize: number;
}

export interface ExportJob {
	kind: 'export';
	client: 'ours' | 'bare';
	binaryDataMode: 'filesystem' | 'default';
	target: Target;
	formId: string;
	warmFormId: string;
	/** Where the bare download writes its file (deleted afterwards). */
	scratchDir: string;
}

export type Job =
	ReturnAllJob | TriggerJob | TriggerScaleJob | TriggerSelectedJob | PatternJob | ExportJob;

/** One timed operation inside a child. */
export interface Step {
	label: string;
	wallMs: number;
	/** API requests the harness logged during the step. */
	requests: number;
	/** Of those, answered 429. */
	rateLimited: number;
	ok: boolean;
	error?: string;
	/** Output items (responses), or the file size of an export. */
	items?: number;
	extra?: Record<string, number | string | boolean>;
	/** The step's API requests: ms after the first one (service clock), and status (null: no answer). */
	log?: Array<[number, number | null]>;
}

export interface Memory {
	/** After loading and a warm-up run, after a full GC (MB). */
	rssBaselineMB: number;
	/** The process's peak RSS (kernel's maxrss, which covers the whole life of the process) (MB). */
	rssPeakMB: number;
	heapBaselineMB: number;
	/** Highest heapUsed seen by a 10 ms sampler during the measured steps (MB); can miss short peaks. */
	heapPeakMB: number;
	/** Highest external + array buffer memory (Buffers, off the JS heap) the sampler saw (MB). */
	externalPeakMB: number;
	/** heapUsed after the steps and two full GCs, with the result still referenced (MB). */
	heapRetainedMB: number;
}

export interface ChildReport {
	steps: Step[];
	memory: Memory;
	/** n8n-nodes-base install used, when the job needed it. */
	n8nBase?: string;
}
