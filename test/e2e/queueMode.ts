/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The package in n8n's queue mode, the distributed setup teams scale on: one main (triggers,
 * webhooks, the editor) and two workers (`n8n worker`) that run the executions from a Redis
 * queue, all on one Postgres database. Postgres and Redis are the test's own processes on
 * 127.0.0.1 (see services.ts); each n8n process has its own user folder with the package
 * installed as the Community Nodes panel installs it, as on separate machines.
 *
 * Checks, on n8n 2.41.1 (FORMSWTF_E2E_QUEUE_N8N picks another 2.x):
 * - every operation of the action node, run by a webhook call on the main, runs on a worker;
 * - the mail example's Export writes its file through binary data mode `database` (queue
 *   mode's default; nothing is configured for it) and a file of several MB reaches the mail
 *   stand-in byte for byte;
 * - the Slack and sheet examples' triggers (polled on the main) deliver each response exactly
 *   once while responses arrive, across a worker killed with SIGKILL while it delivers one,
 *   and across a restart of the main with responses submitted while it is down;
 * - the Webhook Trigger with Registration Automatic: once the main has activated it, exactly one
 *   webhook at the main's Production URL in the local API, a submission runs the workflow once on
 *   a worker; after the main's restart still that one webhook and one run per submission;
 *   deactivated, no webhook left.
 * Every execution of these workflows must be enqueued by the main and started by one worker.
 *
 * The suite runs its own local API, with a form large enough for a several-MB export, so the
 * data other suites see is not changed by it.
 */
import type { ChildProcess } from 'child_process';
import { createHash } from 'crypto';
import { parse as parseFlatted } from 'flatted';
import type { IDataObject } from 'n8n-workflow';

import { startHarness } from '../harness';
import { N8nInstance } from './n8nInstance';
import type { RawRunData } from './n8nInstance';
import { check, log, waitUntil } from './report';
import type { E2eContext } from './run';
import {
	ensureDebianPackages,
	freePort,
	POSTGRES_PACKAGES,
	startPostgres,
	startRedis,
} from './services';
import type { RunningPostgres, RunningService } from './services';
import { Sink } from './sink';
import { deliveredResponseIds, exampleWithStandIns, withWebhookStart } from './standIns';
import {
	AUTO_HOOK_ID,
	AUTO_WORKFLOW_ID,
	automaticWorkflow,
	ownerRest,
	productionUrl,
	setActive,
	webhooksAt,
} from './webhook';
import {
	actionWorkflow,
	checkActionRun,
	CRED_TEAM,
	localCredentials,
	outputOf,
	PACKAGE,
} from './workflows';

export const QUEUE_N8N = process.env.FORMSWTF_E2E_QUEUE_N8N ?? '2.41.1';
const VERSION = QUEUE_N8N;
const LABEL = `queue mode, n8n ${VERSION}`;
/** About 200 bytes of CSV per response: a file of about 5 MB. */
const EXPORT_RESPONSES = 25_000;
const SEVERAL_MB = 4 * 1024 * 1024;
/** n8n polls at most once a minute: a tick, plus the time to start the workflow on a worker. */
const POLL_WAIT_MS = 150_000;
const START_WAIT_MS = 240_000;

const WORKFLOWS = {
	actions: { id: 'fwtfE2eActions01', path: 'formswtf-e2e-actions' },
	mail: { id: 'fwtfE2eMailCsv01', path: 'formswtf-e2e-mail' },
	slack: { id: 'fwtfE2eSlack0001' },
	sheet: { id: 'fwtfE2eSheet0001' },
} as const;

/** One n8n process of the setup and everything it logged (a restarted main keeps its lines). */
interface N8nProcess {
	name: string;
	instance: N8nInstance;
	child?: ChildProcess;
	lines: string[];
}

interface Execution {
	id: string;
	status: string;
	mode: string;
}

const startedOn = (id: string) => new RegExp(`Worker started execution ${id} \\(`);
const enqueuedBy = (id: string) => new RegExp(`Enqueued execution ${id} \\(`);

