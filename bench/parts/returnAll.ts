/**
 * Part 1 — Return All of N responses: our node, n8n's HTTP Request node with offset pagination
 * (+ Split Out), and a bare keep-alive loop (the floor), each run in a process of its own.
 */
import { startHarness } from '../../test/harness';
import type { BenchContext, PartResult } from '../lib/context';
import { loadN8nBase } from '../lib/n8nBase';
import type { ChildReport, ReturnAllClient } from '../lib/protocol';
import {
	fmtMs,
	fmtNum,
	fmtRatio,
	fmtSummary,
	mb,
	median,
	summarize,
	table,
	type Verdict,
} from '../lib/report';
import { runChild } from '../lib/spawn';

const CLIENT_NAMES: Record<ReturnAllClient, string> = {
	ours: '(a) Forms.wtf node',
	http: '(b) HTTP Request + Split Out',
	bare: '(c) bare keep-alive loop',
	oursRaw: "(a') Forms.wtf node, Output: Raw",
	bareNewConnection: "(c') bare, new connection per request",
};

interface Sample {
	client: ReturnAllClient;
	repeat: number;
	report?: ChildReport;
	error?: string;
}

export async function returnAllPart(ctx: BenchContext): Promise<PartResult> {
	const sizes = ctx.sizes ?? (ctx.quick ? [2_000, 20_000] : [10_000, 100_000, 500_000]);
	const base = loadN8nBase();
	const clients: ReturnAllClient[] = base.ok ? ['bare', 'ours', 'http'] : ['bare', 'ours'];
	if (ctx.diagnose) clients.push('oursRaw', 'bareNewConnection');
	const notes: string[] = [];
	if (!base.ok) notes.push(`(b) skipped: ${base.reason}`);
	else
		notes.push(
			`(b) uses n8n-nodes-base ${base.base.version} from ${base.base.install} (HTTP Request v4.5, Split Out v1).`,
		);

	const rows: string[][] = [];
	const verdicts: Verdict[] = [];
	const data: unknown[] = [];
	for (const n of sizes) {
		ctx.log(`Return All, N = ${fmtNum(n)}`);
		const harness = await startHarness({ largeFormResponses: n, rateLimit: false });
		const samples: Sample[] = [];
		try {
			const formId = (await harness.control.form('large')).id;
			const warmFormId = (await harness.control.form('feedback')).id;
			const target = {
				baseUrl: harness.baseUrl,
				apiKey: harness.keys.team,
				warmKey: harness.keys.business,
			};
			for (let r = 0; r < ctx.repeat; r++) {
				// A different order each repeat, so a slow moment of the shared machine hits all alike.
				const order = clients.map((_, i) => clients[(i + r) % clients.length]);
				for (const client of order) {
					try {
						const report = await runChild(
							{
								kind: 'returnAll',
								client,
								target,
								formId,
								warmFormId,
								rateLimit: false,
								retryAfterHeader: false,
							},
							ctx.child,
						);
						samples.push({ client, repeat: r, report });
						const step = report.steps[0];
						ctx.log(
							`  ${client} #${r + 1}: ${fmtMs(step.wallMs)}, ${step.requests} requests, ${step.ok ? `${fmtNum(step.items ?? 0)} items` : `FAILED: ${step.error}`}, peak RSS ${mb(report.memory.rssPeakMB)}`,
						);
					} catch (error) {
						samples.push({
							client,
							repeat: r,
							error: error instanceof Error ? error.message : String(error),
						});
						ctx.log(`  ${client} #${r + 1}: child failed: ${String(error)}`);
					}
				}
			}
		} finally {
			await harness.close();
		}

		// The first page, then pages of 1000 that each start on the last response of the page
		// before (a page read ahead must overlap it, see transport/paging.ts).
		const expectedRequests = n <= 1000 ? 1 : 1 + Math.ceil((n - 1000) / 999);
		const per = (client: ReturnAllClient) => samples.filter((s) => s.client === client);
		const wall = (s: Sample) => s.report?.steps[0].wallMs ?? NaN;
		const okOf = (s: Sample) => s.report?.steps[0].ok === true && s.report.steps[0].items === n;
		/** Read every page (even if the execution failed afterwards): its time and memory say something. */
		// The bare loop and n8n's HTTP Request node read plain pages of 1000, without overlap.
		const requestsOf = (client: ReturnAllClient) =>
			client === 'ours' ? expectedRequests : Math.ceil(n / 1000);
		const readAll = (s: Sample) =>
			s.report?.steps[0].requests === requestsOf(s.client) && s.report.steps[0].rateLimited === 0;
		const errorOf = (s: Sample) =>
			s.error ?? s.report?.steps[0].error ?? `${s.report?.steps[0].items} items`;
		const rssDelta = (s: Sample) =>
			s.report ? s.report.memory.rssPeakMB - s.report.memory.rssBaselineMB : NaN;
		const heapDelta = (s: Sample) =>
			s.report ? s.report.memory.heapPeakMB - s.report.memory.heapBaselineMB : NaN;
		const retainedKb = (s: Sample) =>
			s.report
				? ((s.report.memory.heapRetainedMB - s.report.memory.heapBaselineMB) * 1024) / n
				: NaN;
		const kbPerResponse = (s: Sample) => (rssDelta(s) * 1024) / n;
		/** Median over repeats of value(a) / value(b), both from the same repeat. */
		const pairedRatio = (a: ReturnAllClient, b: ReturnAllClient, value: (s: Sample) => number) =>
			summarize(
				per(a).map((sa) => {
					const sb = per(b).find((s) => s.repeat === sa.repeat);
					return sb && readAll(sa) && readAll(sb) ? value(sa) / value(sb) : NaN;
				}),
			);

		const summary: Record<string, unknown> = { n, expectedRequests };
		for (const client of clients) {
			const list = per(client);
			const timed = list.filter(readAll);
			const requests = median(list.map((s) => s.report?.steps[0].requests ?? NaN));
			const failures = list.filter((s) => !okOf(s));
			const status = failures.length
				? `${failures.length}/${list.length} failed${failures.every(readAll) ? ' after reading every page' : ''}: ${errorOf(failures[0]).slice(0, 50)}`
				: 'ok';
			const timeSummary = summarize(timed.map(wall));
			const xFloor = pairedRatio(client, 'bare', wall);
			rows.push([
				fmtNum(n),
				CLIENT_NAMES[client],
				`${fmtNum(requests)}/${requestsOf(client)}`,
				fmtSummary(timeSummary),
				client === 'bare' ? '1.00x' : fmtSummary(xFloor, fmtRatio),
				fmtSummary(summarize(timed.map(rssDelta)), mb),
				fmtNum(median(timed.map(kbPerResponse)), 2),
				mb(median(timed.map(heapDelta))),
				fmtNum(median(timed.map(retainedKb)), 2),
				status,
			]);
			summary[client] = {
				requests,
				wallMs: timeSummary,
				timeOverFloor: xFloor,
				rssDeltaMB: summarize(timed.map(rssDelta)),
				heapDeltaMB: summarize(timed.map(heapDelta)),
				kbPerResponse: summarize(timed.map(kbPerResponse)),
				retainedHeapKbPerResponse: summarize(timed.map(retainedKb)),
				failures: failures.length,
				errors: failures.map(errorOf),
			};
		}
		data.push({ summary, samples });

		// Targets for our node.
		const part = `1 Return All N=${fmtNum(n)}`;
		const ours = per('ours');
		const oursFailed = ours.filter((s) => !okOf(s));
		verdicts.push({
			part,
			target: `every execution succeeds with N items (implicit)`,
			measured: `${ours.length - oursFailed.length}/${ours.length} succeeded`,
			met: ours.length > 0 && oursFailed.length === 0,
			note: oursFailed.length ? errorOf(oursFailed[0]).slice(0, 80) : undefined,
		});
		const requests = median(ours.map((s) => s.report?.steps[0].requests ?? NaN));
		verdicts.push({
			part,
			target: `requests = 1 + ceil((N-1000)/999) = ${expectedRequests}`,
			measured: fmtNum(requests),
			met: requests === expectedRequests,
		});
		const overFloor = pairedRatio('ours', 'bare', wall);
		const partial = oursFailed.length
			? 'runs that read every page, failed ones included'
			: undefined;
		verdicts.push({
			part,
			target: 'time within 1.25x of the floor (c)',
			measured: fmtSummary(overFloor, fmtRatio),
			met: overFloor.median <= 1.25,
			note: partial,
		});
		if (base.ok) {
			const overHttp = pairedRatio('ours', 'http', wall);
			verdicts.push({
				part,
				target: 'faster than (b): time(a)/time(b) < 1',
				measured: fmtSummary(overHttp, fmtRatio),
				met: overHttp.median < 1,
				note: partial,
			});
			const kbOurs = summarize(ours.filter(readAll).map(kbPerResponse));
			const kbHttp = summarize(per('http').filter(readAll).map(kbPerResponse));
			verdicts.push({
				part,
				target: 'memory per response no worse than (b) (peak RSS over baseline / N)',
				measured: `${fmtSummary(kbOurs, (v) => `${fmtNum(v, 2)} KB`)} vs ${fmtSummary(kbHttp, (v) => `${fmtNum(v, 2)} KB`)}`,
				met: kbOurs.median <= kbHttp.median,
				note: partial,
			});
		} else {
			verdicts.push({
				part,
				target: 'faster than (b), memory no worse than (b)',
				measured: '(b) not available',
				met: null,
			});
		}
	}

	return {
		title: 'Part 1 — Return All of N responses (no rate limit)',
		tables: [
			table(
				[
					'N',
					'client',
					'requests',
					'wall time median (min–max)',
					'x floor (paired)',
					'peak RSS Δ (min–max)',
					'KB/resp (RSS)',
					'peak heap Δ',
					'retained heap KB/resp',
					'status',
				],
				rows,
			),
		],
		verdicts,
		notes,
		data,
	};
}
