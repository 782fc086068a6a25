/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { rmSync } from 'fs';

export default function globalTeardown(): void {
	const folder = process.env.FORMSWTF_JEST_USER_FOLDER;
	if (folder) rmSync(folder, { recursive: true, force: true });
}
