/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/no-dangerous-functions
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The n8n installer's own checks, on fake installs: cheap enough for `npm test`, so a change
 * that lets a broken n8n install through is caught without installing n8n.
 */
import { spawnSync } from 'child_process';
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import { dirname, join, resolve } from 'path';

const INSTALLER = resolve(__dirname, 'install-n8n.sh');
const VERSION = '1.2.3';

let root: string;
beforeEach(() => {
	root = mkdtempSync(join(tmpdir(), 'formswtf-installer-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function write(path: string, text: string, mode?: number): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
	if (mode !== undefined) chmodSync(path, mode);
}

/** A folder shaped like an n8n install: an `n8n` that prints its version, sqlite3 and isolated-vm. */
function fakeInstall(
	dir: string,
	options: { sqlite3Loads: boolean; isolatedVmLoads?: boolean; answers?: string },
): string {
	write(
		join(dir, 'node_modules', '.bin', 'n8n'),
		`#!/bin/sh\necho "${options.answers ?? VERSION}"\n`,
		0o755,
	);
	fakeModule(dir, 'sqlite3', options.sqlite3Loads);
	fakeModule(dir, 'isolated-vm', options.isolatedVmLoads ?? true);
	return dir;
}

function fakeModule(dir: string, name: string, loads: boolean): void {
	write(
		join(dir, 'node_modules', name, 'package.json'),
		JSON.stringify({ name, version: '1.0.0', main: 'index.js' }),
	);
	write(
		join(dir, 'node_modules', name, 'index.js'),
		loads ? 'module.exports = {};\n' : "throw new Error('No native build was found.');\n",
	);
}

/** Runs the installer as `npm run` would: with the project's npm settings inherited. */
function installer(args: string[], env: NodeJS.ProcessEnv = {}) {
	const result = spawnSync('bash', [INSTALLER, ...args], {
		encoding: 'utf8',
		env: {
			...process.env,
			npm_config_ignore_scripts: 'true',
			FORMSWTF_N8N_CACHE: join(root, 'cache'),
			...env,
		},
		timeout: 60_000,
	});
	return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('install-n8n.sh --verify', () => {
	it('accepts an install whose sqlite3 loads and whose n8n answers with its version', () => {
		const dir = fakeInstall(join(root, 'good'), { sqlite3Loads: true });
		expect(installer(['--verify', dir, VERSION]).code).toBe(0);
	});

	it('refuses an install whose sqlite3 binding was never built', () => {
		const dir = fakeInstall(join(root, 'unbuilt'), { sqlite3Loads: false });
		const result = installer(['--verify', dir, VERSION]);
		expect(result.code).not.toBe(0);
		expect(result.stderr).toMatch(/sqlite3 does not load/);
	});

	it('needs isolated-vm built for n8n 2.x, not for 1.x (which runs without it)', () => {
		const dir = fakeInstall(join(root, 'vm'), {
			sqlite3Loads: true,
			isolatedVmLoads: false,
			answers: '2.0.0',
		});
		expect(installer(['--verify', dir, '2.0.0']).stderr).toMatch(/isolated-vm does not load/);
		const oneX = fakeInstall(join(root, 'vm1'), { sqlite3Loads: true, isolatedVmLoads: false });
		expect(installer(['--verify', oneX, VERSION]).code).toBe(0);
	});

	it('refuses an install whose n8n answers with another version', () => {
		const dir = fakeInstall(join(root, 'other'), { sqlite3Loads: true, answers: '9.9.9' });
		const result = installer(['--verify', dir, VERSION]);
		expect(result.code).not.toBe(0);
		expect(result.stderr).toMatch(/answered '9\.9\.9'/);
	});
});

describe('install-n8n.sh <version>', () => {
	it('reuses a cached install that passes the check, without calling npm', () => {
		const dir = fakeInstall(join(root, 'cache', `n8n-${VERSION}`), { sqlite3Loads: true });
		writeFileSync(join(dir, '.complete'), '');
		const result = installer([VERSION], { PATH: `${fakeNpm('exit 7')}:${process.env.PATH}` });
		expect(result.code).toBe(0);
		expect(result.stdout.trim().split('\n').pop()).toBe(dir);
	});

	it('does not reuse a cached install that fails the check: it installs again', () => {
		const dir = fakeInstall(join(root, 'cache', `n8n-${VERSION}`), { sqlite3Loads: false });
		writeFileSync(join(dir, '.complete'), '');
		// An npm that fails at once stands in for the registry: the point is that it is called.
		const result = installer([VERSION], {
			PATH: `${fakeNpm('echo "npm $*" >&2; exit 7')}:${process.env.PATH}`,
		});
		expect(result.stderr).toMatch(/does not work: installing it again/);
		expect(result.stderr).toMatch(/npm install .*n8n@1\.2\.3/);
		expect(result.code).not.toBe(0);
		expect(existsSync(join(dir, '.complete'))).toBe(false);
	});
});

describe('building native modules under `npm run`', () => {
	it('runs the install scripts although npm_config_ignore_scripts=true is inherited', () => {
		const dir = join(root, 'install');
		write(
			join(dir, 'package.json'),
			JSON.stringify({
				name: 'fake-install',
				private: true,
				dependencies: { 'fake-native': '1.0.0' },
			}),
		);
		write(
			join(dir, 'node_modules', 'fake-native', 'package.json'),
			JSON.stringify({
				name: 'fake-native',
				version: '1.0.0',
				scripts: { install: "node -e \"require('fs').writeFileSync('built', 'yes')\"" },
			}),
		);
		const result = spawnSync(
			'bash',
			['-c', `source "${INSTALLER}"; clean_npm_env; build_native "$1" fake-native`, 'test', dir],
			{
				encoding: 'utf8',
				env: { ...process.env, npm_config_ignore_scripts: 'true' },
				timeout: 60_000,
			},
		);
		expect(result.status).toBe(0);
		expect(readFileSync(join(dir, 'node_modules', 'fake-native', 'built'), 'utf8')).toBe('yes');
	});
});

function fakeNpm(body: string): string {
	const bin = join(root, 'fake-bin');
	write(join(bin, 'npm'), `#!/bin/sh\n${body}\n`, 0o755);
	return bin;
}
