/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * One benchmark case in a process of its own, so that its memory is its own:
 * `node --import tsx --expose-gc bench/child.ts <job.json> <report.json>` (bench/run.ts starts it).
 * Loads everything, warms up on a small form, takes a GC'd baseline, then times the steps while
 * sampling memory, and counts the requests each step made in the harness's request log.
 */
import { readFileSync, rmSync, writeFileSync } from 'fs';
import { Session } from 'inspector';
import type { IDataObject } from 'n8n-workflow';
import { join } from 'path';

import { HarnessControl } from '../test/harness';
import { activatePollTrigger, configureRunner, runWorkflow } from '../test/runner';
import {
	credentialsFor,
	formById,
	nodeTypes,
	pollTrigger,
	runFormsWtf,
	triggerNode,
} from '../test/support/formsWtf';
import { testRetryPolicy } from '../test/support/retryPolicy';
import { bareDownload, bareReturnAll, closeBareAgent } from './lib/bare';
import { useInMemoryDeduplication } from './lib/dedup';
import { startManyFormsApi } from './lib/manyForms';
import { loadN8nBase, type N8nBase } from './lib/n8nBase';
import type {
	ChildReport,
	ExportJob,
	Job,
	Memory,
	PatternJob,
	ReturnAllJob,
	Step,
	Target,
	TriggerJob,
	TriggerScaleJob,
	TriggerSelectedJob,
} from './lib/protocol';
import {
	DEDUPE_NODE,
	headerAuthCredentials,
	httpReturnAllWorkflow,
	n8nBaseNodeTypes,
	schedulePatternWorkflow,
	SPLIT_NODE,
} from './lib/workflows';

const MB = 1024 * 1024;
const OUR_NODE = 'Forms.wtf';

// ---------- memory ----------

const gc = (globalThis as { gc?: () => void }).gc;

class MemorySampler {
	private timer: NodeJS.Timeout | undefined;
	private heapPeak = 0;
	private rssPeak = 0;
	private externalPeak = 0;
	readonly rssBaseline: number;
	readonly heapBaseline: number;

	constructor() {
		gc?.();
		gc?.();
		const usage = process.memoryUsage();
		this.rssBaseline = usage.rss;
		this.heapBaseline = usage.heapUsed;
	}

	start(): void {
		this.timer = setInterval(() => this.sample(), 10);
		this.timer.unref();
	}

	sample(): void {
		const usage = process.memoryUsage();
		if (usage.heapUsed > this.heapPeak) this.heapPeak = usage.heapUsed;
		if (usage.rss > this.rssPeak) this.rssPeak = usage.rss;
		if (usage.external + usage.arrayBuffers > this.externalPeak)
			this.externalPeak = usage.external + usage.arrayBuffers;
	}

	stop(): Memory {
		this.sample();
		if (this.timer) clearInterval(this.timer);
		const kernelPeak = process.resourceUsage().maxRSS * 1024;
		gc?.();
		gc?.();
		return {
			rssBaselineMB: this.rssBaseline / MB,
			rssPeakMB: Math.max(kernelPeak, this.rssPeak) / MB,
			heapBaselineMB: this.heapBaseline / MB,
			heapPeakMB: this.heapPeak / MB,
			externalPeakMB: this.externalPeak / MB,
			heapRetainedMB: process.memoryUsage().heapUsed / MB,
		};
	}
}

// ---------- CPU profile of the measured steps only (bench/run.ts --cpu-prof) ----------

const profileDir = process.env.FORMSWTF_BENCH_CPU_PROFILE_DIR;
let profileSession: Session | undefined;

function post(method: string, params?: object): Promise<unknown> {
	return new Promise((resolve, reject) =>
		profileSession?.post(method, params ?? {}, (error, result) =>
			error ? reject(error) : resolve(result),
		),
	);
}

async function startProfile(): Promise<void> {
	if (!profileDir) return;
	profileSession = new Session();
	profileSession.connect();
	await post('Profiler.enable');
	await post('Profiler.setSamplingInterval', { interval: 200 });
	await post('Profiler.start');
}

