/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The trigger's exactly-once in the n8n users run (`FORMSWTF_E2E_SUITES=trigger` runs only
 * these): two workflows active together under `n8n start`, each trigger → a local sink,
 * - an All Forms trigger (version 1), and
 * - a Selected Forms trigger (version 2) watching two of the forms and not a third, which gets
 *   responses all the same; On Activation it emits every response since a date set just before
 *   n8n starts (a response submitted in between must come too),
 * through
 * - n8n stopped (SIGTERM) and, separately, killed (SIGKILL) with responses submitted while down;
 * - a list of forms that lacks a form for one poll;
 * - the workflows saved through n8n's REST API while a poll is held in flight (a harness delay);
 * once with n8n's default scheduler and, on n8n 2.x, once with its durable scheduler and durable
 * poll cursors. Every response submitted must reach the All Forms sink exactly once, and every
 * response submitted to a selected form the Selected Forms sink exactly once, with nothing else.
 * Both workflows ride the same restarts and faults, so the second costs no extra minutes.
 */
import type { ChildProcess } from 'child_process';
import { appendFileSync } from 'fs';
import type { IDataObject } from 'n8n-workflow';

import { startHarness } from '../harness';
import type { RunningHarness } from '../harness';
import { N8nInstance } from './n8nInstance';
import { check, log, waitUntil } from './report';
import { Sink } from './sink';
import { LARGE_FORM, PACKAGE } from './workflows';

const CREDENTIAL = { id: 'fwtfE2eCredProof1', name: 'Forms.wtf (local, proofs)' };
const WORKFLOW_ID = 'fwtfE2eProofAll1';
/**
 * The Selected Forms trigger's key is the Business key (same account, same forms), so the
 * harness's request log tells its requests (plan `business`) from the All Forms trigger's (`team`).
 */
const SELECTED_CREDENTIAL = {
	id: 'fwtfE2eCredProof2',
	name: 'Forms.wtf (local, proofs, Business key)',
};
const SELECTED_WORKFLOW_ID = 'fwtfE2eProofSel1';
/** The forms the Selected Forms trigger watches, and the one it must not. */
const SELECTED_FIXTURES = ['bugs', 'feedback'];
const UNSELECTED_FIXTURE = 'research';
const ALL_PLAN = 'team';
const SELECTED_PLAN = 'business';
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
}

interface ProofWorkflow {
	id: string;
	name: string;
	typeVersion: number;
	parameters: IDataObject;
	credential: { id: string; name: string };
	/** The sink's path each item is posted to, as `{ id, formId }`. */
	sinkPath: string;
}

