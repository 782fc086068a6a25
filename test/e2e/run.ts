/**
 * `npm run test:e2e`: the packed package inside real n8n installs (the newest 1.x on Node 20,
 * and 2.x on Node 24), against the local Forms.wtf API.
 *
 * For each version: `npm pack` output installed as the Community Nodes panel installs it;
 * credentials and workflows imported with n8n's CLI; the action node's operations executed with
 * `n8n execute`; the examples run with local stand-ins for Slack, mail and the sheet; the trigger
 * workflows activated under `n8n start`, responses submitted, and every response checked to
 * reach each stand-in exactly once. Ends with a line "N passed, N failed".
 *
 * FORMSWTF_E2E_N8N="1.123.81,2.41.1" picks the versions. FORMSWTF_E2E_ONLY=trigger-proofs runs only
 * the trigger's exactly-once proofs (restarts, durable scheduler, a save during a poll, a list
 * of forms without a form; test/e2e/triggerProofs.ts).
 */
import { execFileSync } from 'child_process';
import { parse } from 'csv-parse/sync';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'fs';
import type { IDataObject } from 'n8n-workflow';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

import { startHarness } from '../harness';
import type { RunningHarness } from '../harness';
import { N8nInstance } from './n8nInstance';
import type { RawRunData } from './n8nInstance';
import { Sink } from './sink';
import { exampleWithStandIns } from './standIns';
import { runTriggerProofs } from './triggerProofs';

const VERSIONS = (process.env.FORMSWTF_E2E_N8N ?? '1.123.81,2.41.1').split(',').map((v) => v.trim()).filter(Boolean);
/** `trigger-proofs`: only the trigger's proofs; otherwise every suite, the proofs included. */
const ONLY = process.env.FORMSWTF_E2E_ONLY;
const ROOT = resolve(__dirname, '..', '..');
const PACKAGE = 'n8n-nodes-formswtf';
const LARGE_FORM = 3_000;
/** n8n polls at most once a minute: a tick, plus the time to start the workflow. */
const POLL_WAIT_MS = 150_000;

let passed = 0;
let failed = 0;

function check(name: string, ok: boolean, detail = ''): void {
	if (ok) passed++;
	else failed++;
	console.log(`${ok ? '✔' : '✘'} ${name}${detail ? ` — ${detail}` : ''}`);
}

function log(message: string): void {
	console.log(`  · ${message}`);
}

function packPackage(): string {
	log('building and packing the package');
	execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
	const out = mkdtempSync(join(tmpdir(), 'formswtf-pack-'));
	execFileSync('npm', ['pack', '--pack-destination', out], { cwd: ROOT, stdio: 'ignore' });
	const tarball = readdirSync(out).find((file) => file.endsWith('.tgz'));
	if (!tarball) throw new Error('npm pack produced no tarball');
	return join(out, tarball);
}

type Items = Array<{ json: IDataObject; binary?: Record<string, IDataObject> }>;

function outputOf(run: RawRunData | undefined, node: string): Items {
	const runs = run?.data?.resultData?.runData?.[node];
	return (runs?.[runs.length - 1]?.data?.main?.[0] ?? []) as Items;
}

const CRED_TEAM = { id: 'fwtfE2eCredTeam01', name: 'Forms.wtf (local, Team)' };
const CRED_BUSINESS = { id: 'fwtfE2eCredBiz001', name: 'Forms.wtf (local, Business)' };

function actionWorkflow(formId: string, largeId: string): IDataObject {
	const node = (name: string, y: number, parameters: IDataObject, extra: IDataObject = {}) => ({
		id: `node-${name.replace(/\W+/g, '-').toLowerCase()}`,
		name,
		type: `${PACKAGE}.formsWtf`,
		typeVersion: 1,
		position: [300, y],
		parameters,
		credentials: { formsWtfApi: CRED_TEAM },
		...extra,
	});
	const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });
	const nodes = [
		{ id: 'node-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		node('List forms', 0, { resource: 'form', operation: 'getAll' }),
		node('Get form', 150, { resource: 'form', operation: 'get', formId: byId(formId) }),
		node('All responses', 300, { resource: 'response', operation: 'getAll', formId: byId(largeId), returnAll: true }),
		node('Export CSV', 450, { resource: 'response', operation: 'export', formId: byId(formId) }),
		node('Export Merkle', 600, { resource: 'response', operation: 'export', formId: byId(formId), format: 'merkle' }, {
			credentials: { formsWtfApi: CRED_BUSINESS },
		}),
		node('Missing form', 750, { resource: 'form', operation: 'get', formId: byId('no-such-form') }, { onError: 'continueRegularOutput' }),
	];
	const targets = nodes.slice(1).map((n) => ({ node: n.name, type: 'main', index: 0 }));
	return {
		id: 'fwtfE2eActions01',
		name: 'Forms.wtf e2e: every operation',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes,
		connections: { Start: { main: [targets] } },
	};
}