async function stopProfile(name: string): Promise<void> {
	if (!profileSession || !profileDir) return;
	const { profile } = (await post('Profiler.stop')) as { profile: object };
	writeFileSync(join(profileDir, `${name}-${process.pid}.cpuprofile`), JSON.stringify(profile));
	profileSession.disconnect();
	profileSession = undefined;
}

// ---------- request counting ----------

async function counted(
	control: HarnessControl,
	label: string,
	pathPart: string,
	work: () => Promise<{ ok: boolean; error?: string; items?: number; extra?: Step['extra'] }>,
	keepLog = false,
): Promise<Step> {
	await control.clearRequestLog();
	const started = performance.now();
	let outcome: Awaited<ReturnType<typeof work>>;
	try {
		outcome = await work();
	} catch (error) {
		outcome = { ok: false, error: error instanceof Error ? error.message : String(error) };
	}
	const wallMs = performance.now() - started;
	const log = (await control.requestLog()).filter((entry) => entry.path.includes(pathPart));
	const first = log.length ? Date.parse(log[0].timestamp) : 0;
	return {
		label,
		wallMs,
		requests: log.length,
		rateLimited: log.filter((entry) => entry.status === 429).length,
		...outcome,
		...(keepLog && {
			log: log.map((entry): [number, number | null] => [
				Date.parse(entry.timestamp) - first,
				entry.status,
			]),
		}),
	};
}

function requireBase(): N8nBase {
	const lookup = loadN8nBase();
	if (!lookup.ok) throw new Error(lookup.reason);
	return lookup.base;
}

function errorText(
	error: { message?: string; description?: string | null } | undefined,
): string | undefined {
	if (!error) return undefined;
	return [error.message, error.description].filter(Boolean).join(' — ');
}

// ---------- Return All ----------

async function returnAllOnce(job: ReturnAllJob, formId: string, apiKey: string) {
	const { baseUrl } = job.target;
	switch (job.client) {
		case 'bare':
		case 'bareNewConnection': {
			const all = await bareReturnAll(baseUrl, apiKey, formId, job.client === 'bareNewConnection');
			return { ok: true, items: all.length, keep: all };
		}
		case 'ours':
		case 'oursRaw': {
			const output = job.client === 'oursRaw' ? 'raw' : 'simplified';
			const result = await runFormsWtf({
				baseUrl,
				apiKey,
				parameters: {
					resource: 'response',
					operation: 'getAll',
					formId: formById(formId),
					returnAll: true,
					output,
				},
			});
			const items = result.status === 'success' ? result.outputOf(OUR_NODE).length : undefined;
			return {
				ok: result.status === 'success',
				error: errorText(result.error),
				items,
				keep: result,
			};
		}
		case 'http': {
			const base = requireBase();
			const result = await runWorkflow({
				workflow: httpReturnAllWorkflow(baseUrl, formId, job.http),
				nodeTypes: n8nBaseNodeTypes(base),
				credentials: headerAuthCredentials(base, apiKey),
			});
			const items = result.status === 'success' ? result.outputOf(SPLIT_NODE).length : undefined;
			return {
				ok: result.status === 'success',
				error: errorText(result.error),
				items,
				keep: result,
			};
		}
	}
}

async function returnAll(job: ReturnAllJob, control: HarnessControl): Promise<ChildReport> {
	// Waits tuned for the service's 60 s window, and Retry-After's seconds, run at the window's scale.
	if (job.retryScale !== undefined) testRetryPolicy.timeScale = job.retryScale;
	// n8n's own nodes are loaded in a real n8n process whichever node runs, and a process that
	// holds them starts with more heap committed, which absorbs a small Return All without a
	// rise in RSS. Every client's process loads them, so all start from the same heap.
	loadN8nBase();
	// Warm-up: the same client on a small form with another key (loads and JITs the code path).
	const warm = await returnAllOnce(job, job.warmFormId, job.target.warmKey);
	if (!warm.ok) throw new Error(`warm-up failed: ${warm.error ?? 'unknown'}`);

	await control.updateSettings({
		rateLimit: job.rateLimit,
		retryAfterHeader: job.retryAfterHeader,
	});
	const sampler = new MemorySampler();
	sampler.start();
	let keep: unknown;
	await startProfile();
	const step = await counted(
		control,
		job.client,
		`/forms/${job.formId}/responses`,
		async () => {
			const outcome = await returnAllOnce(job, job.formId, job.target.apiKey);
			keep = outcome.keep;
			return { ok: outcome.ok, error: outcome.error, items: outcome.items };
		},
		job.keepLog,
	);
	await stopProfile(`returnAll-${job.client}`);
	const memory = sampler.stop();
	void keep; // held until memory was read: n8n keeps an execution's output until it is saved
	const n8nBase = job.client === 'http' ? requireBase().install : undefined;
	return { steps: [step], memory, n8nBase };
}

