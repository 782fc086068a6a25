/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Part 5 — latency from a submission to the workflow running with it: the Webhook Trigger
 * (the local API posts each submission, signed, to an endpoint in front of the node, which runs
 * it through n8n-core's WebhookContext and WorkflowExecute) beside the polling trigger (a poll
 * that finds the one new response, measured, plus the wait for n8n's next poll: n8n polls at
 * most once a minute, so a response waits 0–60 s for it, 30 s on average).
 *
 * Runs in the parent process: the harness, the endpoint and n8n-core share it, as they share a
 * machine in the demo; the figures include the harness's own work.
 */
import { startHarness } from '../../test/harness';
import { formById, pollTrigger } from '../../test/support/formsWtf';
import { serveWebhookTrigger } from '../../test/support/webhookTrigger';
import type { BenchContext, PartResult } from '../lib/context';
import { fmtMs, fmtSummary, summarize, table, type Verdict } from '../lib/report';

const SECRET = 'whsec_bench';
const POLL_INTERVAL_MS = 60_000;

async function waitForCount(read: () => number, count: number, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (read() < count) {
		if (Date.now() > deadline) throw new Error(`no execution within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 1));
	}
}

function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function webhookPart(ctx: BenchContext): Promise<PartResult> {
	const deliveries = ctx.quick ? 20 : 100;
	ctx.log(`Webhook: ${deliveries} submissions through the Webhook Trigger, then as many polls`);
	const harness = await startHarness({ rateLimit: false });
	const endpoint = await serveWebhookTrigger({ secret: SECRET });
	try {
		const form = await harness.control.form('feedback');
		const webhookMs: number[] = [];
		for (const format of ['integrations', 'reference'] as const) {
			await harness.control.clearWebhooks();
			await harness.control.addWebhook({
				formId: form.id,
				url: endpoint.url,
				secret: SECRET,
				format,
			});
			// One unmeasured delivery warms up the node, n8n-core and the connection.
			const warm = endpoint.executions.length + 1;
			await harness.control.submitResponse(form.id);
			await waitForCount(() => endpoint.executions.length, warm, 10_000);
			for (let i = 0; i < deliveries / 2; i++) {
				const before = endpoint.executions.length;
				const submittedAt = performance.now();
				await harness.control.submitResponse(form.id);
				await waitForCount(() => endpoint.executions.length, before + 1, 10_000);
				const execution = endpoint.executions[before];
				if (execution.items.length !== 1) throw new Error('a delivery did not start the workflow');
				// Both ends on performance.now() of this process (the endpoint stamps the execution).
				webhookMs.push(execution.startedAtMs - submittedAt);
			}
		}

		// The polling trigger: a poll that finds one new response, as an active workflow's. Another
		// form: the trigger takes the service's clock from the Date header (whole seconds), so
		// responses of the second before its activation would count as new.
		const polledForm = await harness.control.form('research');
		let staticData = {};
		const poll = async () => {
			const result = await pollTrigger({
				baseUrl: harness.baseUrl,
				apiKey: harness.keys.team,
				parameters: { watch: 'form', formId: formById(polledForm.id), options: {} },
				mode: 'trigger',
				workflowId: 'bench-webhook-poll',
				staticData,
			});
			staticData = result.staticData;
			return result.items?.[0]?.length ?? 0;
		};
		await poll();
		const pollMs: number[] = [];
		for (let i = 0; i < deliveries; i++) {
			await harness.control.submitResponse(polledForm.id);
			const start = performance.now();
			const emitted = await poll();
			pollMs.push(performance.now() - start);
			if (emitted !== 1) throw new Error(`a poll emitted ${emitted} responses instead of 1`);
		}

		const hook = summarize(webhookMs);
		const polled = summarize(pollMs);
		const p95 = percentile(webhookMs, 95);
		const rows = [
			[
				'Webhook Trigger',
				String(webhookMs.length),
				fmtSummary(hook),
				fmtMs(p95),
				fmtMs(hook.median),
				fmtMs(hook.max),
			],
			[
				'Forms.wtf Trigger (poll each minute)',
				String(pollMs.length),
				`${fmtSummary(polled)} per poll`,
				'–',
				fmtMs(POLL_INTERVAL_MS / 2 + polled.median),
				fmtMs(POLL_INTERVAL_MS + polled.max),
			],
		];
		const verdicts: Verdict[] = [
			{
				part: 'Webhook',
				target: 'a submission runs the workflow in well under a second (Webhook Trigger)',
				measured: `median ${fmtMs(hook.median)}, p95 ${fmtMs(p95)}, max ${fmtMs(hook.max)}`,
				met: hook.max < 1_000,
			},
			{
				part: 'Webhook',
				target: 'the polling trigger, for comparison',
				measured: `a poll that finds it: ${fmtMs(polled.median)}; with the wait for the next poll ${fmtMs(POLL_INTERVAL_MS / 2 + polled.median)} on average, up to ${fmtMs(POLL_INTERVAL_MS + polled.max)}`,
				met: true,
				info: true,
			},
		];
		return {
			title: 'Part 5 — Latency from a submission to the workflow: webhook vs. poll',
			tables: [
				table(
					[
						'Trigger',
						'n',
						'measured: median (min–max)',
						'p95',
						'submission → run, average',
						'worst',
					],
					rows,
				),
			],
			verdicts,
			notes: [
				'Webhook: from the control API call that submits the response to the end of the execution it started (the harness posts it, signed, to an endpoint in front of the node; half of the deliveries in each payload format).',
				'Poll: the time of a poll that finds the one new response is measured; the wait for the next poll is not (n8n runs a poll trigger on the minute at most often), so the average and the worst add 30 s and 60 s to it.',
				'Harness, endpoint and n8n-core run in one process here.',
			],
			data: { webhookMs, pollMs, pollIntervalMs: POLL_INTERVAL_MS },
		};
	} finally {
		await endpoint.close();
		await harness.close();
	}
}