function proofWorkflow(sinkUrl: string, proof: ProofWorkflow): IDataObject {
	return {
		id: proof.id,
		name: proof.name,
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'proof-trigger',
				name: 'Forms.wtf Trigger',
				type: `${PACKAGE}.formsWtfTrigger`,
				typeVersion: proof.typeVersion,
				position: [0, 0],
				parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...proof.parameters },
				credentials: { formsWtfApi: proof.credential },
			},
			{
				id: 'proof-sink',
				name: 'Deliver',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [300, 0],
				parameters: {
					method: 'POST',
					url: `${sinkUrl}${proof.sinkPath}`,
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

function allFormsWorkflow(sinkUrl: string): IDataObject {
	return proofWorkflow(sinkUrl, {
		id: WORKFLOW_ID,
		name: 'Forms.wtf e2e: all forms, exactly once',
		typeVersion: 1,
		parameters: { watch: 'allForms', options: {} },
		credential: CREDENTIAL,
		sinkPath: '/delivered',
	});
}

/**
 * Version 2, as the editor saves it: Selected Forms with the forms' IDs, Trigger On "New
 * Response", On Activation "Every Response Since a Date, Then New Ones" from `sinceIso`.
 */
function selectedFormsWorkflow(sinkUrl: string, formIds: string[], sinceIso: string): IDataObject {
	return proofWorkflow(sinkUrl, {
		id: SELECTED_WORKFLOW_ID,
		name: 'Forms.wtf e2e: selected forms, exactly once',
		typeVersion: 2,
		parameters: {
			event: 'newResponse',
			watch: 'selectedForms',
			formIds,
			onActivation: 'since',
			submittedSince: sinceIso,
			options: {},
		},
		credential: SELECTED_CREDENTIAL,
		sinkPath: '/selected',
	});
}

/**
 * FORMSWTF_E2E_PROOF_SETUPS=default|durable runs one setup; FORMSWTF_E2E_N8N_LOG=<file> keeps
 * n8n's whole output there (it is long: debug level). Each setup has a Forms.wtf API of its
 * own, so that its faults and restarts touch no other suite: the proofs run beside them.
 */
export async function runTriggerProofs(context: ProofContext): Promise<void> {
	const major = Number(context.version.split('.')[0]);
	const setups = (process.env.FORMSWTF_E2E_PROOF_SETUPS ?? 'default,durable').split(',');
	const prove = async (setup: string, env: NodeJS.ProcessEnv) => {
		const harness = await startHarness({ rateLimit: false, largeFormResponses: LARGE_FORM });
		try {
			await proveSetup({ ...context, harness }, setup, env);
		} finally {
			await harness.close();
		}
	};
	if (setups.includes('default')) await prove('default scheduler', {});
	if (major >= 2 && setups.includes('durable'))
		await prove('durable scheduler and cursors', DURABLE_SCHEDULER_ENV);
}

async function proveSetup(
	context: ProofContext & { harness: RunningHarness },
	setup: string,
	env: NodeJS.ProcessEnv,
): Promise<void> {
	const { version, harness } = context;
	const label = (what: string) => `${version}, ${setup}: ${what}`;
	const instance = await N8nInstance.prepare(version);
	const startedMs = Date.now();
	const sink = new Sink();
	const sinkUrl = await sink.start();
	// Below the range the system gives outgoing connections, and apart from the other lane's.
	const port = 17678 + (process.pid % 1000);
	const selectedForms = await Promise.all(
		SELECTED_FIXTURES.map((fixture) => harness.control.form(fixture)),
	);
	const unselected = await harness.control.form(UNSELECTED_FIXTURE);
	const selectedIds = new Set(selectedForms.map((form) => form.id));
	/** Every response submitted, with its form; `beforeStart`: submitted before n8n first started. */
	const submitted: Array<{ id: string; formId: string; beforeStart: boolean }> = [];
	const expectedAll = () =>
		submitted.filter((response) => !response.beforeStart).map((response) => response.id);
	const expectedSelected = () =>
		submitted.filter((response) => selectedIds.has(response.formId)).map((response) => response.id);
	const deliveredOn = (path: string) =>
		sink.on(path).map((request) => {
			const body = JSON.parse(request.body.toString('utf8')) as IDataObject;
			return { id: String(body.id), formId: String(body.formId) };
		});
	let discardedPolls = 0;
	let server: ChildProcess | undefined;
	// Debug level: n8n 2.x says so when it discards a poll's result ("… superseded workflow").
	const start = () =>
		(server = instance.start(
			port,
			(line) => {
				if (process.env.FORMSWTF_E2E_N8N_LOG)
					appendFileSync(process.env.FORMSWTF_E2E_N8N_LOG, `${label(line)}\n`);
				if (/Discarding in-flight poll result/i.test(line)) discardedPolls++;
				if (
					/discard|superseded|poll cursor|Forms\.wtf Trigger: poll failed|There was a problem/i.test(
						line,
					)
				)
					log(label(`n8n: ${line.slice(0, 300)}`));
			},
			{ env: { N8N_LOG_LEVEL: 'debug', ...env } },
		));
	const submit = async (fixture: string, count: number, beforeStart = false) => {
		const form = await harness.control.form(fixture);
		const responses = await harness.control.submitResponses(
			form.id,
			Array.from({ length: count }, () => ({})),
		);
		submitted.push(
			...responses.map((response) => ({ id: response.id, formId: form.id, beforeStart })),
		);
	};
	const waitForAll = async (what: string) => {
		const waits = [
			sink.waitFor('/delivered', expectedAll().length, DELIVERY_WAIT_MS),
			sink.waitFor('/selected', expectedSelected().length, DELIVERY_WAIT_MS),
		];
		for (const outcome of await Promise.allSettled(waits)) {
			if (outcome.status === 'rejected')
				log(label(`${what}: ${(outcome.reason as Error).message}`));
		}
	};
	const exactlyOnce = (what: string) => {
		const expected = expectedAll();
		const ids = deliveredOn('/delivered').map((item) => item.id);
		const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
		const missing = expected.filter((id) => !ids.includes(id));
		const extra = ids.filter((id) => !expected.includes(id));
		check(
			label(what),
			twice.length === 0 && missing.length === 0 && extra.length === 0,
			`${ids.length} delivered of ${expected.length}; twice ${twice.length}, missing ${missing.length}, not expected ${extra.length}`,
		);
		// Selected Forms: the responses of the two selected forms, each once, each naming its form;
		// nothing of the third form, nothing from before the date.
		const wanted = expectedSelected();
		const formOf = new Map(submitted.map((response) => [response.id, response.formId]));
		const items = deliveredOn('/selected');
		const selectedIdsDelivered = items.map((item) => item.id);
		const selectedTwice = selectedIdsDelivered.filter(
			(id, i) => selectedIdsDelivered.indexOf(id) !== i,
		);
		const selectedMissing = wanted.filter((id) => !selectedIdsDelivered.includes(id));
		const ofUnselected = items.filter(
			(item) => item.formId === unselected.id || formOf.get(item.id) === unselected.id,
		);
		const other = items.filter((item) => !wanted.includes(item.id) && !ofUnselected.includes(item));
		const misnamed = items.filter(
			(item) => formOf.has(item.id) && formOf.get(item.id) !== item.formId,
		);
		check(
			label(`Selected Forms (2 of 3 forms): ${what}`),
			selectedTwice.length === 0 &&
				selectedMissing.length === 0 &&
				ofUnselected.length === 0 &&
				other.length === 0 &&
				misnamed.length === 0,
			`${items.length} delivered of ${wanted.length}; twice ${selectedTwice.length}, missing ${selectedMissing.length}, ` +
				`of the unselected form ${ofUnselected.length}, other ${other.length}, wrong formId ${misnamed.length}`,
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
			{
				...SELECTED_CREDENTIAL,
				type: 'formsWtfApi',
				data: { apiKey: harness.keys.business, baseUrl: harness.baseUrl },
			},
		]);
		// Every response since this moment is the Selected Forms trigger's to emit.
		const sinceIso = new Date().toISOString();
		await instance.importJson('workflow', [
			allFormsWorkflow(sinkUrl),
			selectedFormsWorkflow(
				sinkUrl,
				selectedForms.map((form) => form.id),
				sinceIso,
			),
		]);
		await instance.activate(WORKFLOW_ID, env);
		await instance.activate(SELECTED_WORKFLOW_ID, env);
		// After the date, before activation: the Selected Forms trigger emits it, All Forms does not.
		await submit('feedback', 1, true);
		await harness.control.clearRequestLog();
		start();
		const session = await instance.ownerSession(port);
		await waitUntil(
			async () =>
				(await listings(harness, ALL_PLAN)).length >= 1 &&
				(await listings(harness, SELECTED_PLAN)).length >= 1,
			120_000,
		);
		log(label(`both triggers are active`));
		// What the activation poll's read of a form sees counts as existing: the proofs submit
		// once that poll is over (the next poll of each trigger has begun).
		if (!setup.startsWith('durable')) await waitForPolls(harness, 1);
		if (setup.startsWith('durable')) {
			// n8n 2.41's durable cursors keep nothing of the activation poll when it emits nothing
			// (it commits no cursor), so the first scheduled poll activates the trigger again: what
			// was submitted in between counts as existing. That gap is n8n's (see docs/trigger.md, Limits);
			// the proofs start once the trigger's state is in n8n's cursor.
			await waitUntil(
				async () => (await listings(harness, ALL_PLAN)).length >= 2,
				DELIVERY_WAIT_MS,
			);
			await waitForPolls(harness, 1);
		}
		await submit('bugs', 2);
		await submit('research', 1);
		await waitForAll('first delivery');
		exactlyOnce('responses while n8n runs, each once');

		for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
			if (server) await instance.stop(server, signal);
			log(label(`n8n stopped with ${signal}; submitting while it is down`));
			await submit('bugs', 2);
			await submit('feedback', 1);
			await submit('research', 1);
			start();
			await waitForAll(`after ${signal}`);
			exactlyOnce(
				`${signal}, responses submitted while n8n was down, each once after it started again`,
			);
		}

		// A list of forms without "bugs" for one poll of each trigger, then with it again.
		const bugs = await harness.control.form('bugs');
		await harness.control.clearRequestLog();
		await listingWithoutForBoth(harness, bugs.id);
		log(
			label(
				`lists of forms without "bugs": ${(await listings(harness)).filter((entry) => entry.fault === 'listingWithout').length}`,
			),
		);
		await submit('bugs', 1);
		await waitForAll('after the listing without a form');
		await waitForPolls(harness, 2);
		exactlyOnce('a form missing from one list of forms, nothing emitted twice');

		// Both workflows saved (and on 2.x published) while the All Forms trigger's poll is held in
		// flight.
		await harness.control.clearRequestLog();
		await submit('research', 2);
		await submit('feedback', 1);
		const publish = Number(version.split('.')[0]) >= 2;
		const held = await holdAllFormsListing(harness, async () => {
			for (const id of [WORKFLOW_ID, SELECTED_WORKFLOW_ID]) {
				const saved = await session.saveWorkflow(id, publish);
				log(label(`workflow ${id} saved while a poll was held: ${saved.detail}`));
			}
		});
		const discardedBefore = discardedPolls;
		await waitForAll('after the save');
		await waitForPolls(harness, 2);
		log(label(`lists of forms held during the save: ${held}`));
		exactlyOnce('the workflow saved while a poll was in flight: nothing lost, nothing twice');
		log(
			label(`polls whose result n8n discarded after the save: ${discardedPolls - discardedBefore}`),
		);
	} catch (error) {
		check(label('end-to-end run'), false, (error as Error).stack ?? String(error));
	} finally {
		await instance.dispose();
		await sink.close();
		log(label(`took ${Math.round((Date.now() - startedMs) / 1000)} s once n8n was installed`));
	}
}