async function runVersion(version: string, tarball: string, harness: RunningHarness): Promise<void> {
	console.log(`\nn8n ${version}`);
	const instance = await N8nInstance.prepare(version);
	const sink = new Sink();
	const sinkUrl = await sink.start();
	try {
		await instance.installPackage(tarball, PACKAGE);
		await instance.importJson('credentials', [
			{ ...CRED_TEAM, type: 'formsWtfApi', data: { apiKey: harness.keys.team, baseUrl: harness.baseUrl } },
			{ ...CRED_BUSINESS, type: 'formsWtfApi', data: { apiKey: harness.keys.business, baseUrl: `${harness.baseUrl}/` } },
		]);
		const feedback = await harness.control.form('feedback');
		const large = await harness.control.form('large');

		// Every operation of the action node, through `n8n execute`.
		await instance.importJson('workflow', actionWorkflow(feedback.id, large.id));
		const actions = await instance.execute('fwtfE2eActions01');
		check(`${version}: the package loads and the workflow runs`, actions.ok, actions.ok ? '' : actions.output.slice(-800));
		const own = (await harness.control.listForms()).filter((form) => form.owner === 'demo');
		check(`${version}: List Forms`, outputOf(actions.data, 'List forms').length === own.length, `${outputOf(actions.data, 'List forms').length} forms`);
		check(`${version}: Get Form`, outputOf(actions.data, 'Get form')[0]?.json.title === feedback.title);
		const all = outputOf(actions.data, 'All responses');
		check(
			`${version}: Get Responses, Return All`,
			all.length === LARGE_FORM && new Set(all.map((item) => item.json.id)).size === LARGE_FORM,
			`${all.length} responses`,
		);
		const csv = outputOf(actions.data, 'Export CSV')[0];
		check(`${version}: Export CSV to binary`, csv?.binary?.data?.mimeType === 'text/csv' && /-responses\.csv$/.test(String(csv?.json.fileName)), String(csv?.json.fileName));
		const merkle = outputOf(actions.data, 'Export Merkle')[0];
		check(`${version}: Export Merkle (Business key)`, merkle?.binary?.data !== undefined, String(merkle?.json.fileName));
		const missing = outputOf(actions.data, 'Missing form')[0];
		check(`${version}: Continue On Fail error item`, missing?.json.error === 'Form "no-such-form" was not found', String(missing?.json.error));
		check(`${version}: the API key appears in no output`, !JSON.stringify(actions.data).includes(harness.keys.team));

		// The daily CSV mail example, with the mail server stood in for.
		const mailWorkflow = exampleWithStandIns('daily-csv-export-by-email.json', {
			id: 'fwtfE2eMailCsv01',
			formId: feedback.id,
			credential: CRED_TEAM,
			sinkUrl,
		});
		await instance.importJson('workflow', mailWorkflow);
		const mailed = await instance.execute('fwtfE2eMailCsv01');
		const mail = sink.on('/mail')[0];
		const rows = mail ? (parse(mail.body, { columns: true }) as unknown[]).length : 0;
		check(
			`${version}: example "daily CSV export by email"`,
			mailed.ok && rows === feedback.responseCount,
			mailed.ok ? `a CSV of ${rows} responses mailed` : mailed.output.slice(-800),
		);

		// The trigger examples, active under `n8n start`.
		for (const [file, id] of [
			['new-response-to-slack.json', 'fwtfE2eSlack0001'],
			['responses-to-google-sheet.json', 'fwtfE2eSheet0001'],
		] as const) {
			await instance.importJson('workflow', exampleWithStandIns(file, { id, formId: feedback.id, credential: CRED_TEAM, sinkUrl }));
			await instance.activate(id);
		}
		await harness.control.clearRequestLog();
		const port = 15678 + (process.pid % 1000);
		// n8n's own log is long (and, offline, full of failed calls home); keep what concerns us.
		instance.start(port, (line) => {
			if (/formswtf|forms\.wtf/i.test(line)) log(`n8n: ${line.slice(0, 300)}`);
		});
		await checkCredentialTest(instance, port, harness);
		log('waiting for both triggers to activate (their first poll)');
		await waitUntil(async () => {
			const polls = (await harness.control.requestLog()).filter((entry) => entry.path.endsWith(`/forms/${feedback.id}/responses`));
			return polls.length >= 2;
		}, 120_000);
		const first = await harness.control.submitResponses(feedback.id, [{}, {}, {}]);
		log('3 responses submitted; waiting for the next polls');
		await Promise.all([sink.waitFor('/slack', 3, POLL_WAIT_MS), sink.waitFor('/sheet', 3, POLL_WAIT_MS)]).catch((error: Error) => log(error.message));
		const second = await harness.control.submitResponses(feedback.id, [{}, {}]);
		log('2 more submitted; waiting again');
		await Promise.all([sink.waitFor('/slack', 5, POLL_WAIT_MS), sink.waitFor('/sheet', 5, POLL_WAIT_MS)]).catch((error: Error) => log(error.message));
		const expected = [...first, ...second].map((response) => response.id).sort();
		const slackIds = sink.on('/slack').map((request) => String((JSON.parse(request.body.toString('utf8')) as IDataObject).responseId)).sort();
		const sheetIds = sink.on('/sheet').map((request) => String((JSON.parse(request.body.toString('utf8')) as IDataObject)['Response ID'])).sort();
		check(`${version}: trigger → Slack example: each new response once`, JSON.stringify(slackIds) === JSON.stringify(expected), `${slackIds.length} of ${expected.length}`);
		check(`${version}: trigger → sheet example: each new response once`, JSON.stringify(sheetIds) === JSON.stringify(expected), `${sheetIds.length} of ${expected.length}`);
		const text = sink.on('/slack')[0] ? String((JSON.parse(sink.on('/slack')[0].body.toString('utf8')) as IDataObject).text) : '';
		check(`${version}: the Slack message carries the answers`, text.includes('•'), text.split('\n')[0]);
	} catch (error) {
		check(`${version}: end-to-end run`, false, (error as Error).stack ?? String(error));
	} finally {
		await instance.dispose();
		await sink.close();
	}
}

