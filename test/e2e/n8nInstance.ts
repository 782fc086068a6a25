/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/no-hardcoded-secrets,
	@n8n/community-nodes/require-node-api-error
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * A real n8n install, used as a user would: the package installed the way the Community Nodes
 * panel installs it, credentials and workflows imported through n8n's CLI, workflows executed
 * with `n8n execute`, and `n8n start` for the trigger.
 */
import { execFile, spawn } from 'child_process';
import type { ChildProcess } from 'child_process';
import {
	closeSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { promisify } from 'util';

import { stopProcess } from './services';

const run = promisify(execFile);
const INSTALL_SCRIPT = resolve(__dirname, 'install-n8n.sh');

export interface CliResult {
	code: number;
	stdout: string;
	stderr: string;
}

/** The owner account `ownerSession` creates; the editor test signs in with it. */
export const OWNER = {
	email: 'e2e@example.com',
	firstName: 'End',
	lastName: 'ToEnd',
	password: 'E2e-password-1',
} as const;

let brokerPort = 5679 + (process.pid % 200) * 3;

/** The install of each version this process asked for: its folder, once installed (and checked). */
const installs = new Map<string, Promise<string>>();

/**
 * install-n8n.sh for one version: installs it into the cache, or checks the cached install.
 * Its progress lines go to the terminal (a first install takes minutes), marked with the
 * version, as they may come between the lines of a suite that runs meanwhile. Resolves to the
 * install folder.
 */
async function runInstaller(version: string): Promise<string> {
	const child = spawn('bash', [INSTALL_SCRIPT, version], { stdio: ['ignore', 'pipe', 'pipe'] });
	let stdout = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
		for (const line of chunk.split('\n').filter(Boolean)) {
			process.stderr.write(`${line.replace(/^(\s*·)?\s*/, `  · [installer, n8n ${version}] `)}\n`);
		}
	});
	const code = await new Promise<number | null>((done) => child.once('close', done));
	if (code !== 0)
		throw new Error(`installing n8n ${version} failed (exit ${code}); see the lines above`);
	return stdout.trim().split('\n').pop() as string;
}

/** Settings for `N8nInstance.start`: `n8n start` (the default) or `n8n worker` (queue mode). */
export interface StartOptions {
	command?: 'start' | 'worker';
	/** Added to the instance's environment for this process only. */
	env?: NodeJS.ProcessEnv;
}

export class N8nInstance {
	readonly userFolder: string;
	readonly env: NodeJS.ProcessEnv;
	private readonly processes: ChildProcess[] = [];
	private cliRuns = 0;

