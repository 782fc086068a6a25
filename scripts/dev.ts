/**
 * `npm run dev`: the local Forms.wtf API and a real n8n editor on localhost, with this package
 * installed as the Community Nodes panel installs it, a credential for the local API, and the
 * examples imported, so that a person can click through everything. Ctrl+C stops both.
 *
 * FORMSWTF_DEV_N8N picks the n8n version (default the newest 1.x, which runs on Node 20).
 */
import { rmSync } from 'fs';
import { dirname } from 'path';

import { startHarness } from '../test/harness';
import { N8nInstance } from '../test/e2e/n8nInstance';
import { packPackage } from '../test/e2e/pack';
import { loadExample } from '../test/e2e/standIns';

const VERSION = process.env.FORMSWTF_DEV_N8N ?? '1.123.81';
const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const HARNESS_PORT = Number(process.env.FORMSWTF_HARNESS_PORT ?? 4010);
const CREDENTIAL = { id: 'fwtfDevCredTeam01', name: 'Forms.wtf (local API)' };

async function main(): Promise<void> {
	console.log(`Preparing n8n ${VERSION} (installed once into ${process.env.FORMSWTF_N8N_CACHE ?? '~/.cache/n8n-nodes-formswtf'})…`);
	const instance = await N8nInstance.prepare(VERSION);
	const tarball = packPackage();
	await instance.installPackage(tarball, 'n8n-nodes-formswtf');
	rmSync(dirname(tarball), { recursive: true, force: true });

	const harness = await startHarness({ port: HARNESS_PORT, largeFormResponses: 100_000 });
	await instance.importJson('credentials', [
		{ ...CREDENTIAL, type: 'formsWtfApi', data: { apiKey: harness.keys.team, baseUrl: harness.baseUrl } },
	]);
	const feedback = await harness.control.form('feedback');
	const examples = ['new-response-to-slack.json', 'daily-csv-export-by-email.json', 'responses-to-google-sheet.json'];
	for (const [index, file] of examples.entries()) {
		await instance.importJson('workflow', loadExample(file, { id: `fwtfDevExample0${index + 1}`, formId: feedback.id, credential: CREDENTIAL }));
	}

	instance.start(N8N_PORT, (line) => console.log(`[n8n] ${line}`));
	console.log(`
n8n editor:        http://127.0.0.1:${N8N_PORT}  (create the local owner account on first visit)
local Forms.wtf:   ${harness.baseUrl}  (key ${harness.keys.team}; credential "${CREDENTIAL.name}" is set up)
control API:       ${harness.origin}/__harness  (e.g. POST /__harness/forms/${feedback.id}/responses {"count": 3})
examples imported: ${examples.join(', ')}
Stop with Ctrl+C.`);

	const stop = async () => {
		console.log('\nStopping n8n and the local API…');
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
