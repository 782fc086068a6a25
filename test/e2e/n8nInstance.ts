/**
 * A real n8n install, used as a user would: the package installed the way the Community Nodes
 * panel installs it, credentials and workflows imported through n8n's CLI, workflows executed
 * with `n8n execute`, and `n8n start` for the trigger.
 */
import { execFile, spawn } from 'child_process';
import type { ChildProcess } from 'child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { promisify } from 'util';

const run = promisify(execFile);
const INSTALL_SCRIPT = resolve(__dirname, 'install-n8n.sh');

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

let brokerPort = 5679 + (process.pid % 200) * 3;

export class N8nInstance {
	readonly userFolder: string;
	readonly env: NodeJS.ProcessEnv;
	private server?: ChildProcess;

	private constructor(
		readonly version: string,
		readonly installDir: string,
	) {
		this.userFolder = mkdtempSync(join(tmpdir(), `formswtf-e2e-n8n-${version}-`));
		const tmp = join(this.userFolder, 'tmp');
		mkdirSync(tmp);
		const nodeBin = join(installDir, '.node-bin');
		const path = existsSync(nodeBin) ? `${readFileSync(nodeBin, 'utf8').trim()}:${process.env.PATH}` : process.env.PATH;
		this.env = {
			PATH: path,
			HOME: process.env.HOME,
			TMPDIR: tmp,
			N8N_USER_FOLDER: this.userFolder,
			N8N_ENCRYPTION_KEY: 'formswtf-e2e-fixed-encryption-key',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_EXPRESSION_ENGINE: 'legacy',
			N8N_RUNNERS_BROKER_PORT: String((brokerPort += 3)),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_SECURE_COOKIE: 'false',
			DB_SQLITE_POOL_SIZE: '1',
		};
	}

	/** The install of this version, from the cache outside the clone; installed on first use. */
	static async prepare(version: string): Promise<N8nInstance> {
		// The installer's progress lines (stderr) go to the terminal: a first install takes minutes.
		const child = spawn('bash', [INSTALL_SCRIPT, version], { stdio: ['ignore', 'pipe', 'inherit'] });
		let stdout = '';
		child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
		const code = await new Promise<number | null>((done) => child.once('close', done));
		if (code !== 0) throw new Error(`installing n8n ${version} failed (exit ${code}); see the lines above`);
		const installDir = stdout.trim().split('\n').pop() as string;
		return new N8nInstance(version, installDir);
	}

	get major(): number {
		return Number(this.version.split('.')[0]);
	}

