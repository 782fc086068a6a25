/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console,
	@n8n/community-nodes/no-hardcoded-secrets
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The Webhook Trigger in real n8n (`FORMSWTF_E2E_SUITES=webhook`), under `n8n start`, with the
 * local API sending webhooks as Forms.wtf does:
 * - a workflow "Webhook Trigger → sink", active; the harness posts each submission to its
 *   production URL in both payload formats, signed: one execution per delivery, each item in
 *   the polling trigger's shape; deliveries with a wrong secret or none are answered 401 and
 *   start nothing; a body that is not JSON or not a delivery is answered 400;
 * - the example "webhook with polling catch-up", its Slack node stood in for: responses sent by
 *   webhook reach Slack at once, a response whose delivery was lost arrives through the polling
 *   trigger within a minute, and no response reaches Slack twice.
 * - Registration Automatic: a workflow activated through n8n's REST API leaves exactly one
 *   webhook at its Production URL in the local API, a submission starts it once; after a restart
 *   of n8n it is still that one webhook and a submission starts the workflow once; deactivating
 *   it removes the webhook; activating it while the webhooks endpoint answers 404 fails with the
 *   documented message.
 * One n8n start per version; the catch-up's minute is waited for while the other checks run.
 */
import { createHmac } from 'crypto';
import { appendFileSync } from 'fs';
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { N8nInstance, OWNER } from './n8nInstance';
import { check, log, waitUntil } from './report';
import { Sink } from './sink';
import { exampleWithStandIns } from './standIns';
import { CRED_TEAM, localCredentials, PACKAGE } from './workflows';

const SECRET = 'whsec_e2e_4b1f9c';
const CRED_WEBHOOK = { id: 'fwtfE2eCredHook01', name: 'Forms.wtf webhook secret (e2e)' };
const HOOK_WORKFLOW_ID = 'fwtfE2eWebhook01';
const HOOK_ID = '6f0b2c1e-9a4d-4e83-b5c7-2d8e1f0a3b94';
const EXAMPLE_FILE = 'webhook-with-polling-catch-up.json';
const EXAMPLE_WORKFLOW_ID = 'fwtfE2eHookEx001';
const EXAMPLE_HOOK_ID = '0d7a3e5b-1c9f-4b26-8e4a-7f2c6d1b9e03';
export const AUTO_WORKFLOW_ID = 'fwtfE2eAutoHook1';
export const AUTO_HOOK_ID = '9c2e7b41-5d0a-4f3e-8b16-3a7d9e0c5f28';
/** What activation must say when the API has no webhooks endpoint (docs/webhook-trigger.md). */
const NO_WEBHOOKS_API = 'No webhooks API here (404';
/** The catch-up: n8n polls on each minute, then the execution. */
const CATCH_UP_WAIT_MS = 100_000;

export function productionUrl(port: number, webhookId: string): string {
	return `http://127.0.0.1:${port}/webhook/${webhookId}/formswtf`;
}

function hookWorkflow(sinkUrl: string): IDataObject {
	return {
		id: HOOK_WORKFLOW_ID,
		name: 'Forms.wtf e2e: webhook trigger',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'hook-trigger',
				name: 'Forms.wtf Webhook Trigger',
				type: `${PACKAGE}.formsWtfWebhookTrigger`,
				typeVersion: 1,
				position: [0, 0],
				webhookId: HOOK_ID,
				parameters: { authentication: 'signingSecret', output: 'simplified', options: {} },
				credentials: { formsWtfWebhookApi: CRED_WEBHOOK },
			},
			{
				id: 'hook-sink',
				name: 'Deliver',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [300, 0],
				parameters: {
					method: 'POST',
					url: `${sinkUrl}/webhook`,
					sendBody: true,
					contentType: 'json',
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify($json) }}',
					options: {},
				},
			},
		],
		connections: {
			'Forms.wtf Webhook Trigger': { main: [[{ node: 'Deliver', type: 'main', index: 0 }]] },
		},
	};
}

