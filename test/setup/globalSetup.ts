/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

// One n8n user folder for the whole jest run (n8n-core writes its instance settings there),
// made before the workers start so they inherit it, and removed by globalTeardown.
export default function globalSetup(): void {
	if (!process.env.N8N_USER_FOLDER) {
		const folder = mkdtempSync(join(tmpdir(), 'formswtf-n8n-'));
		process.env.N8N_USER_FOLDER = folder;
		process.env.FORMSWTF_JEST_USER_FOLDER = folder;
	}
	process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
}