	private constructor(
		readonly version: string,
		readonly installDir: string,
		private readonly extraEnv: NodeJS.ProcessEnv = {},
	) {
		this.userFolder = mkdtempSync(join(tmpdir(), `formswtf-e2e-n8n-${version}-`));
		const tmp = join(this.userFolder, 'tmp');
		mkdirSync(tmp);
		const nodeBin = join(installDir, '.node-bin');
		// The Node n8n 2.x runs on, relative to the install (older installs wrote an absolute path).
		const path = existsSync(nodeBin)
			? `${resolve(installDir, readFileSync(nodeBin, 'utf8').trim())}:${process.env.PATH}`
			: process.env.PATH;
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
			...extraEnv,
		};
	}

	/**
	 * Another instance of the same install, with a user folder (and task runner port) of its
	 * own: e.g. a queue-mode worker beside its main, as on another machine.
	 */
	another(env: NodeJS.ProcessEnv = {}): N8nInstance {
		return new N8nInstance(this.version, this.installDir, { ...this.extraEnv, ...env });
	}

	/**
	 * The install of this version, from the cache outside the clone; installed on first use,
	 * checked once per process (see install-n8n.sh), and waited for when `installInBackground`
	 * is installing it. `env` is added to the environment of every n8n process and CLI command of the instance
	 * (e.g. the database and queue settings of queue mode).
	 */
	static async prepare(version: string, env: NodeJS.ProcessEnv = {}): Promise<N8nInstance> {
		let install = installs.get(version);
		if (!install) {
			install = runInstaller(version);
			installs.set(version, install);
		}
		try {
			return new N8nInstance(version, await install, env);
		} catch (error) {
			// A later `prepare` of this version tries again.
			if (installs.get(version) === install) installs.delete(version);
			throw error;
		}
	}

	/**
	 * Installs these versions one after another in the background, while the caller goes on
	 * (runs the suites of a version already installed): on a new machine each install takes
	 * minutes, mostly waiting on the registry and building sqlite3. `prepare` of a version waits
	 * for its install. Versions already installed or under way are left alone.
	 */
	static installInBackground(versions: string[]): void {
		let previous: Promise<unknown> = Promise.resolve();
		for (const version of versions) {
			const existing = installs.get(version);
			if (existing) {
				previous = existing;
				continue;
			}
			const install = previous.then(
				() => runInstaller(version),
				() => runInstaller(version),
			);
			install.catch(() => undefined); // Reported by the `prepare` that waits for it.
			installs.set(version, install);
			previous = install;
		}
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
		// this.env carries no npm_config_* variable: like the panel, this npm sees only the machine's
		// own npm config and the flags below, never the project's settings.
		await run(
			'npm',
			[
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
			],
			{ cwd: packageDir, env: this.env },
		);
		writeFileSync(
			join(nodesDir, 'package.json'),
			JSON.stringify(
				{ name: 'installed-nodes', private: true, dependencies: { [name]: manifest.version } },
				null,
				2,
			),
		);
	}

	/**
	 * Runs an n8n CLI command to its end. Its stdout and stderr go to files, not pipes: n8n exits
	 * with process.exit() right after printing, and Node writes to a pipe asynchronously, so a
	 * large `--rawOutput` (megabytes of run data) was cut short now and then. Writes to a file are
	 * synchronous.
	 */
	async cli(args: string[], timeoutMs = 180_000, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
		const base = join(this.userFolder, `cli-${++this.cliRuns}`);
		const [outFd, errFd] = [openSync(`${base}.out`, 'w'), openSync(`${base}.err`, 'w')];
		try {
			const child = spawn(join(this.installDir, 'node_modules', '.bin', 'n8n'), args, {
				env: { ...this.env, ...env },
				cwd: this.userFolder,
				stdio: ['ignore', outFd, errFd],
			});
			const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
			const code = await new Promise<number>((done) => {
				child.once('error', () => done(1));
				child.once('close', (exitCode) => done(exitCode ?? 1));
			});
			clearTimeout(timer);
			return {
				code,
				stdout: readFileSync(`${base}.out`, 'utf8'),
				stderr: readFileSync(`${base}.err`, 'utf8'),
			};
		} finally {
			closeSync(outFd);
			closeSync(errFd);
			rmSync(`${base}.out`, { force: true });
			rmSync(`${base}.err`, { force: true });
		}
	}

	async importJson(kind: 'credentials' | 'workflow', data: unknown): Promise<void> {
		const file = join(this.userFolder, `import-${kind}-${Date.now()}.json`);
		writeFileSync(file, JSON.stringify(data));
		const result = await this.cli([`import:${kind}`, `--input=${file}`]);
		if (result.code !== 0)
			throw new Error(`n8n import:${kind} failed: ${result.stderr || result.stdout}`);
	}

	/** `n8n execute --id … --rawOutput`: the run's data, or the error n8n printed. */
	async execute(workflowId: string): Promise<{ ok: boolean; data?: RawRunData; output: string }> {
		const result = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput']);
		const output = `exit code ${result.code}\n${result.stdout}\n${result.stderr}`;
		const json = result.code === 0 ? rawOutputJson(result.stdout) : undefined;
		try {
			if (json !== undefined) return { ok: true, data: JSON.parse(json) as RawRunData, output };
		} catch {
			// Reported below with the whole output.
		}
		// The whole output is long (run data of thousands of items): keep it in a file to read.
		const file = join(
			this.userFolder,
			'..',
			`formswtf-e2e-execute-${this.version}-${workflowId}.log`,
		);
		writeFileSync(file, output);
		return {
			ok: false,
			output: `n8n execute printed no readable run data (exit code ${result.code}; full output in ${file})\n${result.stderr.slice(-2000)}`,
		};
	}

	/** `env`: settings the later `n8n start` runs with (the CLI must see the same). */
	async activate(workflowId: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
		const args =
			this.major >= 2
				? ['publish:workflow', `--id=${workflowId}`]
				: ['update:workflow', `--id=${workflowId}`, '--active=true'];
		const result = await this.cli(args, 180_000, env);
		if (result.code !== 0)
			throw new Error(`activating ${workflowId} failed: ${result.stderr || result.stdout}`);
	}

	/**
	 * `n8n start` (or `n8n worker`) in the background, on a port of its own; the process is
	 * stopped by `stop` or `dispose`. Several processes can share the instance's user folder, as
	 * a main and its workers share one config.
	 */
	start(port: number, log: (line: string) => void, options: StartOptions = {}): ChildProcess {
		const child = spawn(
			join(this.installDir, 'node_modules', '.bin', 'n8n'),
			[options.command ?? 'start'],
			{
				env: { ...this.env, N8N_PORT: String(port), ...options.env },
				cwd: this.userFolder,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		for (const stream of [child.stdout, child.stderr]) {
			stream?.setEncoding('utf8');
			stream?.on('data', (chunk: string) => chunk.split('\n').filter(Boolean).forEach(log));
		}
		this.processes.push(child);
		return child;
	}

	/** Stops one process this instance started, by its PID: `signal`, then SIGKILL after 20 s. */
	async stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
		await stopProcess(child, signal);
	}

	/**
	 * Waits until the REST API of the started n8n answers, then creates the owner and logs in.
	 * The editor is served from the same moment: before it, n8n answers every path with a
	 * "starting up" page and then, briefly, 404 ("Cannot GET /signin").
	 */
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
			body: JSON.stringify(OWNER),
		});
		if (!setup.ok) throw new Error(`owner setup failed: ${setup.status} ${await setup.text()}`);
		return new RestSession(base, setup.headers.get('set-cookie')?.split(';')[0] ?? '');
	}

	/** Stops every n8n process this instance started, by its PID, and removes the user folder. */
	async dispose(): Promise<void> {
		await Promise.all(this.processes.map((child) => this.stop(child)));
		rmSync(this.userFolder, { recursive: true, force: true });
	}
}

