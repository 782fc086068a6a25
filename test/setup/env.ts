import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

// n8n-core writes its instance settings below N8N_USER_FOLDER; keep every test run out of $HOME.
if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = mkdtempSync(join(tmpdir(), 'formswtf-n8n-'));
}
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