/** Webhook Trigger (version 2, Registration Automatic) on one form → sink /auto; inactive. */
export function automaticWorkflow(formId: string, sinkUrl: string): IDataObject {
	return {
		id: AUTO_WORKFLOW_ID,
		name: 'Forms.wtf e2e: webhook trigger, registered automatically',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'auto-trigger',
				name: 'Forms.wtf Webhook Trigger',
				type: `${PACKAGE}.formsWtfWebhookTrigger`,
				typeVersion: 2,
				position: [0, 0],
				webhookId: AUTO_HOOK_ID,
				parameters: { registration: 'automatic', forms: [formId], output: 'simplified' },
				credentials: { formsWtfApi: CRED_TEAM },
			},
			{
				id: 'auto-sink',
				name: 'Deliver',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [300, 0],
				parameters: {
					method: 'POST',
					url: `${sinkUrl}/auto`,
					sendBody: true,
					contentType: 'json',
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify($json) }}',
					options: {},
				},
			},
		],
		connections: {
			'Forms.wtf Webhook Trigger': { main: [[{ node: 'Deliver', type: 'main', index: 0 }]] },
		},
	};
}

/** The editor's REST API as the owner (set up here: the instance is fresh). */
export async function ownerRest(port: number) {
	const base = `http://127.0.0.1:${port}/rest`;
	const setup = await fetch(`${base}/owner/setup`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(OWNER),
	});
	if (!setup.ok) throw new Error(`owner setup failed: ${setup.status} ${await setup.text()}`);
	const cookie = setup.headers.get('set-cookie')?.split(';')[0] ?? '';
	return async (method: string, path: string, body?: unknown) => {
		const response = await fetch(`${base}${path}`, {
			method,
			headers: { 'Content-Type': 'application/json', cookie },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return { status: response.status, text: await response.text() };
	};
}

/**
 * Activates or deactivates a workflow as the editor does: n8n 1.x PATCHes `active`, 2.x
 * publishes and unpublishes (activation then runs in the background: its outcome is read from
 * the publication status). Returns every answer's text, where an activation's error shows.
 */
export async function setActive(
	rest: OwnerRest,
	major: number,
	id: string,
	active: boolean,
): Promise<string> {
	const read = await rest('GET', `/workflows/${id}`);
	const versionId = (JSON.parse(read.text) as { data?: { versionId?: string } }).data?.versionId;
	if (major < 2) {
		const patched = await rest('PATCH', `/workflows/${id}`, { active, versionId });
		return patched.text;
	}
	const changed = await rest('POST', `/workflows/${id}/${active ? 'activate' : 'deactivate'}`, {
		versionId,
	});
	if (!active) return changed.text;
	let status = '';
	await waitUntil(
		async () => {
			status = (await rest('GET', `/workflows/${id}/publication-status`)).text;
			// `status` alone: the answer also names a `pendingVersionId`, null or not.
			const state = /"status"\s*:\s*"([a-z_]+)"/.exec(status)?.[1] ?? '';
			return !['pending', 'in_progress', 'queued', ''].includes(state);
		},
		30_000,
		'the publication to end',
	).catch(() => undefined);
	return `${changed.text} ${status}`;
}

type OwnerRest = Awaited<ReturnType<typeof ownerRest>>;

/** The local API's webhooks on a form that point at this URL (n8n may name localhost). */
export async function webhooksAt(
	harness: RunningHarness,
	formId: string,
	url: string,
): Promise<Array<{ id: number; url: string; source: string; signed: boolean }>> {
	const address = (value: string) => value.replace('//localhost:', '//127.0.0.1:');
	return (await harness.control.webhooks()).webhooks.filter(
		(webhook) => webhook.formId === formId && address(webhook.url) === address(url),
	);
}

interface AutomaticArgs {
	harness: RunningHarness;
	sink: Sink;
	version: string;
	port: number;
	formId: string;
}

/**
 * Registration Automatic in a running n8n, first part (while the catch-up's minute runs):
 * activation adds exactly one webhook at the Production URL, a submission starts the workflow
 * once. Returns the webhook's id in the local API.
 */
async function automaticActivation(args: AutomaticArgs, rest: OwnerRest): Promise<number[]> {
	const { harness, sink, version, port, formId } = args;
	const major = Number(version.split('.')[0]);
	const url = productionUrl(port, AUTO_HOOK_ID);
	const ours = async () => await webhooksAt(harness, formId, url);
	const activated = await setActive(rest, major, AUTO_WORKFLOW_ID, true);
	await waitUntil(async () => (await ours()).length > 0, 60_000, 'the webhook added').catch(
		() => undefined,
	);
	const added = await ours();
	check(
		`${version}: Registration Automatic: activating adds exactly one webhook, at the Production URL`,
		added.length === 1 && added[0].source === 'api' && added[0].signed,
		`${JSON.stringify(added)}; ${activated.slice(0, 300)}`,
	);
	const response = await harness.control.submitResponse(formId);
	await sink.waitFor('/auto', 1, 20_000).catch((error: Error) => log(error.message));
	await sleep(2_000);
	const started = bodies(sink, '/auto');
	check(
		`${version}: Registration Automatic: a submission starts the workflow once`,
		started.length === 1 && started[0].id === response.id,
		`${started.length} executions`,
	);
	return added.map((webhook) => webhook.id);
}

/**
 * Second part, after the catch-up: n8n restarted leaves the same one webhook, a submission
 * starts the workflow once, deactivation removes the webhook, and a 404 of the webhooks
 * endpoint fails activation with the documented message.
 */
async function automaticAcrossRestart(
	args: AutomaticArgs,
	rest: OwnerRest,
	before: number[],
	restart: () => Promise<void>,
): Promise<void> {
	const { harness, sink, version, port, formId } = args;
	const major = Number(version.split('.')[0]);
	const url = productionUrl(port, AUTO_HOOK_ID);
	const ours = async () => await webhooksAt(harness, formId, url);
	const restartedAt = Date.now();
	await restart();
	log(`n8n restarted in ${Math.round((Date.now() - restartedAt) / 1000)} s`);
	const after = await ours();
	check(
		`${version}: Registration Automatic: after a restart of n8n still exactly one webhook, the same`,
		after.length === 1 &&
			JSON.stringify(after.map((webhook) => webhook.id)) === JSON.stringify(before),
		`before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`,
	);
	const executions = sink.on('/auto').length;
	const response = await harness.control.submitResponse(formId);
	await sink.waitFor('/auto', executions + 1, 20_000).catch((error: Error) => log(error.message));
	await sleep(2_000);
	const started = bodies(sink, '/auto').slice(executions);
	check(
		`${version}: Registration Automatic: after the restart a submission starts the workflow once`,
		started.length === 1 && started[0].id === response.id,
		`${started.length} executions`,
	);

	await setActive(rest, major, AUTO_WORKFLOW_ID, false);
	await waitUntil(async () => (await ours()).length === 0, 30_000, 'the webhook removed').catch(
		() => undefined,
	);
	check(
		`${version}: Registration Automatic: deactivating removes the webhook`,
		(await ours()).length === 0,
		JSON.stringify(await ours()),
	);

	await harness.control.injectFault({
		kind: 'status',
		status: 404,
		pathIncludes: `/forms/${formId}/webhooks`,
		times: 50,
	});
	// The fault stays on this form's webhooks path alone (other suites may share the harness).
	const refused = await setActive(rest, major, AUTO_WORKFLOW_ID, true);
	check(
		`${version}: Registration Automatic: a 404 from the webhooks endpoint fails activation with the documented message`,
		refused.includes(NO_WEBHOOKS_API) &&
			refused.includes('choose Registration: Manual and add it in Forms.wtf') &&
			(await ours()).length === 0,
		refused.slice(0, 400),
	);
	await setActive(rest, major, AUTO_WORKFLOW_ID, false);
	// What is left of the 404s would refuse the next version's activation on the same harness.
	await harness.control.clearFaults();
}

/** The example as users import it, pointed at the local form, credentials and sink. */
function exampleWorkflow(formId: string, sinkUrl: string): IDataObject {
	const workflow = exampleWithStandIns(EXAMPLE_FILE, {
		id: EXAMPLE_WORKFLOW_ID,
		formId,
		credential: CRED_TEAM,
		sinkUrl,
	});
	const nodes = (workflow.nodes as IDataObject[]).map((node) => {
		if (node.type === `${PACKAGE}.formsWtfWebhookTrigger`) {
			// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
			const { formId: _formId, ...parameters } = node.parameters as IDataObject;
			return {
				...node,
				webhookId: EXAMPLE_HOOK_ID,
				parameters,
				credentials: { formsWtfWebhookApi: CRED_WEBHOOK },
			};
		}
		if (node.type === `${PACKAGE}.formsWtfTrigger`)
			return { ...node, parameters: { ...(node.parameters as IDataObject), formIds: [formId] } };
		return node;
	});
	return { ...workflow, nodes };
}

function bodies(sink: Sink, path: string): IDataObject[] {
	return sink.on(path).map((request) => JSON.parse(request.body.toString('utf8')) as IDataObject);
}

async function post(url: string, body: string, contentType: string, sign = true) {
	const headers: Record<string, string> = { 'Content-Type': contentType };
	if (sign)
		headers['X-Forms-Signature'] =
			`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
	const response = await fetch(url, { method: 'POST', headers, body });
	return { status: response.status, text: await response.text() };
}

async function sleep(ms: number): Promise<void> {
	await new Promise((resolve) => setTimeout(resolve, ms));
}

export async function webhookSuite(
	{ tarball, harness }: { tarball: string; harness: RunningHarness },
	version: string,
): Promise<void> {
	console.log(`\nn8n ${version}: the Webhook Trigger`);
	const started = Date.now();
	const instance = await N8nInstance.prepare(version);
	const sink = new Sink();
	const sinkUrl = await sink.start();
	const port = 16678 + (process.pid % 1000);
	try {
		await instance.installPackage(tarball, PACKAGE);
		await instance.importJson('credentials', [
			...localCredentials(harness),
			{ ...CRED_WEBHOOK, type: 'formsWtfWebhookApi', data: { secret: SECRET } },
		]);
		const bugs = await harness.control.form('bugs');
		const feedback = await harness.control.form('feedback');
		await instance.importJson('workflow', hookWorkflow(sinkUrl));
		await instance.importJson('workflow', exampleWorkflow(feedback.id, sinkUrl));
		// Not the empty RSVP form: the editor suite, later on the same harness, needs it empty.
		const waitlist = await harness.control.form('waitlist');
		await instance.importJson('workflow', automaticWorkflow(waitlist.id, sinkUrl));
		await instance.activate(HOOK_WORKFLOW_ID);
		await instance.activate(EXAMPLE_WORKFLOW_ID);
		await harness.control.clearWebhooks();
		await harness.control.clearRequestLog();
		// n8n's recent lines, shown when the catch-up fails: a line such as a QueryFailedError says
		// little without the lines around it.
		const recent: string[] = [];
		const onLine = (line: string) => {
			recent.push(line.slice(0, 400));
			if (recent.length > 60) recent.shift();
			if (process.env.FORMSWTF_E2E_N8N_LOG)
				appendFileSync(process.env.FORMSWTF_E2E_N8N_LOG, `${line}\n`);
			else if (/forms\.wtf|error/i.test(line)) log(`n8n: ${line.slice(0, 300)}`);
		};
		let n8n = instance.start(port, onLine);
		const hookUrl = productionUrl(port, HOOK_ID);
		// Registered once the node answers: an unsigned request is refused by the node (401), not by n8n (404).
		const answering = async (url: string) =>
			await waitUntil(
				async () =>
					(await post(url, 'x', 'text/plain', false).catch(() => ({ status: 0 }))).status === 401,
				120_000,
				'the webhook answering',
			);
		await answering(hookUrl);
		// The same n8n (database, port, URLs) stopped and started again; the Automatic workflow's
		// webhook answers once n8n has activated it anew.
		const restart = async () => {
			await instance.stop(n8n);
			n8n = instance.start(port, onLine);
			await answering(productionUrl(port, AUTO_HOOK_ID));
		};
		await waitUntil(
			async () =>
				(await harness.control.requestLog()).some((entry) =>
					entry.path.endsWith(`/forms/${feedback.id}/responses`),
				),
			120_000,
			'the catch-up trigger’s activation poll',
		);
		log(`n8n is up and both workflows active after ${Math.round((Date.now() - started) / 1000)} s`);
		const rest = await ownerRest(port);

		// The example: a response whose delivery is lost (no webhook yet), then two sent at once.
		const [lost] = await harness.control.submitResponses(feedback.id, [{}]);
		await harness.control.addWebhook({
			formId: feedback.id,
			url: productionUrl(port, EXAMPLE_HOOK_ID),
			secret: SECRET,
		});
		// One after the other: n8n's Remove Duplicates reads and writes its history without a
		// transaction, so two executions at the same instant can race (docs/webhook-trigger.md).
		const instant: Awaited<ReturnType<typeof harness.control.submitResponse>>[] = [];
		const instantMs: number[] = [];
		for (const count of [1, 2]) {
			const submittedMs = Date.now();
			instant.push(await harness.control.submitResponse(feedback.id));
			await sink.waitFor('/slack', count, 20_000).catch((error: Error) => log(error.message));
			instantMs.push(Date.now() - submittedMs);
		}
		const deliveredAt = Date.now();
		const slackIds = () =>
			bodies(sink, '/slack')
				.map((body) => String(body.responseId))
				.sort();
		check(
			`${version}: example: responses sent by webhook reach Slack at once`,
			JSON.stringify(slackIds()) === JSON.stringify(instant.map((r) => r.id).sort()),
			`${sink.on('/slack').length} of 2, ${instantMs.join(' ms and ')} ms from submission to Slack (the sink is read every 250 ms)`,
		);

		// The webhook workflow: each submission to "bugs" goes out four times.
		await harness.control.addWebhook({ formId: bugs.id, url: hookUrl, secret: SECRET });
		await harness.control.addWebhook({
			formId: bugs.id,
			url: hookUrl,
			secret: SECRET,
			format: 'reference',
		});
		await harness.control.addWebhook({ formId: bugs.id, url: hookUrl, secret: 'another-secret' });
		await harness.control.addWebhook({ formId: bugs.id, url: hookUrl, format: 'reference' });
		const submitted = await harness.control.submitResponses(bugs.id, [{}, {}]);
		await waitUntil(
			async () =>
				(await harness.control.webhooks()).deliveries.filter(
					(delivery) => delivery.formId === bugs.id && delivery.durationMs !== undefined,
				).length === 8,
			30_000,
			'the eight deliveries answered',
		);
		await sink.waitFor('/webhook', 4, 20_000).catch((error: Error) => log(error.message));
		await sleep(3_000);
		const deliveries = (await harness.control.webhooks()).deliveries.filter(
			(delivery) => delivery.formId === bugs.id,
		);
		const statusOf = (webhookId: number) =>
			deliveries.filter((d) => d.webhookId === webhookId).map((d) => d.status);
		const [signedFull, signedReference, wrong, unsigned] = (
			await harness.control.webhooks()
		).webhooks
			.filter((webhook) => webhook.formId === bugs.id)
			.map((webhook) => webhook.id);
		check(
			`${version}: both signed formats are answered 200, the wrong secret and the unsigned 401`,
			JSON.stringify([signedFull, signedReference, wrong, unsigned].map(statusOf)) ===
				JSON.stringify([
					[200, 200],
					[200, 200],
					[401, 401],
					[401, 401],
				]),
			JSON.stringify([signedFull, signedReference, wrong, unsigned].map(statusOf)),
		);
		const items = bodies(sink, '/webhook');
		const full = items.filter((item) => item.id !== undefined);
		const reference = items.filter((item) => item.id === undefined);
		check(
			`${version}: one execution per signed delivery, none for the refused ones`,
			items.length === 4 && full.length === 2 && reference.length === 2,
			`${items.length} executions (${full.length} integrations, ${reference.length} reference)`,
		);
		const wallets = submitted.map((r) => r.walletAddress).sort();
		check(
			`${version}: the items have the polling trigger's shape, formId, and formTitle when the payload has it`,
			JSON.stringify(full.map((i) => i.id).sort()) ===
				JSON.stringify(submitted.map((r) => r.id).sort()) &&
				full.every(
					(i) =>
						i.formId === bugs.id &&
						i.formTitle === bugs.title &&
						typeof i.answers === 'object' &&
						!Array.isArray(i.answers),
				) &&
				reference.every(
					(i) => i.formId === bugs.id && !('formTitle' in i) && !('durationSeconds' in i),
				) &&
				JSON.stringify(reference.map((i) => i.walletAddress).sort()) === JSON.stringify(wallets),
			JSON.stringify(items[0]).slice(0, 300),
		);

		const notJson = await post(hookUrl, 'event=form.submission', 'text/plain');
		const notDelivery = await post(hookUrl, '{"event":"form.submission"}', 'application/json');
		await sleep(1_000);
		check(
			`${version}: a signed body that is not JSON, or not a delivery, is answered 400 and starts nothing`,
			notJson.status === 400 && notDelivery.status === 400 && sink.on('/webhook').length === 4,
			`${notJson.status} ${notJson.text.slice(0, 120)}; ${notDelivery.status}`,
		);

		// While the catch-up's minute runs.
		const automatic = { harness, sink, version, port, formId: waitlist.id };
		const registered = await automaticActivation(automatic, rest).catch((error: Error) => {
			check(`${version}: Registration Automatic`, false, error.stack ?? String(error));
			return undefined;
		});

		// The catch-up: the lost response comes through the next poll, which sees the other two
		// again; Remove Duplicates lets none of them through twice.
		await sink.waitFor('/slack', 3, CATCH_UP_WAIT_MS).catch((error: Error) => log(error.message));
		const polledAfter = async () =>
			(await harness.control.requestLog()).some(
				(entry) =>
					entry.path.endsWith(`/forms/${feedback.id}/responses`) &&
					Date.parse(entry.timestamp) > deliveredAt,
			);
		await waitUntil(polledAfter, CATCH_UP_WAIT_MS, 'a poll after the webhook deliveries').catch(
			(error: Error) => log(error.message),
		);
		await sleep(5_000);
		const caughtUp =
			JSON.stringify(slackIds()) === JSON.stringify([lost, ...instant].map((r) => r.id).sort());
		check(
			`${version}: example: the lost response arrives through the polling trigger, and none twice`,
			caughtUp,
			`${sink.on('/slack').length} Slack messages for 3 responses`,
		);
		if (!caughtUp) for (const line of recent) log(`n8n (recent): ${line}`);

		// After the catch-up (a restart would disturb its poll): the same webhook across a restart.
		const restartPartAt = Date.now();
		if (registered)
			await automaticAcrossRestart(automatic, rest, registered, restart).catch((error: Error) =>
				check(
					`${version}: Registration Automatic across a restart`,
					false,
					error.stack ?? String(error),
				),
			);
		log(
			`Registration Automatic across a restart, deactivation and the 404: ${Math.round((Date.now() - restartPartAt) / 1000)} s`,
		);
		log(`webhook suite on ${version}: ${Math.round((Date.now() - started) / 1000)} s`);
	} catch (error) {
		check(`${version}: webhook suite`, false, (error as Error).stack ?? String(error));
	} finally {
		await harness.control.clearWebhooks().catch(() => undefined);
		await instance.dispose();
		await sink.close();
	}
}
