/**
 * Part 4 — CSV exports of about 50 MB and 500 MB: our Export operation in n8n's engine with
 * filesystem binary data (n8n's default on one instance), against a bare streamed download.
 */
import { startHarness } from '../../test/harness';
import type { BenchContext, PartResult } from '../lib/context';
import type { ChildReport } from '../lib/protocol';
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
import { runChild, scratchDir } from '../lib/spawn';

const MB = 1_000_000;
/** V8's longest string (2^29 − 24 characters): n8n's default mode keeps a file as one base64 string. */
const V8_MAX_STRING = 2 ** 29 - 24;

type Variant = { client: 'bare' | 'ours'; mode: 'filesystem' | 'default' };

interface Sample extends Variant {
	repeat: number;
	report?: ChildReport;
	error?: string;
}

async function csvBytesPerResponse(): Promise<number> {
	const probe = 20_000;
	const harness = await startHarness({ largeFormResponses: probe, rateLimit: false });
	try {
		const form = await harness.control.form('large');
		const response = await fetch(`${harness.baseUrl}/forms/${form.id}/export?format=csv`, {
			headers: { Authorization: `Bearer ${harness.keys.team}` },
		});
		return (await response.arrayBuffer()).byteLength / probe;
	} finally {
		await harness.close();
	}
}

export async function exportPart(ctx: BenchContext): Promise<PartResult> {
	const targetsMB = ctx.quick ? [5, 50] : [50, 500];
	const bytesPerResponse = await csvBytesPerResponse();
	const notes = [
		`CSV of the large form: ${bytesPerResponse.toFixed(1)} bytes per response (measured on 20,000), so N = size / that. MB = 10^6 bytes.`,
		"'default' binary mode (file held in memory as base64) is run only where the base64 text fits in one V8 string (≤ 402 MB file); above that n8n fails with it anyway.",
	];
	const rows: string[][] = [];
	const verdicts: Verdict[] = [];
	const data: unknown[] = [];
	for (const sizeMB of targetsMB) {
		const n = Math.round((sizeMB * MB) / bytesPerResponse);
		ctx.log(`Export: ~${sizeMB} MB CSV (${fmtNum(n)} responses)`);
		const variants: Variant[] = [
			{ client: 'bare', mode: 'filesystem' },
			{ client: 'ours', mode: 'filesystem' },
		];
		if (((sizeMB * MB) / 3) * 4 < V8_MAX_STRING) variants.push({ client: 'ours', mode: 'default' });
		const harness = await startHarness({ largeFormResponses: n, rateLimit: false });
		const samples: Sample[] = [];
		try {
			const formId = (await harness.control.form('large')).id;
			const warmFormId = (await harness.control.form('bugs')).id;
			const target = {
				baseUrl: harness.baseUrl,
				apiKey: harness.keys.team,
				warmKey: harness.keys.business,
			};
			for (let r = 0; r < ctx.repeat; r++) {
				const order = variants.map((_, i) => variants[(i + r) % variants.length]);
				for (const variant of order) {
					try {
						const report = await runChild(
							{
								kind: 'export',
								client: variant.client,
								binaryDataMode: variant.mode,
								target,
								formId,
								warmFormId,
								scratchDir: scratchDir(),
							},
							ctx.child,
						);
						samples.push({ ...variant, repeat: r, report });
						const step = report.steps[0];
						ctx.log(
							`  ${step.label} #${r + 1}: ${fmtMs(step.wallMs)}, ${step.ok ? `${fmtNum((step.items ?? 0) / MB, 1)} MB` : `FAILED: ${step.error}`}, peak RSS Δ ${mb(report.memory.rssPeakMB - report.memory.rssBaselineMB)}`,
						);
					} catch (error) {
						samples.push({ ...variant, repeat: r, error: String(error) });
						ctx.log(
							`  ${variant.client}/${variant.mode} #${r + 1}: child failed: ${String(error)}`,
						);
					}
				}
			}
		} finally {
			await harness.close();
		}

		const of = (v: Variant) => samples.filter((s) => s.client === v.client && s.mode === v.mode);
		const wall = (s: Sample) => s.report?.steps[0].wallMs ?? NaN;
		const ok = (s: Sample) => s.report?.steps[0].ok === true;
		const fileBytes = median(samples.filter(ok).map((s) => s.report?.steps[0].items ?? NaN));
		const rssDelta = (s: Sample) =>
			s.report ? s.report.memory.rssPeakMB - s.report.memory.rssBaselineMB : NaN;
		const bare = of({ client: 'bare', mode: 'filesystem' });
		const summary: Record<string, unknown> = { sizeMB, responses: n, fileBytes };
		for (const variant of variants) {
			const list = of(variant);
			const okList = list.filter(ok);
			const overBare = summarize(
				okList.map((s) => {
					const b = bare.find((x) => x.repeat === s.repeat);
					return b && ok(b) ? wall(s) / wall(b) : NaN;
				}),
			);
			const memOverFile = summarize(
				okList.map((s) => (rssDelta(s) * 1024 * 1024) / (s.report?.steps[0].items ?? NaN)),
			);
			const sizes = new Set(okList.map((s) => s.report?.steps[0].items));
			const name =
				variant.client === 'bare'
					? 'bare http GET → file'
					: `Forms.wtf Export, binary mode ${variant.mode}`;
			rows.push([
				`~${sizeMB} MB`,
				name,
				fmtNum(median(okList.map((s) => (s.report?.steps[0].items ?? NaN) / MB)), 1) + ' MB',
				fmtSummary(summarize(list.map(wall))),
				variant.client === 'bare' ? '1.00x' : fmtSummary(overBare, fmtRatio),
				mb(median(okList.map(rssDelta))),
				fmtSummary(memOverFile, (v) => v.toFixed(3)),
				list.length === okList.length
					? sizes.size === 1
						? 'ok'
						: 'sizes differ'
					: `${list.length - okList.length} failed: ${(list.find((s) => !ok(s))?.report?.steps[0].error ?? list.find((s) => !ok(s))?.error ?? '').slice(0, 60)}`,
			]);
			summary[`${variant.client}/${variant.mode}`] = {
				wallMs: summarize(list.map(wall)),
				overBare,
				rssDeltaMB: summarize(okList.map(rssDelta)),
				memOverFile,
			};
			if (variant.client === 'ours' && variant.mode === 'filesystem') {
				verdicts.push(
					{
						part: `4 Export ~${sizeMB} MB`,
						target: 'peak memory over file size (filesystem mode)',
						info: true,
						measured: `${fmtSummary(memOverFile, (v) => v.toFixed(3))} (${mb(median(okList.map(rssDelta)))} for ${fmtNum(fileBytes / MB, 1)} MB)`,
						met: okList.length === list.length && okList.length > 0,
					},
					{
						part: `4 Export ~${sizeMB} MB`,
						target: 'time over a bare download',
						info: true,
						measured: fmtSummary(overBare, fmtRatio),
						met: okList.length === list.length && okList.length > 0,
					},
				);
			}
		}
		data.push({ summary, samples });
	}
	return {
		title: 'Part 4 — CSV export',
		tables: [
			table(
				[
					'size',
					'client',
					'file',
					'wall time median (min–max)',
					'x bare (paired)',
					'peak RSS Δ',
					'peak RSS Δ / file',
					'status',
				],
				rows,
			),
		],
		verdicts,
		notes,
		data: { bytesPerResponse, sizes: data },
	};
}
