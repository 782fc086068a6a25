/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * `npm run demo`: the Forms.wtf nodes at work against the local Forms.wtf API, in n8n's own
 * execution engine (n8n-core, in process). No account and no n8n install needed.
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from 'fs';
import type { IDataObject } from 'n8n-workflow';
import { join, relative, resolve } from 'path';

import { startHarness } from '../test/harness';
import type { RunningHarness } from '../test/harness';
import {
	activateWebhook,
	configureRunner,
	recordWebhookRequests,
	RunnerNodeTypeRegistry,
	runWebhook,
	runWebhookMethod,
} from '../test/runner';
import type { RecordingEndpoint, RunResult, RunWebhookMethodArgs } from '../test/runner';
import { credentialsFor, formById, pollTrigger, runFormsWtf } from '../test/support/formsWtf';
import {
	serveWebhookTrigger,
	WEBHOOK_NODE_NAME,
	WEBHOOK_TRIGGER_TYPE,
	webhookNodeTypes,
	webhookTriggerNode,
} from '../test/support/webhookTrigger';

const LARGE_FORM_RESPONSES = 25_000;
const OUTPUT_DIR = resolve(process.env.FORMSWTF_DEMO_OUTPUT ?? 'demo-output');
const NODE = 'Forms.wtf';

const started = Date.now();
let failures = 0;

function line(ok: boolean, step: string, detail: string, ms?: number): void {
	if (!ok) failures++;
	const time = ms === undefined ? '' : `  ${formatMs(ms)}`;
	console.log(`${ok ? '✔' : '✘'} ${step.padEnd(33)} ${detail}${time}`);
}