/** What `n8n execute --rawOutput` prints: the run's result data. */
export interface RawRunData {
	data?: {
		resultData?: {
			runData?: Record<
				string,
				Array<{
					data?: {
						main?: Array<Array<{
							json: Record<string, unknown>;
							binary?: Record<string, { fileName?: string; mimeType?: string; fileSize?: string }>;
						}> | null>;
					};
					error?: { message?: string };
				}>
			>;
			error?: { message?: string };
		};
	};
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
	async saveWorkflow(
		id: string,
		publish: boolean,
	): Promise<{ saved: boolean; published?: boolean; detail: string }> {
		const read = await fetch(`${this.base}/rest/workflows/${id}`, {
			headers: { cookie: this.cookie },
		});
		const workflow = ((await read.json()) as { data?: Record<string, unknown> }).data ?? {};
		const patched = await fetch(`${this.base}/rest/workflows/${id}`, {
			method: 'PATCH',
			headers: { 'Content-Type': 'application/json', cookie: this.cookie },
			body: JSON.stringify({ ...workflow, name: `${String(workflow.name)} (saved)` }),
		});
		const patchedBody = (await patched.json()) as {
			data?: Record<string, unknown>;
			message?: string;
		};
		if (!patched.ok || !publish)
			return { saved: patched.ok, detail: `PATCH ${patched.status} ${patchedBody.message ?? ''}` };
		const published = await fetch(`${this.base}/rest/workflows/${id}/activate`, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json', cookie: this.cookie },
			body: JSON.stringify({ versionId: patchedBody.data?.versionId }),
		});
		return {
			saved: true,
			published: published.ok,
			detail: `PATCH ${patched.status}, activate ${published.status} ${published.ok ? '' : (await published.text()).slice(0, 200)}`,
		};
	}

	/** Saves a credential and runs its test, as the editor does on Save. */
	async testCredential(
		type: string,
		name: string,
		data: Record<string, string>,
	): Promise<{ status: string; message: string }> {
		const created = await this.post('/credentials', { name, type, data });
		const id = String(created.data?.id ?? '');
		const tested = await this.post('/credentials/test', { credentials: { id, name, type, data } });
		return {
			status: String(tested.data?.status ?? 'no answer'),
			message: String(tested.data?.message ?? ''),
		};
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
