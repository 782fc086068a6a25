/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/no-dangerous-functions
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/** Starts bench/child.ts for one job and reads its report; the child is ours alone to stop. */
import { spawn, type ChildProcess } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

import type { ChildReport, Job } from './protocol';

const CHILD = resolve(__dirname, '..', 'child.ts');
const scratch = mkdtempSync(join(tmpdir(), 'formswtf-bench-'));
const running = new Set<ChildProcess>();
let counter = 0;

export interface ChildOptions {
	/** --max-old-space-size for the child, in MB (default: Node's own limit). */
	heapMB?: number;
	/** Write a V8 CPU profile of the child's measured steps into this folder. */
	cpuProfileDir?: string;
	/** Stop the child after this long. */
	timeoutMs?: number;
}

export function scratchDir(): string {
	return scratch;
}

export async function runChild(job: Job, options: ChildOptions = {}): Promise<ChildReport> {
	const id = ++counter;
	const jobPath = join(scratch, `job-${id}.json`);
	const reportPath = join(scratch, `report-${id}.json`);
	writeFileSync(jobPath, JSON.stringify(job));
	const execArgv = ['--import', 'tsx', '--expose-gc'];
	if (options.heapMB) execArgv.push(`--max-old-space-size=${options.heapMB}`);
	const child = spawn(process.execPath, [...execArgv, CHILD, jobPath, reportPath], {
		stdio: ['ignore', 'pipe', 'pipe'],
		env: {
			...process.env,
			N8N_USER_FOLDER: '',
			// The child profiles its measured steps only (not loading and warm-up).
			FORMSWTF_BENCH_CPU_PROFILE_DIR: options.cpuProfileDir ?? '',
		},
	});
	running.add(child);
	// The start (where an error's message is) and the end of what the child printed.
	let head = '';
	let tail = '';
	const keep = (chunk: Buffer) => {
		if (head.length < 2000) head += chunk.toString().slice(0, 2000 - head.length);
		tail = (tail + chunk.toString()).slice(-2000);
	};
	child.stdout?.on('data', keep);
	child.stderr?.on('data', keep);
	const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30 * 60_000);
	try {
		const { code, signal } = await new Promise<{
			code: number | null;
			signal: NodeJS.Signals | null;
		}>((done) =>
			child.on('exit', (exitCode, exitSignal) => done({ code: exitCode, signal: exitSignal })),
		);
		if (code !== 0) {
			const output = head.length < 2000 ? head : `${head}\n…\n${tail}`;
			const firstError = output.split('\n').find((line) => /Error|error:/.test(line)) ?? '';
			throw new Error(
				`child for ${job.kind} exited with ${signal ?? code}: ${firstError.trim()}\n${output.trim()}`,
			);
		}
		return JSON.parse(readFileSync(reportPath, 'utf8')) as ChildReport;
	} finally {
		clearTimeout(timer);
		running.delete(child);
		rmSync(jobPath, { force: true });
		rmSync(reportPath, { force: true });
	}
}

/** Stops the children still running (on Ctrl-C) and removes the scratch folder. */
export function stopChildren(): void {
	for (const child of running) child.kill('SIGKILL');
	rmSync(scratch, { recursive: true, force: true });
}
