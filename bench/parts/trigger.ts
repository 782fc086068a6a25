/**
 * Part 3 — the trigger's quiet poll (nothing new) on a small and a large form, and beside it the
 * pattern users build without us: Schedule Trigger → HTTP Request (all pages) → Split Out →
 * Remove Duplicates.
 */
import { startHarness } from '../../test/harness';
import type { ResponseDraft } from '../../test/harness';
import type { BenchContext, PartResult } from '../lib/context';
import { loadN8nBase } from '../lib/n8nBase';
import type { ChildReport, Step } from '../lib/protocol';
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

const SMALL = 1_000;
const QUIET_POLLS = 30;
/** All Forms accounts measured, and idle polls per account (past two sweep rounds, SWEEP_POLLS = 10). */
const FORM_COUNTS = [1, 10, 100];
const IDLE_POLLS = 40;
/** Selected Forms: this many of an account's forms, beside as many single-form triggers. */
const SELECTED_OF = 100;
const SELECTED = 10;
/** n8n's durable scheduler gives a poll about 36 s (its default 45 s poll timeout). */
const DURABLE_POLL_BUDGET_MS = 36_000;
const EXISTING = 1_000;
/** Responses submitted over the last day before the second Emit Existing Responses case (a form in use). */
const RECENT = 2_000;
const DAY_MS = 86_400_000;

