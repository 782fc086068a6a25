/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console,
	@n8n/community-nodes/no-dangerous-functions
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * `npm run verify`: is the package ready for n8n's verification? Builds, packs the package as
 * npm would publish it, unpacks the tarball into a temp folder and checks it (scripts/verify/checks.ts):
 * the lint of n8n's verification scanner (`@n8n/scan-community-package`) on the tarball's compiled
 * files and on the sources, and the rest of n8n's requirements that can be checked offline.
 * Prints one PASS/FAIL line per check; exits 1 when one fails. Needs no network.
 *
 *   npm run verify                          build, pack, check the tarball and the repository
 *   npm run verify -- --unpacked <dir>      check an already unpacked package (no build, no pack)
 *   npm run verify -- --keep                keep the temp folder with the tarball and its contents
 */
import { spawnSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

import {
	checkChangelog,
	checkCodex,
	checkFilesList,
	checkIcons,
	checkLicense,
	checkNoRuntimeDependencies,
	checkPeerDependencies,
	checkReadme,
	checkRepository,
	listFiles,
	readPackageJson,
} from './verify/checks';
import type { CheckResult } from './verify/checks';

const ROOT = resolve(__dirname, '..');

interface Options {
	unpacked?: string;
	keep: boolean;
}

function parseArgs(argv: string[]): Options {
	const options: Options = { keep: false };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === '--keep') options.keep = true;
		else if (arg === '--unpacked' && argv[i + 1]) options.unpacked = resolve(argv[++i]);
		else {
			console.error(
				`Unknown argument: ${arg}\nUsage: npm run verify [-- --unpacked <dir>] [-- --keep]`,
			);
			process.exit(2);
		}
	}
	return options;
}

function run(command: string, args: string[], cwd: string): string {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
	if (result.status !== 0) {
		throw new Error(
			`${command} ${args.join(' ')} failed:\n${result.stdout ?? ''}${result.stderr ?? ''}`,
		);
	}
	return result.stdout;
}

/** `npm run build`, `npm pack`, and the tarball unpacked the way the scanner unpacks it. */
function buildAndUnpack(workDir: string): string {
	run('npm', ['run', 'build'], ROOT);
	const packed = JSON.parse(
		run('npm', ['pack', '--json', '--pack-destination', workDir], ROOT),
	) as Array<{
		filename: string;
	}>;
	const pkgDir = join(workDir, 'package');
	mkdirSync(pkgDir);
	run(
		'tar',
		['-xzf', join(workDir, packed[0].filename), '-C', pkgDir, '--strip-components=1'],
		workDir,
	);
	return pkgDir;
}

type Scanner = typeof import('@n8n/scan-community-package/scanner/scanner.mjs');

async function loadScanner(workDir: string): Promise<Scanner> {
	// The scanner makes a temp folder when it loads (for downloads we do not make): put it in ours.
	const saved = process.env.TMPDIR;
	process.env.TMPDIR = workDir;
	try {
		return await import('@n8n/scan-community-package/scanner/scanner.mjs');
	} finally {
		if (saved === undefined) delete process.env.TMPDIR;
		else process.env.TMPDIR = saved;
	}
}

async function scannerLint(
	scanner: Scanner,
	name: string,
	dir: string,
	patterns: string[],
	fileCount: number,
): Promise<CheckResult> {
	const result = await scanner.analyzePackage(dir, patterns);
	if (result.passed) return { name, ok: true, detail: `${fileCount} files, no errors` };
	const details = (result.details ?? '')
		.trim()
		.replace(new RegExp(`${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?`, 'g'), '');
	return { name, ok: false, detail: `${result.message ?? 'failed'}\n${details}` };
}

async function main(): Promise<void> {
	const options = parseArgs(process.argv.slice(2));
	const started = Date.now();
	const workDir = mkdtempSync(join(tmpdir(), 'formswtf-verify-'));
	const results: CheckResult[] = [];
	let pkgDir = options.unpacked;
	try {
		if (!pkgDir) pkgDir = buildAndUnpack(workDir);
		const pkg = readPackageJson(pkgDir);
		const files = listFiles(pkgDir);
		const scanner = await loadScanner(workDir);

		console.log(
			`n8n verification checks: ${pkg.name}@${pkg.version}, ${options.unpacked ? pkgDir : 'packed tarball'} (${files.length} files)`,
		);

		const jsFiles = files.filter((f) => f.endsWith('.js')).length;
		results.push(
			await scannerLint(
				scanner,
				'scanner lint, packed package (**/*.js, package.json)',
				pkgDir,
				['**/*.js', 'package.json'],
				jsFiles + 1,
			),
		);
		if (!options.unpacked) {
			const sourceFiles = listFiles(ROOT).filter(
				(f) => f === 'package.json' || /^(nodes|credentials)\/.*\.(js|ts|json)$/.test(f),
			).length;
			results.push(
				await scannerLint(
					scanner,
					'scanner lint, source (package.json, nodes/, credentials/)',
					ROOT,
					scanner.SOURCE_FILE_PATTERNS,
					sourceFiles,
				),
			);
		}
		results.push(
			checkNoRuntimeDependencies(pkg),
			checkPeerDependencies(pkg),
			checkLicense(pkg, pkgDir, files),
			checkFilesList(pkg, files),
			checkIcons(pkg, pkgDir),
			checkCodex(pkg, pkgDir),
			checkReadme(pkgDir, files),
			checkRepository(pkg),
		);
		if (!options.unpacked) results.push(checkChangelog(ROOT, pkg.version));
	} finally {
		if (options.keep) console.log(`kept ${workDir}`);
		else rmSync(workDir, { recursive: true, force: true });
	}

	for (const r of results) {
		const [first, ...rest] = r.detail.split('\n');
		console.log(`  ${r.ok ? 'PASS' : 'FAIL'}  ${r.name}: ${first}`);
		for (const line of rest) console.log(`          ${line}`);
	}
	console.log(
		'  not checked here (needs the registry): npm provenance, which the release workflow adds on publish',
	);
	const failed = results.filter((r) => !r.ok).length;
	console.log(
		`verify: ${results.length - failed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`,
	);
	process.exit(failed > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
	console.error(`verify could not run: ${error instanceof Error ? error.message : String(error)}`);
	process.exit(2);
});
