/**
 * Part 2 — Return All under the rate limit: 60 requests per window (the window scaled down from
 * the service's 60 s), a form that needs three windows, with and without Retry-After.
 */
import { startHarness } from '../../test/harness';
import type { BenchContext, PartResult } from '../lib/context';
import { loadN8nBase } from '../lib/n8nBase';
import type { ChildReport, ReturnAllClient, ReturnAllJob } from '../lib/protocol';
import {
	fmtMs,
	fmtNum,
	fmtRatio,
	fmtSummary,
	median,
	summarize,
	table,
	type Verdict,
} from '../lib/report';
import { runChild } from '../lib/spawn';
import type { HttpPagingOptions } from '../lib/workflows';

const PER_WINDOW = 60;
const SERVICE_WINDOW_MS = 60_000;
/** 150 pages: two full windows and half of a third. */
const RESPONSES = 150_000;

interface Variant {
	key: string;
	name: string;
	client: ReturnAllClient;
	http?: HttpPagingOptions;
	/** Run in every repeat (timed), or once (a configuration expected to fail). */
	once?: boolean;
}

interface Sample {
	variant: string;
	retryAfter: boolean | null;
	repeat: number;
	report?: ChildReport;
	error?: string;
}

export async function rateLimitPart(ctx: BenchContext): Promise<PartResult> {
	const windowMs = ctx.windowMs;
	const scale = windowMs / SERVICE_WINDOW_MS;
	const base = loadN8nBase();
	const notes: string[] = [];
	const variants: Variant[] = [{ key: 'ours', name: '(a) Forms.wtf node', client: 'ours' }];
	if (base.ok) {
		variants.push(
			{
				key: 'http-interval',
				name: `(b) HTTP Request, interval ${fmtNum(windowMs / PER_WINDOW)} ms`,
				client: 'http',
				http: { requestIntervalMs: Math.round(windowMs / PER_WINDOW) },
			},
			{ key: 'http-plain', name: '(b) HTTP Request as in part 1', client: 'http', once: true },
			{
				key: 'http-retry',
				name: `(b) + Retry On Fail (5 tries, ${fmtNum(5000 * scale)} ms)`,
				client: 'http',
				http: { retryOnFail: { maxTries: 5, waitBetweenTriesMs: Math.round(5000 * scale) } },
				once: true,
			},
		);
	} else {
		notes.push(`(b) skipped: ${base.reason}`);
	}
	const requestsNeeded = Math.ceil(RESPONSES / 1000);
	const fullWindows = Math.floor((requestsNeeded - 1) / PER_WINDOW);
	const tailRequests = requestsNeeded - fullWindows * PER_WINDOW;
	notes.push(
		`Window ${fmtNum(windowMs)} ms (scale ${fmtNum(scale, 3)} of the service's 60 s), ${PER_WINDOW} requests per window, ${fmtNum(RESPONSES)} responses = ${requestsNeeded} requests: ` +
			`the last ${tailRequests} cannot start before ${fullWindows} windows after the first request.`,
		`Time runs ${fmtNum(1 / scale, 3)}× faster for the limit and everything that waits on it: the harness's Retry-After counts the service's seconds (up to 60), ` +
			`our retry policy's waits are scaled by ${fmtNum(scale, 3)} (429 budget ${fmtNum(75_000 * scale)} ms per request, backoff ${fmtNum(500 * scale)} ms doubling to ${fmtNum(15_000 * scale)} ms, Retry-After's seconds). ` +
			`(b) "Interval Between Requests" = window / 60 (1000 ms at the service's scale); Retry On Fail's wait 5000 ms (the editor's maximum) scaled the same way.`,
		`T_min = W × window + T × (the same client's own time per request without a rate limit, same repeat), where the N requests that client sent without a limit (${requestsNeeded} pages, more if it re-reads one) make W = ⌊(N − 1) / ${PER_WINDOW}⌋ full windows and a tail of T = N − ${PER_WINDOW}·W (for N = ${requestsNeeded}: ${fullWindows} and ${tailRequests}).`,
	);

	const harness = await startHarness({ largeFormResponses: RESPONSES, rateLimit: false });
	const samples: Sample[] = [];
	try {
		const formId = (await harness.control.form('large')).id;
		const warmFormId = (await harness.control.form('feedback')).id;
		const target = {
			baseUrl: harness.baseUrl,
			apiKey: harness.keys.team,
			warmKey: harness.keys.business,
		};
		const run = async (variant: Variant, retryAfter: boolean | null, repeat: number) => {
			const job: ReturnAllJob = {
				kind: 'returnAll',
				client: variant.client,
				target,
				formId,
				warmFormId,
				rateLimit:
					retryAfter === null ? false : { requests: PER_WINDOW, windowMs, timeScale: scale },
				retryAfterHeader: retryAfter === true,
				retryScale: scale,
				http: variant.http,
				keepLog: retryAfter !== null,
			};
			const label = `${variant.key} ${retryAfter === null ? 'no limit' : retryAfter ? 'Retry-After' : 'no Retry-After'} #${repeat + 1}`;
			try {
				const report = await runChild(job, ctx.child);
				const step = report.steps[0];
				ctx.log(
					`  ${label}: ${fmtMs(step.wallMs)}, ${step.requests} requests (${step.rateLimited} × 429), ${step.ok ? 'ok' : `FAILED: ${step.error?.slice(0, 100)}`}`,
				);
				samples.push({ variant: variant.key, retryAfter, repeat, report });
			} catch (error) {
				ctx.log(`  ${label}: child failed: ${String(error)}`);
				samples.push({ variant: variant.key, retryAfter, repeat, error: String(error) });
			}
		};
		ctx.log(`Rate limit: ${PER_WINDOW} per ${fmtNum(windowMs)} ms, ${fmtNum(RESPONSES)} responses`);
		for (let r = 0; r < ctx.repeat; r++) {
			for (const variant of variants) {
				if (variant.once && r > 0) continue;
				if (!variant.once && variant.key !== 'http-interval') await run(variant, null, r);
				if (variant.key === 'http-interval') await run({ ...variant, http: {} }, null, r); // its pace without the interval
				for (const retryAfter of r % 2 === 0 ? [false, true] : [true, false])
					await run(variant, retryAfter, r);
			}
		}
	} finally {
		await harness.close();
	}

	const rows: string[][] = [];
	const verdicts: Verdict[] = [];
	const wall = (s: Sample) => s.report?.steps[0].wallMs ?? NaN;
	const ok = (s: Sample) => s.report?.steps[0].ok === true && s.report.steps[0].items === RESPONSES;
	/** Requests the server counted (not refused with 429). */
	const counted = (s: Sample) =>
		s.report ? s.report.steps[0].requests - s.report.steps[0].rateLimited : NaN;
	/**
	 * Every page was read (the execution may still have failed afterwards): its time says how the
	 * waits went. A client may send more requests than pages (our node reads a page ahead, and
	 * re-reads one when an answer came out of order): at least one per page.
	 */
	const readAll = (s: Sample) => counted(s) >= requestsNeeded;
	/**
	 * Time the client lost after windows ended: for each window that opened after the client had
	 * been refused (429), how long after the previous window's end its first request arrived.
	 * A window opens with its first counted (not 429) request and lasts windowMs (harness rules).
	 */
	const overshootMs = (s: Sample) => {
		const log = s.report?.steps[0].log;
		if (!log) return NaN;
		let windowStart: number | undefined;
		let refused = false;
		let lost = 0;
		for (const [t, status] of log) {
			if (status === 429) {
				refused = true;
				continue;
			}
			if (windowStart === undefined || t >= windowStart + windowMs) {
				if (windowStart !== undefined && refused) lost += t - (windowStart + windowMs);
				windowStart = t;
				refused = false;
			}
		}
		return lost;
	};
	const summaries: Record<string, unknown> = {};
	for (const variant of variants) {
		for (const retryAfter of [false, true]) {
			const list = samples.filter((s) => s.variant === variant.key && s.retryAfter === retryAfter);
			if (list.length === 0) continue;
			const unthrottled = (repeat: number) =>
				samples.find(
					(s) => s.variant === variant.key && s.retryAfter === null && s.repeat === repeat,
				);
			// The client's own requests (as it sent them without a limit): the windows they need,
			// and its own time per request for the tail of the last window.
			const tMin = (s: Sample) => {
				const free = unthrottled(s.repeat);
				if (!free || !readAll(free)) return NaN;
				const sent = counted(free);
				const windows = Math.floor((sent - 1) / PER_WINDOW);
				return windows * windowMs + (sent - windows * PER_WINDOW) * (wall(free) / sent);
			};
			const okList = list.filter(ok);
			const timed = list.filter(readAll);
			const overMin = summarize(timed.map((s) => wall(s) / tMin(s)));
			const overBound = summarize(timed.map((s) => wall(s) / (fullWindows * windowMs)));
			const failed = list.length - okList.length;
			const firstError = list.find((s) => !ok(s));
			const requests = median(
				list.map((s) =>
					s.report ? s.report.steps[0].requests - s.report.steps[0].rateLimited : NaN,
				),
			);
			const limited = median(list.map((s) => s.report?.steps[0].rateLimited ?? NaN));
			rows.push([
				variant.name,
				retryAfter ? 'yes' : 'no',
				`${fmtNum(requests)} + ${fmtNum(limited)} × 429`,
				fmtSummary(summarize(list.map(wall))),
				fmtMs(median(timed.map(tMin))),
				timed.length ? fmtSummary(overMin, fmtRatio) : '–',
				timed.length ? fmtSummary(overBound, fmtRatio) : '–',
				fmtMs(median(timed.map(overshootMs))),
				failed
					? `${failed}/${list.length} failed${list.filter((s) => !ok(s)).every(readAll) ? ' after reading every page' : ''}: ${(firstError?.report?.steps[0].error ?? firstError?.error ?? '').slice(0, 60)}`
					: `${list.length}/${list.length} ok`,
			]);
			summaries[`${variant.key}/${retryAfter ? 'retryAfter' : 'noRetryAfter'}`] = {
				wallMs: summarize(list.map(wall)),
				tMinMs: median(timed.map(tMin)),
				overMin,
				overBound,
				waitedPastWindowEndsMs: summarize(timed.map(overshootMs)),
				failed,
				requests,
				rateLimited: limited,
			};
			if (variant.key === 'ours' || variant.key === 'http-interval') {
				const who = variant.key === 'ours' ? '(a)' : '(b)';
				const part = `2 Rate limit, ${retryAfter ? 'with' : 'without'} Retry-After ${who}`;
				verdicts.push(
					{
						part,
						target: 'no failed execution',
						measured: `${failed}/${list.length} failed`,
						met: failed === 0,
						note: failed
							? (firstError?.report?.steps[0].error ?? firstError?.error ?? '').slice(0, 80)
							: undefined,
					},
					{
						part,
						target: 'within 1.15x of T_min',
						measured: `${fmtSummary(overMin, fmtRatio)} of T_min (${fmtSummary(overBound, fmtRatio)} of ${fullWindows} windows); waited ${fmtMs(median(timed.map(overshootMs)))} past window ends`,
						met: overMin.median <= 1.15,
						note:
							failed && timed.length
								? 'runs that read every page, failed ones included'
								: undefined,
					},
				);
			}
		}
	}
	for (const key of ['http-plain', 'http-retry']) {
		const list = samples.filter((s) => s.variant === key && s.retryAfter !== null);
		if (list.length) {
			verdicts.push({
				part: `2 Rate limit (b) ${key === 'http-plain' ? 'as configured in part 1' : 'with Retry On Fail'}`,
				target: 'no failed execution',
				measured: `${list.filter((s) => !ok(s)).length}/${list.length} failed`,
				met: list.every(ok),
			});
		}
	}

	return {
		title: `Part 2 — Return All under the rate limit (${PER_WINDOW} per ${fmtNum(windowMs)} ms window)`,
		tables: [
			table(
				[
					'client',
					'Retry-After',
					'requests',
					'wall time median (min–max)',
					'T_min',
					'x T_min',
					`x ${fullWindows} windows`,
					'waited past window ends',
					'executions',
				],
				rows,
			),
		],
		verdicts,
		notes,
		data: {
			windowMs,
			scale,
			responses: RESPONSES,
			requestsNeeded,
			fullWindows,
			tailRequests,
			summaries,
			samples,
		},
	};
}