export async function triggerPart(ctx: BenchContext): Promise<PartResult> {
	const large = ctx.quick ? 100_000 : 1_000_000;
	const notes: string[] = [];
	const verdicts: Verdict[] = [];
	const tables: string[] = [];
	ctx.log(`Trigger: forms of ${fmtNum(SMALL)} and ${fmtNum(large)} responses`);
	const harness = await startHarness({ largeFormResponses: large, rateLimit: false });
	const triggerReports: ChildReport[] = [];
	const patternReports: Record<string, ChildReport | string> = {};
	let smallId = '';
	let largeId = '';
	let scaleReport: ChildReport | undefined;
	let selectedReport: ChildReport | undefined;
	try {
		largeId = (await harness.control.form('large')).id;
		// The small form: the empty RSVP form given 1000 responses over the last 30 days, the newest
		// an hour old, so that none lies in the trigger's 10-minute look-back window.
		smallId = (await harness.control.form('rsvp')).id;
		const now = Date.now();
		const drafts: ResponseDraft[] = Array.from({ length: SMALL }, (_, i) => ({
			submittedAt: new Date(
				now - DAY_MS / 24 - Math.floor(((SMALL - i) / SMALL) * 30 * DAY_MS),
			).toISOString(),
		}));
		await harness.control.submitResponses(smallId, drafts);
		const target = {
			baseUrl: harness.baseUrl,
			apiKey: harness.keys.team,
			warmKey: harness.keys.business,
		};

		for (let r = 0; r < ctx.repeat; r++) {
			try {
				const report = await runChild(
					{
						kind: 'trigger',
						target,
						forms: [
							{ label: 'small', formId: smallId },
							{ label: 'large', formId: largeId },
						],
						quietPolls: QUIET_POLLS,
					},
					ctx.child,
				);
				triggerReports.push(report);
				const quiet = (label: string) => report.steps.filter((s) => s.label === `${label}:quiet`);
				ctx.log(
					`  trigger #${r + 1}: quiet poll small ${fmtMs(median(quiet('small').map((s) => s.wallMs)))}, large ${fmtMs(median(quiet('large').map((s) => s.wallMs)))}`,
				);
			} catch (error) {
				ctx.log(`  trigger #${r + 1}: child failed: ${String(error)}`);
			}
		}

		ctx.log(
			`  All Forms on ${FORM_COUNTS.join(', ')} forms, ${IDLE_POLLS} idle polls each; Emit Existing Responses (${fmtNum(EXISTING)}) on ${fmtNum(large)} responses`,
		);
		try {
			scaleReport = await runChild(
				{
					kind: 'triggerScale',
					target,
					formCounts: FORM_COUNTS,
					idlePolls: IDLE_POLLS,
					existing: {
						formId: largeId,
						backfill: EXISTING,
						pollBudgetMs: DURABLE_POLL_BUDGET_MS,
						recentResponses: RECENT,
					},
				},
				ctx.child,
			);
		} catch (error) {
			ctx.log(`    child failed: ${String(error)}`);
		}

		ctx.log(
			`  Selected Forms watching ${SELECTED} of ${SELECTED_OF} forms, beside ${SELECTED} single-form triggers; ${IDLE_POLLS} idle polls each`,
		);
		try {
			selectedReport = await runChild(
				{
					kind: 'triggerSelected',
					target,
					totalForms: SELECTED_OF,
					watched: SELECTED,
					idlePolls: IDLE_POLLS,
				},
				ctx.child,
			);
		} catch (error) {
			ctx.log(`    child failed: ${String(error)}`);
		}

		const base = loadN8nBase();
		if (!base.ok) {
			notes.push(`Schedule → HTTP Request → Remove Duplicates skipped: ${base.reason}`);
		} else {
			for (const [label, formId, size] of [
				['small', smallId, SMALL],
				['large', largeId, large],
			] as const) {
				ctx.log(
					`  pattern on ${fmtNum(size)} responses: 1 first run + ${ctx.repeat} runs with nothing new`,
				);
				try {
					patternReports[label] = await runChild(
						{ kind: 'pattern', target, formId, runs: ctx.repeat, historySize: 2 * size },
						{ ...ctx.child, heapMB: (size > 200_000 && ctx.patternHeapMB) || ctx.child.heapMB },
					);
					const steps = (patternReports[label] as ChildReport).steps;
					ctx.log(
						`    runs: ${steps.map((s) => `${fmtMs(s.wallMs)}${s.ok ? '' : ' FAILED'}`).join(', ')}`,
					);
				} catch (error) {
					patternReports[label] = String(error);
					ctx.log(`    child failed: ${String(error)}`);
				}
			}
			notes.push(
				`The pattern: Schedule Trigger v1.2 → HTTP Request v4.5 (as in part 1) → Split Out → Remove Duplicates v2 "Remove Items Processed in Previous Executions" on {{ $json.id }}, ` +
					`History Size = 2 × form size (the node refuses to run when stored + incoming > History Size; its default 10,000 fails on forms over 5,000 responses). ` +
					`Remove Duplicates uses an in-memory copy of n8n's deduplication store (bench/lib/dedup.ts; n8n's own keeps it in the database), so its times are a lower bound.`,
			);
			if (large > 200_000 && ctx.patternHeapMB)
				notes.push(
					`The pattern on ${fmtNum(large)} responses ran with --max-old-space-size=${ctx.patternHeapMB}.`,
				);
		}
	} finally {
		await harness.close();
	}

	// Trigger table.
	const stepsOf = (label: string) =>
		triggerReports.flatMap((report) => report.steps.filter((s) => s.label === label));
	const triggerRows: string[][] = [];
	const quietMedian: Record<string, number> = {};
	for (const [label, size] of [
		['small', SMALL],
		['large', large],
	] as const) {
		const activation = stepsOf(`${label}:activate`);
		const quiet = stepsOf(`${label}:quiet`);
		const failures = quiet.filter((s) => !s.ok).length;
		quietMedian[label] = median(quiet.map((s) => s.wallMs));
		triggerRows.push([
			`${fmtNum(size)} responses`,
			fmtNum(median(activation.map((s) => s.requests))),
			fmtMs(median(activation.map((s) => s.wallMs))),
			`${fmtNum(median(quiet.map((s) => s.requests)))} (max ${fmtNum(Math.max(...quiet.map((s) => s.requests)))})`,
			fmtSummary(summarize(perChildMedians(triggerReports, `${label}:quiet`))),
			`${quiet.length - failures}/${quiet.length}`,
		]);
	}
	// The ratio is taken within each child (same process, interleaved polls), then the median.
	const ratios = summarize(
		triggerReports.map((report) => {
			const m = (label: string) =>
				median(report.steps.filter((s) => s.label === `${label}:quiet`).map((s) => s.wallMs));
			return m('large') / m('small');
		}),
	);
	tables.push(
		table(
			[
				'form',
				'activation requests',
				'activation time',
				'requests per quiet poll',
				'quiet poll latency (median of child medians, min–max)',
				'quiet polls ok',
			],
			triggerRows,
		),
		`large / small quiet-poll latency (per child, median of ${triggerReports.length}): ${fmtSummary(ratios, fmtRatio)}`,
	);
	const quietAll = [...stepsOf('small:quiet'), ...stepsOf('large:quiet')];
	verdicts.push(
		{
			part: '3 Trigger quiet poll',
			target: 'requests per poll = 1',
			measured: `max ${fmtNum(Math.max(...quietAll.map((s) => s.requests)))}, median ${fmtNum(median(quietAll.map((s) => s.requests)))} over ${quietAll.length} polls`,
			met: quietAll.length > 0 && quietAll.every((s) => s.requests === 1 && s.ok),
		},
		{
			part: '3 Trigger quiet poll',
			target: `latency on ${fmtNum(large)} over ${fmtNum(SMALL)} responses ≤ 1.5x`,
			measured: `${fmtSummary(ratios, fmtRatio)} (${fmtMs(quietMedian.large)} vs ${fmtMs(quietMedian.small)})`,
			met: Number.isFinite(ratios.median) && ratios.median <= 1.5,
		},
	);

	// All Forms and Emit Existing Responses at scale.
	if (scaleReport) {
		const scaleSteps = (label: string) =>
			(scaleReport as ChildReport).steps.filter((s) => s.label === label);
		// The first polls after activation read the forms the activation left for later (at most
		// MAX_PAGES_PER_POLL pages a poll) and the first sweep round; the second half is the steady state.
		const steady = (count: number) => scaleSteps(`${count}:idle`).slice(IDLE_POLLS / 2);
		const meanRequests = (steps: Step[]) =>
			steps.reduce((a, s) => a + s.requests, 0) / Math.max(1, steps.length);
		const rows = FORM_COUNTS.map((count) => {
			const activation = scaleSteps(`${count}:activate`);
			const idle = scaleSteps(`${count}:idle`);
			const failed = [...activation, ...idle].filter((s) => !s.ok || (s.items ?? 0) > 0).length;
			const mean = meanRequests(steady(count));
			return [
				`${count} form${count === 1 ? '' : 's'}`,
				fmtNum(activation[0]?.requests ?? NaN),
				fmtMs(activation[0]?.wallMs ?? NaN),
				`${fmtNum(Math.max(...idle.slice(0, IDLE_POLLS / 2).map((s) => s.requests)))}`,
				`${mean.toFixed(2)} (max ${fmtNum(Math.max(...steady(count).map((s) => s.requests)))})`,
				(mean / count).toFixed(3),
				fmtMs(Math.max(...[...activation, ...idle].map((s) => s.wallMs))),
				failed ? `${failed} failed or emitted` : 'ok',
			];
		});
		tables.push(
			table(
				[
					'All Forms account',
					'activation requests',
					'activation time',
					`idle polls 1–${IDLE_POLLS / 2}: most requests`,
					`requests per idle poll, polls ${IDLE_POLLS / 2 + 1}–${IDLE_POLLS}: mean (max)`,
					'per form',
					'longest poll',
					'status',
				],
				rows,
			),
		);
		const existingCases = [
			['existing:seeded', `${fmtNum(EXISTING)} of ${fmtNum(large)}, the newest over a year old`],
			[
				'existing:recent',
				`${fmtNum(EXISTING)} of ${fmtNum(large + RECENT)}, ${fmtNum(RECENT)} in the last day`,
			],
		] as const;
		const existing = existingCases.flatMap(([label]) => scaleSteps(label));
		const longest = Math.max(...existing.map((s) => s.wallMs));
		tables.push(
			table(
				[
					'Emit Existing Responses',
					'polls until all emitted',
					'items emitted',
					'requests',
					'longest poll',
					'poll budget',
				],
				existingCases.map(([label, name]) => {
					const steps = scaleSteps(label);
					return [
						name,
						fmtNum(steps.length),
						fmtNum(steps.reduce((a, s) => a + (s.items ?? 0), 0)),
						fmtNum(steps.reduce((a, s) => a + s.requests, 0)),
						fmtMs(Math.max(...steps.map((s) => s.wallMs))),
						fmtMs(DURABLE_POLL_BUDGET_MS),
					];
				}),
			),
		);
		const perForm100 = meanRequests(steady(100)) / 100;
		verdicts.push(
			{
				part: '3 Trigger All Forms',
				target: 'idle poll on 100 forms far below 1 request per form (≤ 0.2)',
				measured: `${perForm100.toFixed(3)} per form`,
				met: steady(100).length > 0 && perForm100 <= 0.2,
			},
			{
				part: '3 Trigger Emit Existing',
				target: `every poll within the ${fmtMs(DURABLE_POLL_BUDGET_MS)} budget`,
				measured: `longest ${fmtMs(longest)} over ${existing.length} polls`,
				met:
					existing.length > 0 && longest <= DURABLE_POLL_BUDGET_MS && existing.every((s) => s.ok),
			},
		);
	}

	// Selected Forms beside single-form triggers on the same key.
	if (selectedReport) {
		const selectedSteps = (label: string) =>
			(selectedReport as ChildReport).steps.filter((s) => s.label === label);
		// As for All Forms: the first half settles (the first read of each form after activation,
		// the first sweep round), the second half is the steady state.
		const rows = (['selected', 'singles'] as const).map((kind) => {
			const activation = selectedSteps(`${kind}:activate`);
			const idle = selectedSteps(`${kind}:idle`);
			const steady = idle.slice(IDLE_POLLS / 2);
			const failed = [...activation, ...idle].filter((s) => !s.ok || (s.items ?? 0) > 0).length;
			const mean = steady.reduce((a, s) => a + s.requests, 0) / Math.max(1, steady.length);
			return {
				mean,
				row: [
					kind === 'selected'
						? `1 Selected Forms trigger, ${SELECTED} of ${SELECTED_OF} forms`
						: `${SELECTED} single-form triggers, same forms`,
					fmtNum(activation[0]?.requests ?? NaN),
					fmtNum(Math.max(...idle.slice(0, IDLE_POLLS / 2).map((s) => s.requests))),
					`${mean.toFixed(2)} (max ${fmtNum(Math.max(...steady.map((s) => s.requests)))})`,
					(mean / SELECTED).toFixed(3),
					fmtMs(median(steady.map((s) => s.wallMs))),
					failed ? `${failed} failed or emitted` : 'ok',
				],
			};
		});
		tables.push(
			table(
				[
					'same key, same forms',
					'activation requests',
					`idle polls 1–${IDLE_POLLS / 2}: most requests`,
					`requests per idle poll, polls ${IDLE_POLLS / 2 + 1}–${IDLE_POLLS}: mean (max)`,
					'per watched form',
					'time per idle poll (singles: the round), median',
					'status',
				],
				rows.map((r) => r.row),
			),
		);
		notes.push(
			`Selected Forms vs single-form triggers: one idle poll of the Selected Forms trigger, and one round of the ${SELECTED} single-form triggers (each polls once; n8n polls them all every minute), ` +
				`on an account of ${SELECTED_OF} forms (bench/lib/manyForms.ts), trigger version 2 with its defaults. The key allows 60 requests a minute.`,
		);
		const [selected, singles] = rows.map((r) => r.mean);
		verdicts.push({
			part: '3 Trigger Selected Forms',
			target: `idle poll watching ${SELECTED} of ${SELECTED_OF} forms: the listing plus its share of the sweep (≤ 2 requests), not one request per form (${SELECTED})`,
			measured: `${selected.toFixed(2)} requests per idle poll vs ${singles.toFixed(2)} for ${SELECTED} single-form triggers`,
			met:
				Number.isFinite(selected) &&
				selected <= 2 &&
				selectedSteps('selected:idle').every((s) => s.ok && (s.items ?? 0) === 0),
		});
	}

	// Pattern table.
	const patternRows: string[][] = [];
	for (const [label, size] of [
		['small', SMALL],
		['large', large],
	] as const) {
		const report = patternReports[label];
		if (report === undefined) continue;
		if (typeof report === 'string') {
			patternRows.push([
				`${fmtNum(size)} responses`,
				'–',
				'–',
				'–',
				'–',
				'–',
				`failed: ${report.slice(0, 80)}`,
			]);
			continue;
		}
		const [first, ...quiet] = report.steps;
		const failed = report.steps.filter((s: Step) => !s.ok);
		patternRows.push([
			`${fmtNum(size)} responses`,
			fmtNum(median(quiet.map((s) => s.requests))),
			fmtSummary(summarize(quiet.map((s) => s.wallMs))),
			fmtMs(first.wallMs),
			fmtNum(median(quiet.map((s) => Number(s.extra?.kept ?? NaN)))),
			mb(report.memory.rssPeakMB - report.memory.rssBaselineMB),
			failed.length ? `${failed.length} failed: ${(failed[0].error ?? '').slice(0, 80)}` : 'ok',
		]);
	}
	if (patternRows.length) {
		tables.push(
			table(
				[
					'form',
					'requests per run',
					'time per run, nothing new (min–max)',
					'first run',
					'items kept',
					'peak RSS Δ',
					'status',
				],
				patternRows,
			),
		);
	}

	return {
		title: 'Part 3 — Trigger: a poll that finds nothing new',
		tables,
		verdicts,
		notes,
		data: { small: SMALL, large, triggerReports, patternReports, scaleReport, selectedReport },
	};
}

function perChildMedians(reports: ChildReport[], label: string): number[] {
	return reports.map((report) =>
		median(report.steps.filter((s) => s.label === label).map((s) => s.wallMs)),
	);
}