/** The lists of forms the triggers asked for; of one trigger, by the plan of its key. */
async function listings(harness: RunningHarness, plan?: string) {
	return (await harness.control.requestLog()).filter(
		(entry) => entry.path === '/api/v1/forms' && (plan === undefined || entry.plan === plan),
	);
}

/**
 * A list of forms without `formId` for (at least) one poll of each trigger: every request gets
 * the fault (the others are answered as usual) until two lists of forms less than 45 s apart have
 * had it. Each trigger lists the forms once a minute, at a second of its own, so those two are
 * the two triggers'. (The harness answers a faulted list before it reads the key, so the request
 * log cannot say whose it was.)
 */
async function listingWithoutForBoth(harness: RunningHarness, formId: string): Promise<void> {
	await waitUntil(async () => {
		const at = (await listings(harness))
			.filter((entry) => entry.fault === 'listingWithout')
			.map((entry) => Date.parse(entry.timestamp));
		if (at.some((ms, i) => i > 0 && ms - at[i - 1] < 45_000)) return true;
		if (!(await harness.control.listFaults()).length)
			await harness.control.injectFault({ kind: 'listingWithout', formIds: [formId], times: 20 });
		return false;
	}, DELIVERY_WAIT_MS);
	await harness.control.clearFaults();
}

