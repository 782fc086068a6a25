/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Process environment n8n-core needs before it is first loaded.
 *
 * `index.ts` imports this module before anything from n8n-core, so that it also applies
 * to tsx scripts (the demo, benchmarks), which do not go through jest's globalSetup. n8n-core's InstanceSettings writes a settings file (with a freshly
 * generated encryption key) below N8N_USER_FOLDER, and filesystem binary data goes there
 * too: never let that land in the developer's home directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

if (!process.env.N8N_USER_FOLDER) {
	const folder = mkdtempSync(join(tmpdir(), 'formswtf-runner-'));
	process.env.N8N_USER_FOLDER = folder;
	// Ours alone, so ours to remove: settings file and any filesystem binary data.
	process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
}
