/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/no-dangerous-functions,
	@n8n/community-nodes/require-node-api-error
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Postgres and Redis for end-to-end runs that need them (n8n's queue mode): each started as a
 * process of the test's own, on 127.0.0.1 and a free port, with its data in a temp folder, and
 * stopped by its PID. The machine's own clusters and services are never used or touched.
 *
 * The Debian packages `postgresql` and `redis-server` are installed when missing (we run as
 * root on the test machines). Postgres refuses to run as root: its processes run as the
 * `postgres` system user the package creates, in a temp folder that user owns.
 */
import { execFile, execFileSync, spawn } from 'child_process';
import type { ChildProcess } from 'child_process';
import {
	chmodSync,
	chownSync,
	existsSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
} from 'fs';
import { createConnection, createServer } from 'net';
import type { AddressInfo } from 'net';
import { tmpdir } from 'os';
import { join } from 'path';
import { promisify } from 'util';

const run = promisify(execFile);

export interface RunningService {
	host: string;
	port: number;
	/** Stops the process by its PID (also when it already died) and removes its data folder. */
	stop(): Promise<void>;
}

export interface RunningPostgres extends RunningService {
	/** Runs one SQL statement with psql; the rows, each a list of its columns as text. */
	query(database: string, sql: string): Promise<string[][]>;
}

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

function postgresBin(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const versions = readdirSync(root)
		.filter((name) => existsSync(join(root, name, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? join(root, versions[0], 'bin') : undefined;
}

function onPath(command: string): boolean {
	try {
		execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

/**
 * Installs the Debian packages of Postgres and Redis when missing. Another job may be running
 * apt-get at the same time: the install waits for dpkg's lock instead of failing.
 */
/** A Debian package a suite needs, and how to tell it is there. */
export interface DebianPackage {
	name: string;
	present: () => boolean;
}

export const POSTGRES_PACKAGES: DebianPackage[] = [
	{ name: 'postgresql', present: () => postgresBin() !== undefined },
	{ name: 'redis-server', present: () => onPath('redis-server') && onPath('redis-cli') },
];

/** Installs with apt-get (as root) the packages that are missing, once per machine. */
export async function ensureDebianPackages(
	packages: DebianPackage[],
	log: (line: string) => void,
): Promise<void> {
	const missing = packages.filter((wanted) => !wanted.present());
	if (!missing.length) return;
	const names = missing.map((wanted) => wanted.name);
	log(`installing ${names.join(' and ')} with apt-get (a few minutes, once per machine)`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const timeout = 15 * 60_000;
	// Another suite's apt-get may hold the lock: wait for it rather than fail.
	await run('apt-get', ['update'], { env, timeout, maxBuffer: 64 * 1024 * 1024 });
	await run('apt-get', ['install', '-y', '-o', 'DPkg::Lock::Timeout=600', ...names], {
		env,
		timeout,
		maxBuffer: 64 * 1024 * 1024,
	});
	const still = missing.filter((wanted) => !wanted.present());
	if (still.length)
		throw new Error(
			`apt-get installed ${names.join(', ')}, but ${still.map((wanted) => wanted.name).join(', ')} is not there`,
		);
}

async function waitForPort(
	port: number,
	child: ChildProcess,
	what: string,
	timeoutMs = 60_000,
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (child.exitCode !== null || child.signalCode !== null)
			throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it listened`);
		const open = await new Promise<boolean>((resolve) => {
			const socket = createConnection({ host: '127.0.0.1', port }, () => {
				socket.destroy();
				resolve(true);
			});
			socket.once('error', () => resolve(false));
		});
		if (open) return;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
	throw new Error(`${what} did not listen on ${port} within ${timeoutMs} ms`);
}

/** The PIDs of a process's children, grandchildren, …, read from /proc. */
function descendants(pid: number): number[] {
	let children: number[] = [];
	try {
		children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
			readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
				.split(' ')
				.filter(Boolean)
				.map(Number),
		);
	} catch {
		return [];
	}
	return children.flatMap((child) => [child, ...descendants(child)]);
}

/** Whether a process of this PID is still there. */
export function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * Signals a process the test started and waits for it to exit; SIGKILL after `graceMs`. What
 * it started itself (n8n's task runner, say) is ended too, by PID, when it outlives it: a
 * process killed with SIGKILL cannot end its children.
 */
export async function stopProcess(
	child: ChildProcess,
	signal: NodeJS.Signals = 'SIGTERM',
	graceMs = 20_000,
): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
	const started = descendants(child.pid);
	const exited = new Promise((resolve) => child.once('exit', resolve));
	child.kill(signal);
	const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
	await exited;
	clearTimeout(timer);
	const left = started.filter(alive);
	for (const pid of left) process.kill(pid, 'SIGTERM');
	const deadline = Date.now() + 5_000;
	while (left.some(alive) && Date.now() < deadline)
		await new Promise((resolve) => setTimeout(resolve, 100));
	for (const pid of left.filter(alive)) process.kill(pid, 'SIGKILL');
}

function collectOutput(child: ChildProcess): () => string {
	let output = '';
	for (const stream of [child.stdout, child.stderr]) {
		stream?.setEncoding('utf8');
		stream?.on('data', (chunk: string) => (output = (output + chunk).slice(-4000)));
	}
	return () => output;
}

/**
 * A Postgres cluster of the test's own: `initdb` into a temp folder, trust authentication on
 * 127.0.0.1 only (no Unix socket outside that folder), no fsync (its data is thrown away), and
 * the databases asked for, owned by the superuser `postgres`.
 */
export async function startPostgres(databases: string[]): Promise<RunningPostgres> {
	const bin = postgresBin();
	if (!bin) throw new Error('Postgres is not installed (see ensureDebianPackages)');
	const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
	const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
	const dir = mkdtempSync(join(tmpdir(), 'formswtf-e2e-postgres-'));
	chownSync(dir, uid, gid);
	chmodSync(dir, 0o700);
	const data = join(dir, 'data');
	const asPostgres = {
		uid,
		gid,
		env: { PATH: process.env.PATH, HOME: dir, LC_ALL: 'C.UTF-8' },
		cwd: dir,
	};
	let child: ChildProcess | undefined;
	try {
		await run(
			join(bin, 'initdb'),
			[
				'-D',
				data,
				'-U',
				'postgres',
				'--auth=trust',
				'-E',
				'UTF8',
				'--no-sync',
				'--no-instructions',
			],
			asPostgres,
		);
		const port = await freePort();
		child = spawn(
			join(bin, 'postgres'),
			[
				'-D',
				data,
				'-p',
				String(port),
				'-h',
				'127.0.0.1',
				'-k',
				dir,
				'-c',
				'fsync=off',
				'-c',
				'synchronous_commit=off',
				'-c',
				'full_page_writes=off',
			],
			{ ...asPostgres, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		const output = collectOutput(child);
		await waitForPort(port, child, 'postgres').catch((error: Error) => {
			throw new Error(`${error.message}\n${output()}`);
		});
		for (const database of databases) {
			await run(
				join(bin, 'createdb'),
				['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', database],
				asPostgres,
			);
		}
		const started = child;
		return {
			host: '127.0.0.1',
			port,
			query: async (database, sql) => {
				const { stdout } = await run(
					join(bin, 'psql'),
					[
						'-h',
						'127.0.0.1',
						'-p',
						String(port),
						'-U',
						'postgres',
						'-d',
						database,
						'-X',
						'-A',
						'-t',
						'-F',
						'\x1f',
						'-R',
						'\x1e',
						'-v',
						'ON_ERROR_STOP=1',
						'-c',
						sql,
					],
					{ ...asPostgres, maxBuffer: 512 * 1024 * 1024 },
				);
				return stdout
					.split('\x1e')
					.map((row) => row.replace(/^\n+|\n+$/g, ''))
					.filter((row) => row !== '')
					.map((row) => row.split('\x1f'));
			},
			// SIGINT is Postgres' "fast shutdown": it ends sessions and exits cleanly.
			stop: async () => {
				await stopProcess(started, 'SIGINT');
				rmSync(dir, { recursive: true, force: true });
			},
		};
	} catch (error) {
		if (child) await stopProcess(child, 'SIGINT');
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}

/** A Redis of the test's own: no persistence, its working folder a temp folder. */
export async function startRedis(): Promise<RunningService> {
	const dir = mkdtempSync(join(tmpdir(), 'formswtf-e2e-redis-'));
	const port = await freePort();
	const child = spawn(
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--dir',
			dir,
			'--save',
			'',
			'--appendonly',
			'no',
			'--daemonize',
			'no',
			'--protected-mode',
			'yes',
		],
		{ cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	const output = collectOutput(child);
	try {
		await waitForPort(port, child, 'redis-server');
	} catch (error) {
		await stopProcess(child);
		rmSync(dir, { recursive: true, force: true });
		throw new Error(`${(error as Error).message}\n${output()}`);
	}
	return {
		host: '127.0.0.1',
		port,
		stop: async () => {
			await stopProcess(child);
			rmSync(dir, { recursive: true, force: true });
		},
	};
}