/** When the trigger whose key has `plan` lists the forms next: a minute after its last listing. */
async function nextListing(harness: RunningHarness, plan: string): Promise<number> {
	const last = (await listings(harness, plan)).at(-1);
	return last ? Date.parse(last.timestamp) + 60_000 : Number.NaN;
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Holds the All Forms trigger's next list of forms (a delay fault), and runs `onHeld` while it
 * is held. A fault goes to the next request, whichever trigger sends it, and n8n 2.x drops a
 * held request when the workflow is published, so the harness never learns whose it was: the
 * fault is set when the next list of forms due is the All Forms trigger's (each trigger lists
 * once a minute, at a second of its own; when both are due within 2 s, both are held). Says
 * whose listings were held.
 */
async function holdAllFormsListing(
	harness: RunningHarness,
	onHeld: () => Promise<void>,
): Promise<string> {
	const deadline = Date.now() + DELIVERY_WAIT_MS + 2 * HELD_POLL_MS;
	const heldSoFar = async () =>
		(await listings(harness)).filter((entry) => entry.fault === 'delay');
	while (Date.now() < deadline) {
		const all = await nextListing(harness, ALL_PLAN);
		const selected = await nextListing(harness, SELECTED_PLAN);
		const together = Math.abs(all - selected) < 2_000;
		if (!(Date.now() < all - 1_000 && (together || all < selected - 2_000))) {
			await sleep(500);
			continue;
		}
		const before = (await heldSoFar()).length;
		await harness.control.injectFault({ kind: 'delay', ms: HELD_POLL_MS, times: together ? 2 : 1 });
		let held = (await heldSoFar()).slice(before);
		while (held.length < (together ? 2 : 1) && Date.now() < all + 10_000) {
			await sleep(250);
			held = (await heldSoFar()).slice(before);
		}
		if (held.length) await onHeld();
		await harness.control.clearFaults();
		if (held.some((entry) => Math.abs(Date.parse(entry.timestamp) - all) < 5_000)) {
			return together ? "both triggers' (due at the same moment)" : "the All Forms trigger's";
		}
		// The All Forms trigger did not list when it was due (n8n busy, a restart): again.
	}
	throw new Error("the All Forms trigger's list of forms was never held");
}

/** Waits until each trigger has listed the forms `count` more times: polls that could emit twice have run. */
async function waitForPolls(harness: RunningHarness, count: number): Promise<void> {
	const before = await Promise.all(
		[ALL_PLAN, SELECTED_PLAN].map(async (plan) => (await listings(harness, plan)).length),
	);
	await waitUntil(async () => {
		const now = await Promise.all(
			[ALL_PLAN, SELECTED_PLAN].map(async (plan) => (await listings(harness, plan)).length),
		);
		return now.every((length, i) => length >= before[i] + count);
	}, DELIVERY_WAIT_MS);
}
