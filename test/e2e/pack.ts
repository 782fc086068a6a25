/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/no-dangerous-functions
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { execFileSync } from 'child_process';
import { mkdtempSync, readdirSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';

const ROOT = resolve(__dirname, '..', '..');

/**
 * Builds the package and packs it as `npm publish` would, into a temp folder of its own; returns
 * the tarball's path (the caller removes its folder). Both npm calls work on this project, so
 * they inherit its npm settings (from `npm run`'s npm_config_* variables or its .npmrc) on purpose:
 * ignore-scripts=true included, as the project has no install or pack scripts to run.
 */
export function packPackage(): string {
	execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
	const out = mkdtempSync(join(tmpdir(), 'formswtf-pack-'));
	execFileSync('npm', ['pack', '--pack-destination', out], { cwd: ROOT, stdio: 'ignore' });
	const tarball = readdirSync(out).find((file) => file.endsWith('.tgz'));
	if (!tarball) throw new Error('npm pack produced no tarball');
	return join(out, tarball);
}
