/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
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
 * The suite `single` runs on the oldest n8n the package supports too (FLOOR_N8N), the others on
 * the newest 1.x and 2.x. FORMSWTF_E2E_N8N="1.123.81,2.41.1" picks the versions of `single` and
 * `trigger` alike; FORMSWTF_E2E_SUITES the suites (see SUITES).
 *
 * The run goes version by version (the newest 1.x, the newest 2.x, then the others), each
 * version's suites in the order of SUITES; the trigger proofs, which bring their own API, go the
 * same way beside them. The versions are installed one after another in the background
 * meanwhile. On a new machine only the first install is waited for: the next one (about 10
 * minutes) is done while the suites of the version before it run.
 */
import { parse } from 'csv-parse/sync';
import { rmSync } from 'fs';
import type { IDataObject } from 'n8n-workflow';
import { join } from 'path';

import { startHarness } from '../harness';
import type { RunningHarness } from '../harness';
import { AGENT_N8N, agentSuite } from './agent';
import { editorSuite } from './editor';
import { N8nInstance } from './n8nInstance';
import { packPackage } from './pack';
import { QUEUE_N8N, queueMode } from './queueMode';
import { check, log, report, waitUntil } from './report';
import { Sink } from './sink';
import { exampleWithStandIns } from './standIns';
import { runTriggerProofs } from './triggerProofs';
import { webhookSuite } from './webhook';
import {
	actionWorkflow,
	checkActionRun,
	CRED_TEAM,
	LARGE_FORM,
	localCredentials,
	PACKAGE,
} from './workflows';

/**
 * The oldest n8n the package loads in: it uses NodeConnectionTypes, new in n8n 1.85 (and
 * required by n8n's community-node lint). 1.85.4 is the last patch of 1.85.
 */
const FLOOR_N8N = '1.85.4';
const CHOSEN = process.env.FORMSWTF_E2E_N8N?.split(',')
	.map((v) => v.trim())
	.filter(Boolean);
/** The newest 1.x (Node 20) and 2.x (Node 24). */
const VERSIONS = CHOSEN ?? ['1.123.81', '2.41.1'];
const SINGLE_VERSIONS = CHOSEN ?? [FLOOR_N8N, ...VERSIONS];
/** The editor suite's n8n (test/e2e/editor.ts). */
const EDITOR_N8N = process.env.FORMSWTF_EDITOR_N8N ?? '2.41.1';
/** n8n polls at most once a minute: a tick, plus the time to start the workflow. */
const POLL_WAIT_MS = 150_000;

async function runVersion(
	version: string,
	tarball: string,
	harness: RunningHarness,
): Promise<void> {
	console.log(`\nn8n ${version}`);
	const instance = await N8nInstance.prepare(version);
	const sink = new Sink();
	const sinkUrl = await sink.start();
	try {
		await instance.installPackage(tarball, PACKAGE);
		await instance.importJson('credentials', localCredentials(harness));
		const feedback = await harness.control.form('feedback');
		const large = await harness.control.form('large');

		// Every operation of the action node, through `n8n execute`.
		await instance.importJson('workflow', actionWorkflow(feedback.id, large.id));
		const actions = await instance.execute('fwtfE2eActions01');
		check(
			`${version}: the package loads and the workflow runs`,
			actions.ok,
			actions.ok ? '' : actions.output.slice(-800),
		);
		await checkActionRun(version, actions.data, harness, feedback, large);

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
			await instance.importJson(
				'workflow',
				exampleWithStandIns(file, { id, formId: feedback.id, credential: CRED_TEAM, sinkUrl }),
			);
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
			const polls = (await harness.control.requestLog()).filter((entry) =>
				entry.path.endsWith(`/forms/${feedback.id}/responses`),
			);
			return polls.length >= 2;
		}, 120_000);
		const first = await harness.control.submitResponses(feedback.id, [{}, {}, {}]);
		log('3 responses submitted; waiting for the next polls');
		await Promise.all([
			sink.waitFor('/slack', 3, POLL_WAIT_MS),
			sink.waitFor('/sheet', 3, POLL_WAIT_MS),
		]).catch((error: Error) => log(error.message));
		const second = await harness.control.submitResponses(feedback.id, [{}, {}]);
		log('2 more submitted; waiting again');
		await Promise.all([
			sink.waitFor('/slack', 5, POLL_WAIT_MS),
			sink.waitFor('/sheet', 5, POLL_WAIT_MS),
		]).catch((error: Error) => log(error.message));
		const expected = [...first, ...second].map((response) => response.id).sort();
		const slackIds = sink
			.on('/slack')
			.map((request) =>
				String((JSON.parse(request.body.toString('utf8')) as IDataObject).responseId),
			)
			.sort();
		const sheetIds = sink
			.on('/sheet')
			.map((request) =>
				String((JSON.parse(request.body.toString('utf8')) as IDataObject)['Response ID']),
			)
			.sort();
		check(
			`${version}: trigger → Slack example: each new response once`,
			JSON.stringify(slackIds) === JSON.stringify(expected),
			`${slackIds.length} of ${expected.length}`,
		);
		check(
			`${version}: trigger → sheet example: each new response once`,
			JSON.stringify(sheetIds) === JSON.stringify(expected),
			`${sheetIds.length} of ${expected.length}`,
		);
		const text = sink.on('/slack')[0]
			? String((JSON.parse(sink.on('/slack')[0].body.toString('utf8')) as IDataObject).text)
			: '';
		check(
			`${version}: the Slack message carries the answers`,
			text.includes('•'),
			text.split('\n')[0],
		);
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
async function checkCredentialTest(
	instance: N8nInstance,
	port: number,
	harness: RunningHarness,
): Promise<void> {
	const session = await instance.ownerSession(port);
	const test = (name: string, apiKey: string, baseUrl: string) =>
		session.testCredential('formsWtfApi', name, { apiKey, baseUrl });
	const ok = await test('valid key', harness.keys.team, `${harness.baseUrl}/`);
	const cases = {
		revoked: [await test('revoked key', harness.keys.revoked, harness.baseUrl), /revoked/],
		plan: [await test('plan below Team', harness.keys.pro, harness.baseUrl), /Team plan/],
		path: [
			await test('base URL without /api/v1', harness.keys.team, harness.origin),
			/end in \/api\/v1/,
		],
		down: [
			await test('server down', harness.keys.team, 'http://127.0.0.1:9/api/v1'),
			/ECONNREFUSED|refused/,
		],
	} as const;
	check(`${instance.version}: credential test accepts a valid key`, ok.status === 'OK', ok.message);
	const failures = Object.values(cases).map(([result]) => result);
	const own = instance.major >= 2;
	for (const [name, [result, expected]] of Object.entries(cases)) {
		const words = own || name === 'down' ? expected.test(result.message) : true;
		check(
			`${instance.version}: credential test reports "${name}"`,
			result.status === 'Error' && words,
			result.message,
		);
	}
	check(
		`${instance.version}: each credential failure has its own message`,
		new Set(failures.map((result) => result.message)).size === failures.length,
	);
}