// ---------- trigger ----------

async function trigger(job: TriggerJob, control: HarnessControl): Promise<ChildReport> {
	const sessions = job.forms.map((form, index) => ({
		...form,
		workflowId: `bench-trigger-${process.pid}-${index}`,
		staticData: {} as IDataObject,
	}));
	const poll = async (session: (typeof sessions)[number]) => {
		const result = await pollTrigger({
			baseUrl: job.target.baseUrl,
			apiKey: job.target.apiKey,
			parameters: { watch: 'form', formId: formById(session.formId), options: {} },
			mode: 'trigger',
			workflowId: session.workflowId,
			staticData: session.staticData,
			throwOnError: false,
		});
		session.staticData = result.staticData;
		const emitted = result.items?.[0]?.length ?? 0;
		return { ok: !result.error && emitted === 0, error: result.error?.message, items: emitted };
	};
	const steps: Step[] = [];
	for (const session of sessions) {
		steps.push(
			await counted(control, `${session.label}:activate`, `/forms/${session.formId}/`, () =>
				poll(session),
			),
		);
		for (let i = 0; i < 2; i++) await poll(session); // warm-up, not recorded
	}
	// No 10 ms memory sampler here: polls take milliseconds, and the sampler would be part of them.
	const sampler = new MemorySampler();
	await startProfile();
	for (let i = 0; i < job.quietPolls; i++) {
		// Interleaved, so that a busy moment of the machine hits both forms alike.
		for (const session of i % 2 === 0 ? sessions : [...sessions].reverse()) {
			steps.push(
				await counted(control, `${session.label}:quiet`, `/forms/${session.formId}/`, () =>
					poll(session),
				),
			);
		}
	}
	await stopProfile('trigger');
	return { steps, memory: sampler.stop() };
}

// ---------- trigger at scale ----------

/**
 * One activation per case, held as n8n holds it (one Workflow and poll context, polled again
 * and again), so that each poll starts from what the last one left, as in n8n.
 */
async function triggerScale(job: TriggerScaleJob, control: HarnessControl): Promise<ChildReport> {
	const steps: Step[] = [];
	const activate = async (baseUrl: string, parameters: IDataObject, pollBudgetMs?: number) =>
		(
			await activatePollTrigger({
				node: triggerNode(parameters),
				nodeTypes,
				credentials: credentialsFor(baseUrl, job.target.apiKey),
				workflowId: `bench-scale-${process.pid}-${steps.length}`,
				pollBudgetMs,
			})
		).trigger;
	for (const count of job.formCounts) {
		const api = await startManyFormsApi(job.target.baseUrl, count);
		try {
			const trigger = await activate(api.baseUrl, { watch: 'allForms', options: {} });
			const poll = async (activation: boolean) => {
				const tick = await trigger.tick({ activation });
				return { ok: !tick.error, error: tick.error?.message, items: tick.items?.[0]?.length ?? 0 };
			};
			steps.push(await counted(control, `${count}:activate`, '/forms', () => poll(true)));
			for (let i = 0; i < job.idlePolls; i++)
				steps.push(await counted(control, `${count}:idle`, '/forms', () => poll(false)));
		} finally {
			await api.close();
		}
	}
	const { formId, backfill, pollBudgetMs, recentResponses } = job.existing;
	const emitExisting = async (label: string) => {
		const trigger = await activate(
			job.target.baseUrl,
			{ watch: 'form', formId: formById(formId), options: { backfill } },
			pollBudgetMs,
		);
		let emitted = 0;
		for (let poll = 0; poll < 100 && emitted < backfill; poll++) {
			const step = await counted(control, label, `/forms/${formId}/`, async () => {
				const tick = await trigger.tick({ activation: poll === 0 });
				return { ok: !tick.error, error: tick.error?.message, items: tick.items?.[0]?.length ?? 0 };
			});
			emitted += step.items ?? 0;
			steps.push(step);
		}
	};
	await emitExisting('existing:seeded');
	const nowMs = Date.now();
	await control.submitResponses(
		formId,
		Array.from({ length: recentResponses }, (_, i) => ({
			submittedAt: new Date(
				nowMs - 60_000 - Math.floor((i / recentResponses) * 86_400_000),
			).toISOString(),
		})),
	);
	await emitExisting('existing:recent');
	return { steps, memory: new MemorySampler().stop() };
}