	/**
	 * Installs a packed tarball as the Community Nodes panel does: unpacked into
	 * ~/.n8n/nodes/node_modules/<name>, its dev, peer and optional dependencies dropped, its own
	 * dependencies installed without scripts, and the package listed in ~/.n8n/nodes/package.json.
	 */
	async installPackage(tarball: string, name: string): Promise<void> {
		const nodesDir = join(this.userFolder, '.n8n', 'nodes');
		const packageDir = join(nodesDir, 'node_modules', name);
		mkdirSync(packageDir, { recursive: true });
		await run('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1']);
		const manifestPath = join(packageDir, 'package.json');
		const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(
			readFileSync(manifestPath, 'utf8'),
		) as Record<string, unknown>;
		void devDependencies;
		void peerDependencies;
		void optionalDependencies;
		writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
		await run(
			'npm',
			['install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'],
			{ cwd: packageDir, env: this.env },
		);
		writeFileSync(
			join(nodesDir, 'package.json'),
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [name]: manifest.version } }, null, 2),
		);
	}

	/** Runs an n8n CLI command to its end. */
	async cli(args: string[], timeoutMs = 180_000, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
		try {
			const { stdout, stderr } = await run(join(this.installDir, 'node_modules', '.bin', 'n8n'), args, {
				env: { ...this.env, ...env },
				cwd: this.userFolder,
				timeout: timeoutMs,
				maxBuffer: 256 * 1024 * 1024,
			});
			return { code: 0, stdout, stderr };
		} catch (error) {
			const failed = error as { code?: number; stdout?: string; stderr?: string };
			return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
		}
	}

	async importJson(kind: 'credentials' | 'workflow', data: unknown): Promise<void> {
		const file = join(this.userFolder, `import-${kind}-${Date.now()}.json`);
		writeFileSync(file, JSON.stringify(data));
		const result = await this.cli([`import:${kind}`, `--input=${file}`]);
		if (result.code !== 0) throw new Error(`n8n import:${kind} failed: ${result.stderr || result.stdout}`);
	}

	/** `n8n execute --id … --rawOutput`: the run's data, or the error n8n printed. */
	async execute(workflowId: string): Promise<{ ok: boolean; data?: RawRunData; output: string }> {
		const result = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput']);
		const output = `exit code ${result.code}\n${result.stdout}\n${result.stderr}`;
		const json = result.code === 0 ? rawOutputJson(result.stdout) : undefined;
		if (json === undefined) return { ok: false, output };
		try {
			return { ok: true, data: JSON.parse(json) as RawRunData, output };
		} catch {
			return { ok: false, output };
		}
	}

	/** `env`: settings the later `n8n start` runs with (the CLI must see the same). */
	async activate(workflowId: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
		const args =
			this.major >= 2 ? ['publish:workflow', `--id=${workflowId}`] : ['update:workflow', `--id=${workflowId}`, '--active=true'];
		const result = await this.cli(args, 180_000, env);
		if (result.code !== 0) throw new Error(`activating ${workflowId} failed: ${result.stderr || result.stdout}`);
	}

	/**
	 * `n8n start` in the background, on a port of its own, in a process group of its own (so that
	 * `stop` reaches its task runner too). `env`: settings of this start (e.g. the durable scheduler).
	 */
	start(port: number, log: (line: string) => void, env: NodeJS.ProcessEnv = {}): void {
		const child = spawn(join(this.installDir, 'node_modules', '.bin', 'n8n'), ['start'], {
			env: { ...this.env, ...env, N8N_PORT: String(port) },
			cwd: this.userFolder,
			stdio: ['ignore', 'pipe', 'pipe'],
			detached: true,
		});
		for (const stream of [child.stdout, child.stderr]) {
			stream?.setEncoding('utf8');
			stream?.on('data', (chunk: string) => chunk.split('\n').filter(Boolean).forEach(log));
		}
		this.server = child;
	}

	/** Waits until the REST API of the started n8n answers, then creates the owner and logs in. */
	async ownerSession(port: number): Promise<RestSession> {
		const base = `http://127.0.0.1:${port}`;
		const deadline = Date.now() + 120_000;
		while (Date.now() < deadline) {
			try {
				const settings = await fetch(`${base}/rest/settings`);
				if (settings.ok && (settings.headers.get('content-type') ?? '').includes('json')) break;
			} catch {
				// Not listening yet.
			}
			await new Promise((resolve) => setTimeout(resolve, 1000));
		}
		const setup = await fetch(`${base}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ email: 'e2e@example.com', firstName: 'End', lastName: 'ToEnd', password: 'E2e-password-1' }),
		});
		if (!setup.ok) throw new Error(`owner setup failed: ${setup.status} ${await setup.text()}`);
		return new RestSession(base, setup.headers.get('set-cookie')?.split(';')[0] ?? '');
	}

	/**
	 * Stops the n8n this instance started: SIGTERM (n8n shuts down) or SIGKILL (killed, as by the
	 * OOM killer), sent to its process group by the group's id, and waits until it exited.
	 */
	async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
		const child = this.server;
		this.server = undefined;
		if (!child || child.exitCode !== null || child.pid === undefined) return;
		const group = child.pid;
		const exited = new Promise((done) => child.once('exit', done));
		const signalGroup = (sent: NodeJS.Signals) => {
			try {
				process.kill(-group, sent);
			} catch {
				// The group is gone already.
			}
		};
		signalGroup(signal);
		const timer = setTimeout(() => signalGroup('SIGKILL'), 20_000);
		await exited;
		clearTimeout(timer);
		// What is left of the group (the task runner after a SIGKILL) goes too.
		signalGroup('SIGKILL');
	}

	/** Stops the n8n this instance started and removes the user folder. */
	async dispose(): Promise<void> {
		await this.stop('SIGTERM');
		rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/** What `n8n execute --rawOutput` prints: the run's result data. */
export interface RawRunData {
	data?: { resultData?: { runData?: Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown>; binary?: Record<string, { fileName?: string; mimeType?: string; fileSize?: string }> }> | null> } ; error?: { message?: string } }>>; error?: { message?: string } } };
	resultData?: { runData?: Record<string, unknown>; error?: { message?: string } };
}

/** The editor's REST API, as a logged-in user: what the credential dialog's Save does. */
export class RestSession {
	constructor(
		private readonly base: string,
		private readonly cookie: string,
	) {}

	private async post(path: string, body: unknown): Promise<{ data?: Record<string, unknown> }> {
		const response = await fetch(`${this.base}/rest${path}`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', cookie: this.cookie },
			body: JSON.stringify(body),
		});
		return (await response.json()) as { data?: Record<string, unknown> };
	}

	/**
	 * Saves the workflow as the editor's Save button does (GET it, PATCH it back with its
	 * versionId), with a changed name so that n8n has something to save. `publish`: then publish
	 * it too, as n8n 2.x's Publish button does.
	 */
	async saveWorkflow(id: string, publish: boolean): Promise<{ saved: boolean; published?: boolean; detail: string }> {
		const read = await fetch(`${this.base}/rest/workflows/${id}`, { headers: { cookie: this.cookie } });
		const workflow = ((await read.json()) as { data?: Record<string, unknown> }).data ?? {};
		const patched = await fetch(`${this.base}/rest/workflows/${id}`, {
			method: 'PATCH',
			headers: { 'Content-Type': 'application/json', cookie: this.cookie },
			body: JSON.stringify({ ...workflow, name: `${String(workflow.name)} (saved)` }),
		});
		const patchedBody = (await patched.json()) as { data?: Record<string, unknown>; message?: string };
		if (!patched.ok || !publish) return { saved: patched.ok, detail: `PATCH ${patched.status} ${patchedBody.message ?? ''}` };
		const published = await fetch(`${this.base}/rest/workflows/${id}/activate`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', cookie: this.cookie },
			body: JSON.stringify({ versionId: patchedBody.data?.versionId }),
		});
		return { saved: true, published: published.ok, detail: `PATCH ${patched.status}, activate ${published.status} ${published.ok ? '' : (await published.text()).slice(0, 200)}` };
	}

	/** Saves a credential and runs its test, as the editor does on Save. */
	async testCredential(type: string, name: string, data: Record<string, string>): Promise<{ status: string; message: string }> {
		const created = await this.post('/credentials', { name, type, data });
		const id = String(created.data?.id ?? '');
		const tested = await this.post('/credentials/test', { credentials: { id, name, type, data } });
		return { status: String(tested.data?.status ?? 'no answer'), message: String(tested.data?.message ?? '') };
	}
}

/**
 * The run data `--rawOutput` prints, as indented JSON: from a line that is `{` to the last line
 * that is `}`. n8n 2.x's task runner logs to the same stdout whenever it is ready, before the
 * JSON or after it, so the JSON is not simply the rest of stdout.
 */
export function rawOutputJson(stdout: string): string | undefined {
	const start = stdout.search(/^\{\s*$/m);
	const end = stdout.lastIndexOf('\n}');
	return start < 0 || end < start ? undefined : stdout.slice(start, end + 2);
}
