/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console,
	@n8n/community-nodes/no-dangerous-functions
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * `npm run dev`: the local Forms.wtf API and a real n8n editor on localhost, with this package
 * installed as the Community Nodes panel installs it, a credential for the local API, and the
 * examples imported, so that a person can click through everything. Ctrl+C stops both.
 *
 * Changing a source file rebuilds the package and n8n reloads it, as `n8n-node dev` (n8n's
 * @n8n/node-cli) does: `tsc --watch` and n8n started with N8N_DEV_RELOAD=true, which watches the
 * folders of the packages it loaded and reloads a package's nodes and credentials when a file
 * in it changes (then tells the open editor; reopen a node's panel to see its new description).
 * Unlike `n8n-node dev`, which links the source folder into ~/.n8n/custom (node types
 * `CUSTOM.…`), the package stays where the Community Nodes panel puts it, under the name users
 * get (`n8n-nodes-formswtf.…`), so the imported examples and credential keep working: tsc
 * writes into that installed copy's `dist/`, and the icons and codex files are copied there
 * when they change. A change to package.json (the list of nodes) needs a restart.
 *
 * FORMSWTF_DEV_N8N picks the n8n version (default the newest 1.x, which runs on Node 20).
 */
import { spawn } from 'child_process';
import type { ChildProcess } from 'child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, watch } from 'fs';
import type { FSWatcher } from 'fs';
import { dirname, join, resolve } from 'path';

import { startHarness } from '../test/harness';
import { N8nInstance } from '../test/e2e/n8nInstance';
import { packPackage } from '../test/e2e/pack';
import { stopProcess } from '../test/e2e/services';
import { loadExample } from '../test/e2e/standIns';

const VERSION = process.env.FORMSWTF_DEV_N8N ?? '1.123.81';
const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const HARNESS_PORT = Number(process.env.FORMSWTF_HARNESS_PORT ?? 4010);
const CREDENTIAL = { id: 'fwtfDevCredTeam01', name: 'Forms.wtf (local API)' };
const PACKAGE = 'n8n-nodes-formswtf';
const ROOT = resolve(__dirname, '..');
/** The source folders tsc compiles (tsconfig.json) and the files beside the .js that tsc does not copy (gulpfile.js). */
const SOURCE_FOLDERS = ['nodes', 'credentials'];
const ASSET = /\.(svg|png)$|\.node\.json$/;

/** `tsc --watch` of the package's tsconfig, writing into `outDir`; its lines go to `log`. */
function watchBuild(outDir: string, log: (line: string) => void): ChildProcess {
	const tsc = spawn(
		process.execPath,
		[
			require.resolve('typescript/bin/tsc'),
			'-p',
			'tsconfig.json',
			'--watch',
			'--preserveWatchOutput',
			'--outDir',
			outDir,
		],
		{ cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	for (const stream of [tsc.stdout, tsc.stderr]) {
		stream.setEncoding('utf8');
		stream.on('data', (chunk: string) =>
			chunk
				.split('\n')
				.filter((line) => line.trim())
				.forEach(log),
		);
	}
	return tsc;
}

/** Copies the icons and codex files to `outDir` whenever one is added or changed, as `npm run build` does. */
function watchAssets(outDir: string, log: (line: string) => void): FSWatcher[] {
	return SOURCE_FOLDERS.map((folder) =>
		watch(join(ROOT, folder), { recursive: true }, (_event, name) => {
			if (!name || !ASSET.test(name)) return;
			const from = join(ROOT, folder, name);
			const to = join(outDir, folder, name);
			if (!existsSync(from)) return;
			try {
				mkdirSync(dirname(to), { recursive: true });
				copyFileSync(from, to);
				log(`copied ${folder}/${name}`);
			} catch (error) {
				log(`could not copy ${folder}/${name}: ${(error as Error).message}`);
			}
		}),
	);
}

async function main(): Promise<void> {
	console.log(
		`Preparing n8n ${VERSION} (installed once into ${process.env.FORMSWTF_N8N_CACHE ?? '~/.cache/n8n-nodes-formswtf'})…`,
	);
	const instance = await N8nInstance.prepare(VERSION);
	const tarball = packPackage();
	await instance.installPackage(tarball, PACKAGE);
	rmSync(dirname(tarball), { recursive: true, force: true });
	const installedDist = join(instance.userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE, 'dist');

	const harness = await startHarness({ port: HARNESS_PORT, largeFormResponses: 100_000 });
	await instance.importJson('credentials', [
		{
			...CREDENTIAL,
			type: 'formsWtfApi',
			data: { apiKey: harness.keys.team, baseUrl: harness.baseUrl },
		},
	]);
	const feedback = await harness.control.form('feedback');
	const examples = [
		'new-response-to-slack.json',
		'daily-csv-export-by-email.json',
		'responses-to-google-sheet.json',
	];
	for (const [index, file] of examples.entries()) {
		await instance.importJson(
			'workflow',
			loadExample(file, {
				id: `fwtfDevExample0${index + 1}`,
				formId: feedback.id,
				credential: CREDENTIAL,
			}),
		);
	}

	// No NODE_ENV in n8n's environment (N8nInstance sets none): n8n reloads only in development.
	instance.start(N8N_PORT, (line) => console.log(`[n8n] ${line}`), {
		env: { N8N_DEV_RELOAD: 'true' },
	});
	const tsc = watchBuild(installedDist, (line) => console.log(`[build] ${line}`));
	const assets = watchAssets(installedDist, (line) => console.log(`[build] ${line}`));
	console.log(`
n8n editor:        http://127.0.0.1:${N8N_PORT}  (create the local owner account on first visit)
local Forms.wtf:   ${harness.baseUrl}  (key ${harness.keys.team}; credential "${CREDENTIAL.name}" is set up)
control API:       ${harness.origin}/__harness  (e.g. POST /__harness/forms/${feedback.id}/responses {"count": 3})
examples imported: ${examples.join(', ')}
live reload:       a change under nodes/ or credentials/ is compiled into ${installedDist}
                   and n8n reloads the package ("Hot reload triggered for ${PACKAGE}")
Stop with Ctrl+C.`);

	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		console.log('\nStopping n8n, the build watch and the local API…');
		assets.forEach((watcher) => watcher.close());
		await stopProcess(tsc, 'SIGTERM', 5_000);
		await instance.dispose();
		await harness.close();
		process.exit(0);
	};
	process.once('SIGINT', () => void stop());
	process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
