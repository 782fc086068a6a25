/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * What every end-to-end suite reports through: one line per check, progress lines, and the
 * closing count "N passed, N failed" that `npm run test:all` adds to jest's.
 */
import { writeFileSync } from 'fs';

let passed = 0;
let failed = 0;

export function check(name: string, ok: boolean, detail = ''): void {
	if (ok) passed++;
	else failed++;
	console.log(`${ok ? '✔' : '✘'} ${name}${detail ? ` — ${detail}` : ''}`);
}

export function log(message: string): void {
	console.log(`  · ${message}`);
}

/** Prints the closing count (and writes it where FORMSWTF_E2E_RESULTS says); true when all passed. */
export function report(): boolean {
	console.log(`\n${passed} passed, ${failed} failed`);
	if (process.env.FORMSWTF_E2E_RESULTS)
		writeFileSync(process.env.FORMSWTF_E2E_RESULTS, JSON.stringify({ passed, failed }));
	return failed === 0 && passed > 0;
}

export async function waitUntil(
	condition: () => Promise<boolean>,
	timeoutMs: number,
	what = 'condition',
): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (await condition()) return;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	throw new Error(`${what} not met within ${timeoutMs} ms`);
}