export async function queueMode({ tarball }: E2eContext): Promise<void> {
	console.log(`\n${LABEL}: a main and two workers on Postgres and Redis`);
	const began = Date.now();
	await ensureDebianPackages(POSTGRES_PACKAGES, log);
	const harness = await startHarness({ rateLimit: false, largeFormResponses: EXPORT_RESPONSES });
	const sink = new Sink();
	const sinkUrl = await sink.start();
	const services: RunningService[] = [];
	const processes: N8nProcess[] = [];
	try {
		const postgres = await startPostgres(['n8n']);
		services.push(postgres);
		const redis = await startRedis();
		services.push(redis);
		log(`Postgres on ${postgres.port}, Redis on ${redis.port}`);
		// n8n's own settings for queue mode, the same for every process; nothing for the package.
		const main = await N8nInstance.prepare(VERSION, {
			EXECUTIONS_MODE: 'queue',
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres.host,
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: 'n8n',
			DB_POSTGRESDB_USER: 'postgres',
			DB_POSTGRESDB_PASSWORD: '',
			QUEUE_BULL_REDIS_HOST: redis.host,
			QUEUE_BULL_REDIS_PORT: String(redis.port),
		});
		processes.push({ name: 'main', instance: main, lines: [] });
		for (const name of ['worker 1', 'worker 2'])
			processes.push({ name, instance: main.another(), lines: [] });
		await Promise.all(processes.map(({ instance }) => instance.installPackage(tarball, PACKAGE)));

		const allowlist = await harness.control.form('allowlist');
		const large = await harness.control.form('large');
		const feedback = await harness.control.form('feedback');
		const waitlist = await harness.control.form('waitlist');
		const standIn = { formId: feedback.id, credential: CRED_TEAM, sinkUrl };
		await main.importJson('credentials', localCredentials(harness));
		await main.importJson('workflow', [
			withWebhookStart(actionWorkflow(allowlist.id, allowlist.id), WORKFLOWS.actions.path),
			withWebhookStart(
				exampleWithStandIns('daily-csv-export-by-email.json', {
					...standIn,
					id: WORKFLOWS.mail.id,
					formId: large.id,
				}),
				WORKFLOWS.mail.path,
			),
			exampleWithStandIns('new-response-to-slack.json', { ...standIn, id: WORKFLOWS.slack.id }),
			exampleWithStandIns('responses-to-google-sheet.json', { ...standIn, id: WORKFLOWS.sheet.id }),
			automaticWorkflow(waitlist.id, sinkUrl),
		]);
		for (const id of [...Object.values(WORKFLOWS).map((workflow) => workflow.id), AUTO_WORKFLOW_ID])
			await main.activate(id);
		log(`set up in ${seconds(began)}; starting the main and two workers`);

		const mainPort = await freePort();
		const [mainProcess, ...workers] = processes;
		await Promise.all([
			start(mainProcess, mainPort),
			...workers.map(async (worker) => start(worker, await freePort())),
		]);
		log(`all three ready after ${seconds(began)}`);

		const db = new ExecutionsTable(postgres);
		const automatic = new AutomaticProof({
			harness,
			sink,
			db,
			workers,
			mainPort,
			formId: waitlist.id,
		});
		await automatic.oneWebhookAndOneRun('once the main has activated it');

		// Every operation of the action node, started by a webhook call on the main.
		const actions = await db.runByWebhook(mainPort, WORKFLOWS.actions);
		const actionsOn = workersThatStarted(workers, actions.id);
		check(
			`${LABEL}: the action workflow runs on a worker, not on the main`,
			actions.status === 'success' && actionsOn.length === 1 && enqueued(mainProcess, actions.id),
			`execution ${actions.id} (${actions.mode}): ${actions.status}, started by ${actionsOn.join(', ') || 'no worker'}`,
		);
		await checkActionRun(LABEL, await db.runData(actions.id), harness, allowlist, allowlist);

		// Export of several MB through binary data mode `database`, then to the mail stand-in.
		const expected = await exportFile(harness.baseUrl, harness.keys.team, large.id);
		const mail = await db.runByWebhook(mainPort, WORKFLOWS.mail);
		const mailOn = workersThatStarted(workers, mail.id);
		const stored = await postgres.query(
			'n8n',
			`select "fileSize", "fileName" from binary_data where "sourceType" = 'execution' and "sourceId" = '${mail.id}'`,
		);
		const exported = outputOf(await db.runData(mail.id), 'Export responses')[0];
		check(
			`${LABEL}: Export stores its file in binary data mode "database"`,
			mail.status === 'success' &&
				stored.some(([size]) => Number(size) === expected.length) &&
				String(exported?.binary?.data?.id ?? '').startsWith('database'),
			`execution ${mail.id} on ${mailOn.join(', ') || 'no worker'}: ${stored.map(([size, name]) => `${name} ${size} bytes`).join(', ') || 'no row in binary_data'}, binary id ${String(exported?.binary?.data?.id)}`,
		);
		const attachment = sink.on('/mail')[0]?.body;
		check(
			`${LABEL}: a ${mb(expected.length)} export arrives intact in the mail stand-in`,
			expected.length >= SEVERAL_MB &&
				attachment !== undefined &&
				sha256(attachment) === sha256(expected),
			attachment
				? `${mb(attachment.length)} received, sha256 ${sha256(attachment) === sha256(expected) ? 'equal' : 'different'}`
				: 'nothing received',
		);

		// The trigger examples: polled on the main, executed on the workers.
		await waitUntil(
			async () =>
				(await harness.control.requestLog()).filter((entry) =>
					entry.path.endsWith(`/forms/${feedback.id}/responses`),
				).length >= 2,
			POLL_WAIT_MS,
			'both triggers activated',
		);
		const submitted: string[] = [];
		const submit = async (count: number) => {
			const responses = await harness.control.submitResponses(
				feedback.id,
				Array.from({ length: count }, () => ({})),
			);
			submitted.push(...responses.map((response) => response.id));
		};
		const delivered = async (what: string) => {
			log(`${what}; waiting for the polls`);
			await Promise.all([
				sink.waitFor('/slack', submitted.length, POLL_WAIT_MS),
				sink.waitFor('/sheet', submitted.length, POLL_WAIT_MS),
			]).catch((error: Error) => log(error.message));
		};
		await submit(3);
		await delivered('3 responses submitted');

		// A worker killed with SIGKILL while it delivers a response to Slack.
		sink.hold('/slack');
		await submit(1);
		await delivered('1 more submitted, its Slack request held open');
		const inFlight = (await db.list(WORKFLOWS.slack.id)).filter(
			(execution) => execution.status === 'running',
		);
		const victim = workers.find((worker) =>
			inFlight.some((execution) => workersThatStarted([worker], execution.id).length > 0),
		);
		check(
			`${LABEL}: a worker is killed (SIGKILL) while its execution posts to Slack`,
			victim !== undefined && sink.on('/slack').length === submitted.length,
			victim
				? `${victim.name} (PID ${victim.child?.pid}) killed during execution ${inFlight.map((execution) => execution.id).join(', ')}`
				: `no worker runs a Slack execution (${inFlight.length} running)`,
		);
		if (victim?.child) await victim.instance.stop(victim.child, 'SIGKILL');
		sink.release();

		// A restart of the main, with responses submitted while it is down.
		await mainProcess.instance.stop(mainProcess.child as ChildProcess);
		await submit(2);
		log('the main stopped; 2 responses submitted while it is down; starting it again');
		await start(mainProcess, mainPort);
		await delivered('the main is back');
		await automatic.oneWebhookAndOneRun('after the main’s restart');
		await submit(1);
		await delivered('1 more submitted after the restart');

		const sorted = [...submitted].sort();
		for (const name of ['slack', 'sheet'] as const) {
			const ids = deliveredResponseIds(sink, name);
			check(
				`${LABEL}: trigger → ${name === 'slack' ? 'Slack' : 'sheet'} example: each response exactly once, across the worker kill and the main's restart`,
				JSON.stringify([...ids].sort()) === JSON.stringify(sorted),
				`${ids.length} deliveries of ${submitted.length} responses, ${new Set(ids).size} distinct`,
			);
		}
		const triggered = [
			...(await db.list(WORKFLOWS.slack.id)),
			...(await db.list(WORKFLOWS.sheet.id)),
		];
		for (const execution of triggered.filter((candidate) =>
			inFlight.some((killed) => killed.id === candidate.id),
		)) {
			log(
				`the killed execution ${execution.id} is "${execution.status}" now; n8n does not run it again (maxStalledCount 0)`,
			);
		}
		const astray = triggered.filter(
			(execution) =>
				workersThatStarted(workers, execution.id).length !== 1 ||
				!enqueued(mainProcess, execution.id),
		);
		check(
			`${LABEL}: every trigger execution was enqueued by the main and run by one worker`,
			triggered.length > 0 && astray.length === 0,
			`${triggered.length} executions (${triggered.map((execution) => `${execution.id} ${execution.status}`).join(', ')})${astray.length ? `; not: ${astray.map((execution) => execution.id).join(', ')}` : ''}`,
		);
		await automatic.deactivated();
		log(`queue mode suite took ${seconds(began)}`);
	} catch (error) {
		check(`${LABEL}: end-to-end run`, false, (error as Error).stack ?? String(error));
	} finally {
		sink.release();
		await Promise.all(processes.map(({ instance }) => instance.dispose()));
		for (const service of services.reverse()) await service.stop();
		await sink.close();
		await harness.close();
	}
}

