/**
 * The trigger's exactly-once in the n8n users run (`FORMSWTF_E2E_SUITES=trigger` runs only
 * these): an All Forms trigger → a local sink, active under `n8n start`, through
 * - n8n stopped (SIGTERM) and, separately, killed (SIGKILL) with responses submitted while down;
 * - a list of forms that lacks a form for one poll;
 * - the workflow saved through n8n's REST API while a poll is held in flight (a harness delay);
 * once with n8n's default scheduler and, on n8n 2.x, once with its durable scheduler and durable
 * poll cursors. Every response submitted must reach the sink exactly once.
 */
import type { ChildProcess } from 'child_process';
import { appendFileSync } from 'fs';
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import { N8nInstance } from './n8nInstance';
import { check, log, waitUntil } from './report';
import { Sink } from './sink';

const PACKAGE = 'n8n-nodes-formswtf';
const CREDENTIAL = { id: 'fwtfE2eCredProof1', name: 'Forms.wtf (local, proofs)' };
const WORKFLOW_ID = 'fwtfE2eProofAll1';
/** n8n polls once a minute: a tick, a start of n8n, and the execution. */
const DELIVERY_WAIT_MS = 200_000;
/** How long the delay fault holds the poll, so that the save lands while it is in flight. */
const HELD_POLL_MS = 30_000;

const DURABLE_SCHEDULER_ENV: NodeJS.ProcessEnv = {
	N8N_SCHEDULER_ENABLED: 'true',
	N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
	N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
};

export interface ProofContext {
	version: string;
	tarball: string;
	harness: RunningHarness;
}

function allFormsWorkflow(sinkUrl: string): IDataObject {
	return {
		id: WORKFLOW_ID,
		name: 'Forms.wtf e2e: all forms, exactly once',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'proof-trigger',
				name: 'Forms.wtf Trigger',
				type: `${PACKAGE}.formsWtfTrigger`,
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					pollTimes: { item: [{ mode: 'everyMinute' }] },
					watch: 'allForms',
					options: {},
				},
				credentials: { formsWtfApi: CREDENTIAL },
			},
			{
				id: 'proof-sink',
				name: 'Deliver',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [300, 0],
				parameters: {
					method: 'POST',
					url: `${sinkUrl}/delivered`,
					sendBody: true,
					contentType: 'json',
					specifyBody: 'json',
					jsonBody: '={{ JSON.stringify({ id: $json.id, formId: $json.formId }) }}',
					options: {},
				},
			},
		],
		connections: { 'Forms.wtf Trigger': { main: [[{ node: 'Deliver', type: 'main', index: 0 }]] } },
	};
}

/**
 * FORMSWTF_E2E_PROOF_SETUPS=default|durable runs one setup; FORMSWTF_E2E_N8N_LOG=<file> keeps
 * n8n's whole output there (it is long: debug level).
 */
export async function runTriggerProofs(context: ProofContext): Promise<void> {
	const major = Number(context.version.split('.')[0]);
	const setups = (process.env.FORMSWTF_E2E_PROOF_SETUPS ?? 'default,durable').split(',');
	if (setups.includes('default')) await proveSetup(context, 'default scheduler', {});
	if (major >= 2 && setups.includes('durable'))
		await proveSetup(context, 'durable scheduler and cursors', DURABLE_SCHEDULER_ENV);
}