/**
 * The credential's Save button: n8n runs the credential's test request. n8n 2.x shows the
 * credential's own message for each status; n8n 1.123's tester shows its generic message for
 * the status instead, so there the check is that each failure is reported, each differently.
 */
async function checkCredentialTest(instance: N8nInstance, port: number, harness: RunningHarness): Promise<void> {
	const session = await instance.ownerSession(port);
	const test = (name: string, apiKey: string, baseUrl: string) =>
		session.testCredential('formsWtfApi', name, { apiKey, baseUrl });
	const ok = await test('valid key', harness.keys.team, `${harness.baseUrl}/`);
	const cases = {
		revoked: [await test('revoked key', harness.keys.revoked, harness.baseUrl), /revoked/],
		plan: [await test('plan below Team', harness.keys.pro, harness.baseUrl), /Team plan/],
		path: [await test('base URL without /api/v1', harness.keys.team, harness.origin), /end in \/api\/v1/],
		down: [await test('server down', harness.keys.team, 'http://127.0.0.1:9/api/v1'), /ECONNREFUSED|refused/],
	} as const;
	check(`${instance.version}: credential test accepts a valid key`, ok.status === 'OK', ok.message);
	const failures = Object.values(cases).map(([result]) => result);
	const own = instance.major >= 2;
	for (const [name, [result, expected]] of Object.entries(cases)) {
		const words = own || name === 'down' ? expected.test(result.message) : true;
		check(`${instance.version}: credential test reports "${name}"`, result.status === 'Error' && words, result.message);
	}
	check(
		`${instance.version}: each credential failure has its own message`,
		new Set(failures.map((result) => result.message)).size === failures.length,
	);
}

function report(): void {
	console.log(`\n${passed} passed, ${failed} failed`);
	if (process.env.FORMSWTF_E2E_RESULTS) writeFileSync(process.env.FORMSWTF_E2E_RESULTS, JSON.stringify({ passed, failed }));
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (await condition()) return;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	throw new Error(`condition not met within ${timeoutMs} ms`);
}

async function main(): Promise<void> {
	const tarball = packPackage();
	const harness = await startHarness({ rateLimit: false, largeFormResponses: LARGE_FORM });
	try {
		for (const version of VERSIONS) {
			if (ONLY !== 'trigger-proofs') await runVersion(version, tarball, harness);
			console.log(`\nn8n ${version}: the trigger's exactly-once proofs`);
			await runTriggerProofs({ version, tarball, harness, check, log });
		}
	} finally {
		await harness.close();
		rmSync(join(tarball, '..'), { recursive: true, force: true });
	}
	report();
	process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

main().catch((error: unknown) => {
	console.error(error);
	failed++;
	report();
	process.exit(1);
});