/** Starts `n8n start` (the main) or `n8n worker` and waits until it says it is ready. */
async function start(proc: N8nProcess, port: number): Promise<void> {
	const isMain = proc.name === 'main';
	const from = proc.lines.length;
	proc.child = proc.instance.start(
		port,
		(line) => {
			proc.lines.push(line);
			if (/formswtf|forms\.wtf|Worker started execution|Enqueued execution/i.test(line))
				log(`${proc.name}: ${line.slice(0, 240)}`);
		},
		{ command: isMain ? 'start' : 'worker' },
	);
	const ready = isMain ? /Editor is now accessible via/ : /n8n worker is now ready/;
	const child = proc.child;
	await waitUntil(
		async () => {
			if (child.exitCode !== null)
				throw new Error(
					`${proc.name} exited (${child.exitCode}):\n${proc.lines.slice(-30).join('\n')}`,
				);
			return proc.lines.slice(from).some((line) => ready.test(line));
		},
		START_WAIT_MS,
		`${proc.name} ready`,
	);
}

/**
 * Registration Automatic on the main: what the local API holds at the main's Production URL,
 * and the runs a submission starts (each on a worker).
 */
class AutomaticProof {
	private firstWebhooks?: number[];

	constructor(
		private readonly setup: {
			harness: Awaited<ReturnType<typeof startHarness>>;
			sink: Sink;
			db: ExecutionsTable;
			workers: N8nProcess[];
			mainPort: number;
			formId: string;
		},
	) {}