// ---------- Selected Forms beside single-form triggers ----------

/**
 * On an account of `totalForms` forms (the many-forms front), `watched` of them spread over the
 * listing: one Selected Forms trigger on them, and one single-form trigger on each, all version 2
 * with the defaults (Trigger On new or updated responses, only new responses on activation), on
 * the same key. Each is held as n8n holds an activation; every idle poll of the Selected Forms
 * trigger and every round of the single-form triggers (as they all poll at the same minute) is
 * counted in the harness's request log.
 */
async function triggerSelected(
	job: TriggerSelectedJob,
	control: HarnessControl,
): Promise<ChildReport> {
	const steps: Step[] = [];
	const api = await startManyFormsApi(job.target.baseUrl, job.totalForms);
	try {
		const listing = await fetch(`${api.baseUrl}/forms`, {
			headers: { Authorization: `Bearer ${job.target.apiKey}` },
		});
		const { forms } = (await listing.json()) as { forms: Array<{ id: string }> };
		const stride = Math.floor(forms.length / job.watched);
		const formIds = Array.from({ length: job.watched }, (_, i) => forms[i * stride].id);
		const common = { event: 'newOrUpdatedResponse', onActivation: 'newOnly', options: {} };
		const activate = async (parameters: IDataObject, name: string) =>
			(
				await activatePollTrigger({
					node: triggerNode(parameters, { typeVersion: 2 }),
					nodeTypes,
					credentials: credentialsFor(api.baseUrl, job.target.apiKey),
					workflowId: `bench-selected-${process.pid}-${name}`,
				})
			).trigger;
		const tickOf =
			(trigger: Awaited<ReturnType<typeof activate>>) => async (activation: boolean) => {
				const tick = await trigger.tick({ activation });
				return { ok: !tick.error, error: tick.error?.message, items: tick.items?.[0]?.length ?? 0 };
			};
		const selected = tickOf(
			await activate({ ...common, watch: 'selectedForms', formIds }, 'selected'),
		);
		const singles = await Promise.all(
			formIds.map(async (formId, i) =>
				tickOf(
					await activate({ ...common, watch: 'form', formId: formById(formId) }, `single-${i}`),
				),
			),
		);
		/** Every single-form trigger polls once: one minute of them. */
		const round = (activation: boolean) => async () => {
			let ok = true;
			let items = 0;
			let error: string | undefined;
			for (const poll of singles) {
				const outcome = await poll(activation);
				ok &&= outcome.ok;
				items += outcome.items;
				error ??= outcome.error;
			}
			return { ok, items, error };
		};
		steps.push(await counted(control, 'selected:activate', '/forms', () => selected(true)));
		steps.push(await counted(control, 'singles:activate', '/forms', round(true)));
		for (let i = 0; i < job.idlePolls; i++) {
			// Interleaved, so that a busy moment of the machine hits both alike.
			const pair = [
				async () =>
					steps.push(await counted(control, 'selected:idle', '/forms', () => selected(false))),
				async () => steps.push(await counted(control, 'singles:idle', '/forms', round(false))),
			];
			for (const measure of i % 2 === 0 ? pair : pair.reverse()) await measure();
		}
	} finally {
		await api.close();
	}
	return { steps, memory: new MemorySampler().stop() };
}

// ---------- Schedule → HTTP Request → Split Out → Remove Duplicates ----------