function formatMs(ms: number): string {
	return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function formatBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Runs a step; for anything slower than a second, shows what it is doing meanwhile. */
async function timed<T>(
	label: string,
	work: () => Promise<T>,
	progress?: () => Promise<string>,
): Promise<[T, number]> {
	const begin = Date.now();
	let ticker: NodeJS.Timeout | undefined;
	if (process.stdout.isTTY || progress) {
		ticker = setInterval(() => {
			void (async () => {
				const note = progress ? await progress() : '';
				const text = `  … ${label} ${formatMs(Date.now() - begin)} ${note}`;
				if (process.stdout.isTTY) process.stdout.write(`\r${text.padEnd(78)}`);
				else console.log(text);
			})();
		}, 1000);
	}
	try {
		return [await work(), Date.now() - begin];
	} finally {
		if (ticker) clearInterval(ticker);
		if (process.stdout.isTTY) process.stdout.write(`\r${' '.repeat(80)}\r`);
	}
}

function errorOf(result: RunResult): string {
	return result.error ? `${result.error.message}` : '';
}

async function main(): Promise<void> {
	configureRunner({ binaryDataMode: 'filesystem' });
	const harness = await startHarness({ largeFormResponses: LARGE_FORM_RESPONSES });
	const run = (parameters: IDataObject, apiKey = harness.keys.team) =>
		runFormsWtf({ baseUrl: harness.baseUrl, apiKey, parameters });
	try {
		console.log(
			`Forms.wtf nodes in n8n's engine, against the local Forms.wtf API at ${harness.baseUrl}\n`,
		);
		rmSync(OUTPUT_DIR, { recursive: true, force: true });
		mkdirSync(OUTPUT_DIR, { recursive: true });

		// List forms
		const [listed, listMs] = await timed('listing forms', () =>
			run({ resource: 'form', operation: 'getAll' }),
		);
		const forms = listed.outputOf(NODE).map((item) => item.json);
		const unpublished = forms.filter((form) => form.published === false).length;
		line(
			listed.status === 'success',
			'List forms',
			`${forms.length} forms (${unpublished} unpublished) ${errorOf(listed)}`,
			listMs,
		);

		// Get a form
		const feedback = forms.find((form) => /feedback/i.test(String(form.title))) ?? forms[0];
		const [got, getMs] = await timed('getting a form', () =>
			run({ resource: 'form', operation: 'get', formId: formById(String(feedback.id)) }),
		);
		const detail = got.outputOf(NODE)[0]?.json ?? {};
		const questions = Array.isArray(detail.questions) ? detail.questions.length : 0;
		const gates = Array.isArray(detail.gateRules) ? detail.gateRules.length : 0;
		line(
			got.status === 'success',
			'Get form',
			`"${String(detail.title)}": ${questions} questions, ${gates} gate rules ${errorOf(got)}`,
			getMs,
		);

		// Every response of the largest form
		const largest = [...forms].sort((a, b) => Number(b.responseCount) - Number(a.responseCount))[0];
		await harness.control.clearRequestLog();
		const requestsFor = async (formId: string) =>
			(await harness.control.requestLog()).filter((entry) =>
				entry.path.includes(`/forms/${formId}/responses`),
			).length;
		const [all, allMs] = await timed(
			'reading every response',
			() =>
				run({
					resource: 'response',
					operation: 'getAll',
					formId: formById(String(largest.id)),
					returnAll: true,
				}),
			async () => `(${await requestsFor(String(largest.id))} pages so far)`,
		);
		const responses = all.outputOf(NODE);
		const sample = responses[0]?.json;
		line(
			all.status === 'success' && responses.length === Number(largest.responseCount),
			'Get responses (all)',
			`${responses.length.toLocaleString('en-US')} responses of "${String(largest.title)}" in ${await requestsFor(String(largest.id))} requests ${errorOf(all)}`,
			allMs,
		);
		if (sample) {
			const answers = Object.entries((sample.answers ?? {}) as IDataObject).slice(0, 2);
			console.log(
				`    e.g. ${String(sample.walletAddress)} at ${String(sample.submittedAt)}: ${answers.map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join('; ')}`,
			);
		}

		// Exports
		for (const [format, key] of [
			['csv', harness.keys.team],
			['json', harness.keys.team],
			['merkle', harness.keys.business],
		] as const) {
			const [exported, exportMs] = await timed(`exporting ${format}`, () =>
				run(
					{
						resource: 'response',
						operation: 'export',
						formId: formById(String(feedback.id)),
						format,
					},
					key,
				),
			);
			if (exported.status !== 'success') {
				line(false, `Export ${format}`, errorOf(exported), exportMs);
				continue;
			}
			const fileName = String(exported.outputOf(NODE)[0].json.fileName);
			const path = join(OUTPUT_DIR, fileName);
			writeFileSync(path, await exported.binaryOf(NODE, 0));
			await exported.dispose();
			line(
				true,
				`Export ${format}`,
				`${relative(process.cwd(), path)} (${formatBytes(statSync(path).size)})`,
				exportMs,
			);
		}
		const refused = await run({
			resource: 'response',
			operation: 'export',
			formId: formById(String(feedback.id)),
			format: 'merkle',
		});
		line(
			refused.error?.message === 'Merkle export needs the Forms.wtf Business plan',
			'Merkle with a Team key',
			`refused as it should be: "${refused.error?.message ?? 'not refused'}"`,
		);

		await runTrigger(harness, String(feedback.id), String(feedback.title));
		await runWebhookTrigger(harness, String(feedback.id));
		await runAutomaticRegistration(harness, String(feedback.id));
	} finally {
		await harness.close();
	}
	console.log(
		`\n${failures === 0 ? 'All steps passed' : `${failures} step(s) failed`} in ${formatMs(Date.now() - started)}. Files are in ${OUTPUT_DIR}`,
	);
}

/** The trigger as an active workflow: activation, three new responses, then a quiet poll. */
async function runTrigger(harness: RunningHarness, formId: string, title: string): Promise<void> {
	let staticData: IDataObject = {};
	const poll = async () => {
		const result = await pollTrigger({
			baseUrl: harness.baseUrl,
			apiKey: harness.keys.team,
			parameters: { watch: 'form', formId: formById(formId), options: {} },
			mode: 'trigger',
			workflowId: 'demo-trigger',
			staticData,
		});
		staticData = result.staticData;
		return (result.items?.[0] ?? []).map((item) => item.json);
	};
	const [activation, activationMs] = await timed('activating the trigger', poll);
	line(
		activation.length === 0,
		'Trigger: activate',
		`watching "${title}"; existing responses are not emitted`,
		activationMs,
	);
	const submitted = await harness.control.submitResponses(formId, [{}, {}, {}]);
	const [emitted, pollMs] = await timed('polling', poll);
	const same =
		emitted.map((item) => item.id).join() === submitted.map((response) => response.id).join();
	line(
		same,
		'Trigger: new responses',
		`3 submitted → ${emitted.length} emitted, oldest first, once each`,
		pollMs,
	);
	const [quiet, quietMs] = await timed('polling', poll);
	line(quiet.length === 0, 'Trigger: next poll', `${quiet.length} emitted (nothing new)`, quietMs);
}

/**
 * The Webhook Trigger: the local API posts each submission to it, signed, as Forms.wtf does;
 * the time from the submission to the workflow starting with the response.
 */
async function runWebhookTrigger(harness: RunningHarness, formId: string): Promise<void> {
	const secret = 'whsec_demo';
	const endpoint = await serveWebhookTrigger({ secret });
	try {
		await harness.control.addWebhook({ formId, url: endpoint.url, secret });
		const submittedAtMs = performance.now();
		const [response] = await harness.control.submitResponses(formId, [{}]);
		const deadline = submittedAtMs + 5_000;
		while (endpoint.executions.length === 0 && performance.now() < deadline)
			await new Promise((resolve) => setTimeout(resolve, 2));
		const [execution] = endpoint.executions;
		const item = execution?.items[0];
		line(
			item?.id === response.id,
			'Webhook Trigger',
			item
				? `response ${String(item.id).slice(0, 10)}… from ${String(item.walletAddress).slice(0, 10)}… ran the workflow ${Math.round(execution.startedAtMs - submittedAtMs)} ms after it was submitted`
				: 'no execution within 5 s',
		);
		const forged = await fetch(endpoint.url, {
			method: 'POST',
			headers: {
				'Content-Type': 'application/json',
				'X-Forms-Signature': `sha256=${'0'.repeat(64)}`,
			},
			body: '{}',
		});
		line(
			forged.status === 401 && endpoint.executions.filter((e) => e.items.length > 0).length === 1,
			'Webhook: forged delivery',
			`answered ${forged.status}, no workflow started`,
		);
	} finally {
		await harness.control.clearWebhooks();
		await endpoint.close();
	}
}

/**
 * Registration: Automatic. The Webhook Trigger (version 2, the Forms.wtf API credential) is
 * activated the way n8n activates it (webhookMethods checkExists, then create) with n8n's
 * Production URL on a local endpoint; the harness's own list of webhooks says what it made;
 * a submission is delivered there and run through the trigger; deactivation calls delete.
 */
async function runAutomaticRegistration(harness: RunningHarness, formId: string): Promise<void> {
	const endpoint = await recordWebhookRequests();
	const trigger: RunWebhookMethodArgs = {
		workflow: {
			id: 'demoRegistration',
			nodes: [
				{
					...webhookTriggerNode({ forms: [formId] }, false),
					typeVersion: 2,
					credentials: { formsWtfApi: { id: '1', name: 'Forms.wtf account' } },
				},
			],
			connections: {},
			staticData: {},
		},
		node: WEBHOOK_NODE_NAME,
		nodeTypes: webhookNodeTypes,
		credentials: credentialsFor(harness.baseUrl, harness.keys.team),
		origin: endpoint.origin,
	};
	const onForm = async () =>
		(await harness.control.webhooks()).webhooks.filter((webhook) => webhook.formId === formId);
	try {
		const [activated, activateMs] = await timed('activating', () => activateWebhook(trigger));
		trigger.workflow.staticData = activated.staticData;
		const productionUrl = `${endpoint.origin}/webhook/${trigger.workflow.nodes[0].webhookId}/${webhookPath()}`;
		const registered = await onForm();
		line(
			activated.created &&
				registered.length === 1 &&
				registered[0].url === productionUrl &&
				registered[0].signed,
			'Webhook: registered automatically',
			`${registered.length} signed webhook at ${registered.map((webhook) => webhook.url).join(', ')}`,
			activateMs,
		);
		await deliverOnce(harness, formId, trigger, endpoint);
		const [deactivated, deactivateMs] = await timed('deactivating', () =>
			runWebhookMethod('delete', trigger),
		);
		const left = await onForm();
		line(
			deactivated.answer && left.length === 0,
			'Webhook: removed on deactivation',
			`${left.length} left`,
			deactivateMs,
		);
	} finally {
		await harness.control.clearWebhooks();
		await endpoint.close();
	}
}

/** The path n8n puts after the webhook id in the trigger's Production URL, from its description. */
function webhookPath(): string {
	const registry = new RunnerNodeTypeRegistry(webhookNodeTypes);
	const type = registry.getByNameAndVersion(WEBHOOK_TRIGGER_TYPE, 2);
	return String(type.description.webhooks?.[0]?.path);
}

/** One submission: what the harness delivers to the registered URL, run through the trigger. */
async function deliverOnce(
	harness: RunningHarness,
	formId: string,
	trigger: RunWebhookMethodArgs,
	endpoint: RecordingEndpoint,
): Promise<void> {
	const submittedAtMs = performance.now();
	const [response] = await harness.control.submitResponses(formId, [{}]);
	const deadline = submittedAtMs + 5_000;
	while (endpoint.received.length === 0 && performance.now() < deadline)
		await new Promise((resolve) => setTimeout(resolve, 2));
	const [request] = endpoint.received;
	const run = request ? await runWebhook({ ...trigger, request }) : undefined;
	const ids = (run?.items ?? []).map((item) => String(item.json.id));
	line(
		run?.status === 200 && ids.length === 1 && ids[0] === response.id,
		'Webhook: submission',
		run
			? `${endpoint.received.length} delivery, signature checked (${run.status}): the workflow ran with response ${ids.join().slice(0, 10)}… ${Math.round(performance.now() - submittedAtMs)} ms after it was submitted`
			: 'no delivery within 5 s',
	);
}

main().then(
	() => process.exit(failures === 0 ? 0 : 1),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