	private async ours() {
		const { harness, formId, mainPort } = this.setup;
		return await webhooksAt(harness, formId, productionUrl(mainPort, AUTO_HOOK_ID));
	}

	/** Exactly one webhook (the first one seen, later), and one run on a worker per submission. */
	async oneWebhookAndOneRun(when: string): Promise<void> {
		const { harness, sink, db, workers, formId } = this.setup;
		await waitUntil(async () => (await this.ours()).length > 0, 60_000, 'the webhook added').catch(
			() => undefined,
		);
		const held = (await this.ours()).map((webhook) => webhook.id);
		this.firstWebhooks ??= held;
		check(
			`${LABEL}: Registration Automatic, ${when}: exactly one webhook at the main’s Production URL${this.firstWebhooks === held ? '' : ', the same as before'}`,
			held.length === 1 && JSON.stringify(held) === JSON.stringify(this.firstWebhooks),
			`${JSON.stringify(held)} (first seen ${JSON.stringify(this.firstWebhooks)})`,
		);
		const runs = sink.on('/auto').length;
		const before = new Set((await db.list(AUTO_WORKFLOW_ID)).map((execution) => execution.id));
		const response = await harness.control.submitResponse(formId);
		await sink.waitFor('/auto', runs + 1, 60_000).catch((error: Error) => log(error.message));
		await new Promise((resolve) => setTimeout(resolve, 2_000));
		const started = sink
			.on('/auto')
			.slice(runs)
			.map((request) => (JSON.parse(request.body.toString('utf8')) as IDataObject).id);
		const executions = (await db.list(AUTO_WORKFLOW_ID)).filter((run) => !before.has(run.id));
		const onWorkers = executions.flatMap((run) => workersThatStarted(workers, run.id));
		check(
			`${LABEL}: Registration Automatic, ${when}: a submission runs the workflow once, on a worker`,
			started.length === 1 && started[0] === response.id && onWorkers.length === 1,
			`${started.length} runs; executions ${executions.map((run) => `${run.id} ${run.status}`).join(', ') || 'none'} started by ${onWorkers.join(', ') || 'no worker'}`,
		);
	}