async function pattern(job: PatternJob, control: HarnessControl): Promise<ChildReport> {
	const base = requireBase();
	await useInMemoryDeduplication();
	const workflow = schedulePatternWorkflow(job.target.baseUrl, job.formId, job.historySize);
	const runOnce = async () => {
		const result = await runWorkflow({
			workflow,
			nodeTypes: n8nBaseNodeTypes(base),
			credentials: headerAuthCredentials(base, job.target.apiKey),
			mode: 'trigger',
			inputItems: [{ json: { timestamp: new Date().toISOString() } }],
		});
		if (result.status !== 'success') return { ok: false, error: errorText(result.error) };
		const kept = result.outputOf(DEDUPE_NODE, 0).length;
		const discarded = result.outputOf(DEDUPE_NODE, 1).length;
		return { ok: true, items: kept, extra: { kept, discarded } };
	};
	const path = `/forms/${job.formId}/responses`;
	const sampler = new MemorySampler();
	sampler.start();
	const steps: Step[] = [await counted(control, 'first run (records all)', path, runOnce)];
	await startProfile();
	for (let i = 0; i < job.runs; i++) {
		const step = await counted(control, 'run, nothing new', path, runOnce);
		if (step.ok && step.items !== 0)
			Object.assign(step, { ok: false, error: `${step.items} items kept, expected 0` });
		steps.push(step);
	}
	await stopProfile('pattern');
	return { steps, memory: sampler.stop(), n8nBase: base.install };
}

// ---------- export ----------

async function exportOnce(job: ExportJob, formId: string, apiKey: string, fileName: string) {
	const { baseUrl } = job.target;
	if (job.client === 'bare') {
		const path = join(job.scratchDir, fileName);
		try {
			return { ok: true, items: await bareDownload(baseUrl, apiKey, formId, path) };
		} finally {
			rmSync(path, { force: true });
		}
	}
	const result = await runFormsWtf({
		baseUrl,
		apiKey,
		parameters: {
			resource: 'response',
			operation: 'export',
			formId: formById(formId),
			format: 'csv',
		},
	});
	try {
		if (result.status !== 'success') return { ok: false, error: errorText(result.error) };
		// `bytes`: the stored size n8n-core records (json.fileSize is the pretty text, e.g. "50 MB").
		return { ok: true, items: result.outputOf(OUR_NODE)[0].binary?.data?.bytes };
	} finally {
		await result.dispose();
	}
}

async function exportCase(job: ExportJob, control: HarnessControl): Promise<ChildReport> {
	configureRunner({ binaryDataMode: job.binaryDataMode });
	const warm = await exportOnce(job, job.warmFormId, job.target.warmKey, `warm-${process.pid}.csv`);
	if (!warm.ok) throw new Error(`warm-up failed: ${warm.error ?? 'unknown'}`);
	const sampler = new MemorySampler();
	sampler.start();
	const label = job.client === 'bare' ? 'bare' : `ours (${job.binaryDataMode})`;
	await startProfile();
	const step = await counted(control, label, `/forms/${job.formId}/export`, () =>
		exportOnce(job, job.formId, job.target.apiKey, `export-${process.pid}.csv`),
	);
	await stopProfile(`export-${job.client}-${job.binaryDataMode}`);
	return { steps: [step], memory: sampler.stop() };
}

// ---------- main ----------

async function run(job: Job): Promise<ChildReport> {
	const control = new HarnessControl((job.target as Target).baseUrl);
	switch (job.kind) {
		case 'returnAll':
			return await returnAll(job, control);
		case 'trigger':
			return await trigger(job, control);
		case 'triggerScale':
			return await triggerScale(job, control);
		case 'triggerSelected':
			return await triggerSelected(job, control);
		case 'pattern':
			return await pattern(job, control);
		case 'export':
			return await exportCase(job, control);
	}
}

const [jobPath, reportPath] = process.argv.slice(2);
run(JSON.parse(readFileSync(jobPath, 'utf8')) as Job).then(
	(report) => {
		writeFileSync(reportPath, JSON.stringify(report));
		closeBareAgent();
		// n8n-core keeps handles open after a run (as in jest, which needs forceExit).
		process.exit(0);
	},
	(error: unknown) => {
		console.error(error instanceof Error ? error.stack : error);
		process.exit(1);
	},
);