async function proveSetup(
	context: ProofContext,
	setup: string,
	env: NodeJS.ProcessEnv,
): Promise<void> {
	const { version, harness } = context;
	const label = (what: string) => `${version}, ${setup}: ${what}`;
	await harness.control.reset();
	const instance = await N8nInstance.prepare(version);
	const sink = new Sink();
	const sinkUrl = await sink.start();
	const port = 16678 + (process.pid % 1000);
	const submitted: string[] = [];
	const delivered = () =>
		sink
			.on('/delivered')
			.map((request) => String((JSON.parse(request.body.toString('utf8')) as IDataObject).id));
	let discardedPolls = 0;
	let server: ChildProcess | undefined;
	// Debug level: n8n 2.x says so when it discards a poll's result ("… superseded workflow").
	const start = () =>
		(server = instance.start(
			port,
			(line) => {
				if (process.env.FORMSWTF_E2E_N8N_LOG)
					appendFileSync(process.env.FORMSWTF_E2E_N8N_LOG, `${line}\n`);
				if (/Discarding in-flight poll result/i.test(line)) discardedPolls++;
				if (
					/discard|superseded|poll cursor|Forms\.wtf Trigger: poll failed|There was a problem/i.test(
						line,
					)
				)
					log(`n8n: ${line.slice(0, 300)}`);
			},
			{ env: { N8N_LOG_LEVEL: 'debug', ...env } },
		));
	const submit = async (fixture: string, count: number) => {
		const form = await harness.control.form(fixture);
		const responses = await harness.control.submitResponses(
			form.id,
			Array.from({ length: count }, () => ({})),
		);
		submitted.push(...responses.map((response) => response.id));
	};
	const waitForAll = async (what: string) => {
		try {
			await sink.waitFor('/delivered', submitted.length, DELIVERY_WAIT_MS);
		} catch (error) {
			log(`${what}: ${(error as Error).message}`);
		}
	};
	const exactlyOnce = (what: string) => {
		const ids = delivered();
		const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
		const missing = submitted.filter((id) => !ids.includes(id));
		check(
			label(what),
			twice.length === 0 && missing.length === 0,
			`${ids.length} delivered of ${submitted.length}; twice ${twice.length}, missing ${missing.length}`,
		);
	};

	try {
		await instance.installPackage(context.tarball, PACKAGE);
		await instance.importJson('credentials', [
			{
				...CREDENTIAL,
				type: 'formsWtfApi',
				data: { apiKey: harness.keys.team, baseUrl: harness.baseUrl },
			},
		]);
		await instance.importJson('workflow', allFormsWorkflow(sinkUrl));
		await instance.activate(WORKFLOW_ID, env);
		await harness.control.clearRequestLog();
		start();
		const session = await instance.ownerSession(port);
		await waitUntil(async () => (await listings(harness)).length >= 1, 120_000);
		log(`${setup}: the trigger is active`);
		if (setup.startsWith('durable')) {
			// n8n 2.41's durable cursors keep nothing of the activation poll when it emits nothing
			// (it commits no cursor), so the first scheduled poll activates the trigger again: what
			// was submitted in between counts as existing. That gap is n8n's (see README, Limits);
			// the proofs start once the trigger's state is in n8n's cursor.
			await waitUntil(async () => (await listings(harness)).length >= 2, DELIVERY_WAIT_MS);
			await waitForPolls(harness, 1);
		}
		await submit('bugs', 2);
		await submit('research', 1);
		await waitForAll('first delivery');
		exactlyOnce('responses while n8n runs, each once');

		for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
			if (server) await instance.stop(server, signal);
			log(`${setup}: n8n stopped with ${signal}; submitting while it is down`);
			await submit('bugs', 2);
			await submit('feedback', 1);
			start();
			await waitForAll(`after ${signal}`);
			exactlyOnce(
				`${signal}, responses submitted while n8n was down, each once after it started again`,
			);
		}

		// A list of forms without "bugs" for one poll, then with it again.
		const bugs = await harness.control.form('bugs');
		await harness.control.clearRequestLog();
		await harness.control.injectFault({ kind: 'listingWithout', formIds: [bugs.id] });
		await waitUntil(
			async () => (await listings(harness)).some((entry) => entry.fault === 'listingWithout'),
			DELIVERY_WAIT_MS,
		);
		await submit('bugs', 1);
		await waitForAll('after the listing without a form');
		await waitForPolls(harness, 2);
		exactlyOnce('a form missing from one list of forms, nothing emitted twice');

		// The workflow saved (and on 2.x published) while a poll is held in flight.
		await harness.control.clearRequestLog();
		await harness.control.injectFault({ kind: 'delay', ms: HELD_POLL_MS, times: 1 });
		await submit('research', 2);
		await waitUntil(
			async () => (await listings(harness)).some((entry) => entry.fault === 'delay'),
			DELIVERY_WAIT_MS,
		);
		const saved = await session.saveWorkflow(WORKFLOW_ID, Number(version.split('.')[0]) >= 2);
		log(`${setup}: workflow saved while the poll was held: ${saved.detail}`);
		const discardedBefore = discardedPolls;
		await waitForAll('after the save');
		await waitForPolls(harness, 2);
		exactlyOnce('the workflow saved while a poll was in flight: nothing lost, nothing twice');
		log(
			`${setup}: polls whose result n8n discarded after the save: ${discardedPolls - discardedBefore}`,
		);
	} catch (error) {
		check(label('end-to-end run'), false, (error as Error).stack ?? String(error));
	} finally {
		await instance.dispose();
		await sink.close();
	}
}

async function listings(harness: RunningHarness) {
	return (await harness.control.requestLog()).filter((entry) => entry.path === '/api/v1/forms');
}

/** Waits until n8n has listed the forms `count` more times: polls that could emit twice have run. */
async function waitForPolls(harness: RunningHarness, count: number): Promise<void> {
	const before = (await listings(harness)).length;
	await waitUntil(async () => (await listings(harness)).length >= before + count, DELIVERY_WAIT_MS);
}