	async deactivated(): Promise<void> {
		const rest = await ownerRest(this.setup.mainPort);
		const answer = await setActive(rest, 2, AUTO_WORKFLOW_ID, false);
		await waitUntil(
			async () => (await this.ours()).length === 0,
			30_000,
			'the webhook removed',
		).catch(() => undefined);
		const left = await this.ours();
		check(
			`${LABEL}: Registration Automatic: deactivated on the main, no webhook of it left`,
			left.length === 0,
			`${JSON.stringify(left)}; ${answer.slice(0, 200)}`,
		);
	}
}

function workersThatStarted(workers: N8nProcess[], executionId: string): string[] {
	return workers
		.filter((worker) => worker.lines.some((line) => startedOn(executionId).test(line)))
		.map((worker) => worker.name);
}

function enqueued(main: N8nProcess, executionId: string): boolean {
	return main.lines.some((line) => enqueuedBy(executionId).test(line));
}

/** The executions as n8n stores them in Postgres (what the editor's execution list shows). */
class ExecutionsTable {
	constructor(private readonly postgres: RunningPostgres) {}

	async list(workflowId: string): Promise<Execution[]> {
		const rows = await this.postgres.query(
			'n8n',
			`select id, status, mode from execution_entity where "workflowId" = '${workflowId}' order by id`,
		);
		return rows.map(([id, status, mode]) => ({ id, status, mode }));
	}

	/** Calls the workflow's production webhook on the main and waits for the execution's end. */
	async runByWebhook(port: number, workflow: { id: string; path: string }): Promise<Execution> {
		const before = new Set((await this.list(workflow.id)).map((execution) => execution.id));
		// The main says it is ready before it has registered every active workflow's webhook
		// (seen on a busy machine): until then it answers 404 "not registered".
		await waitUntil(
			async () => {
				const response = await fetch(`http://127.0.0.1:${port}/webhook/${workflow.path}`, {
					method: 'POST',
				});
				const answer = `${response.status} ${await response.text()}`;
				if (response.ok) return true;
				if (response.status === 404 && answer.includes('not registered')) return false;
				throw new Error(`webhook of ${workflow.id}: ${answer}`);
			},
			60_000,
			`the webhook of ${workflow.id} registered`,
		);
		let finished: Execution | undefined;
		await waitUntil(
			async () => {
				finished = (await this.list(workflow.id)).find(
					(execution) =>
						!before.has(execution.id) && !['new', 'running', 'waiting'].includes(execution.status),
				);
				return finished !== undefined;
			},
			120_000,
			`an execution of ${workflow.id}`,
		);
		return finished as Execution;
	}

	/** The execution's run data, in the shape `n8n execute --rawOutput` prints. */
	async runData(executionId: string): Promise<RawRunData | undefined> {
		const [row] = await this.postgres.query(
			'n8n',
			`select data from execution_data where "executionId" = '${executionId}'`,
		);
		return row ? ({ data: parseFlatted(row[0]) as IDataObject } as RawRunData) : undefined;
	}
}

async function exportFile(baseUrl: string, apiKey: string, formId: string): Promise<Buffer> {
	const response = await fetch(`${baseUrl}/forms/${formId}/export?format=csv`, {
		headers: { Authorization: `Bearer ${apiKey}` },
	});
	if (!response.ok) throw new Error(`export of ${formId}: ${response.status}`);
	return Buffer.from(await response.arrayBuffer());
}

function sha256(data: Buffer): string {
	return createHash('sha256').update(data).digest('hex');
}

function mb(bytes: number): string {
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function seconds(since: number): string {
	return `${Math.round((Date.now() - since) / 1000)} s`;
}