/**
 * The suites, each run against one harness and one packed tarball. FORMSWTF_E2E_SUITES picks
 * some by name (comma-separated); all run by default.
 */
export interface E2eContext {
	tarball: string;
	harness: RunningHarness;
}
/**
 * A suite runs once for each of its versions. A suite `alone` brings its own Forms.wtf API and
 * n8n, so it runs beside the others: the trigger proofs spend most of their half hour waiting for
 * n8n's polls (one a minute).
 */
const SUITES: Array<{
	name: string;
	versions: string[];
	alone?: boolean;
	run: (context: E2eContext, version: string) => Promise<void>;
}> = [
	{
		name: 'single',
		versions: SINGLE_VERSIONS,
		run: async ({ tarball, harness }, version) => await runVersion(version, tarball, harness),
	},
	{
		name: 'trigger',
		versions: VERSIONS,
		alone: true,
		run: async ({ tarball }, version) => {
			console.log(`\nn8n ${version}: the trigger's exactly-once proofs (beside the other suites)`);
			await runTriggerProofs({ version, tarball });
		},
	},
	{ name: 'webhook', versions: VERSIONS, run: webhookSuite },
	{ name: 'queue', versions: [QUEUE_N8N], run: queueMode },
	{ name: 'editor', versions: [EDITOR_N8N], run: editorSuite },
	{ name: 'agent', versions: [AGENT_N8N], run: agentSuite },
];
type Suite = (typeof SUITES)[number];

/** Runs the suites one after another, version by version; each failure becomes a failed check. */
async function runInOrder(
	jobs: Array<{ suite: Suite; version: string }>,
	context: E2eContext,
): Promise<void> {
	for (const { suite, version } of jobs) {
		try {
			await suite.run(context, version);
		} catch (error) {
			const detail = (error instanceof Error && error.stack) || String(error);
			check(`suite "${suite.name}" on n8n ${version}`, false, detail);
		}
	}
}

async function main(): Promise<void> {
	const wanted = (process.env.FORMSWTF_E2E_SUITES ?? '')
		.split(',')
		.map((name) => name.trim())
		.filter(Boolean);
	const suites = wanted.length ? SUITES.filter((suite) => wanted.includes(suite.name)) : SUITES;
	const versions = [...new Set([...VERSIONS, ...suites.flatMap((suite) => suite.versions)])].filter(
		(version) => suites.some((suite) => suite.versions.includes(version)),
	);
	N8nInstance.installInBackground(versions);
	log('building and packing the package');
	const tarball = packPackage();
	const harness = await startHarness({ rateLimit: false, largeFormResponses: LARGE_FORM });
	const jobs = versions.flatMap((version) =>
		suites.filter((suite) => suite.versions.includes(version)).map((suite) => ({ suite, version })),
	);
	try {
		// runInOrder reports every failure as a check and never throws: each lane runs to its end.
		const lanes = [jobs.filter((job) => job.suite.alone), jobs.filter((job) => !job.suite.alone)];
		await Promise.all(lanes.map((lane) => runInOrder(lane, { tarball, harness })));
	} finally {
		await harness.close();
		rmSync(join(tarball, '..'), { recursive: true, force: true });
	}
	process.exit(report() ? 0 : 1);
}

main().catch((error: unknown) => {
	console.error(error);
	check('end-to-end run', false, String(error));
	report();
	process.exit(1);
});
