/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * n8n's own nodes (HTTP Request, Split Out, Remove Duplicates, Schedule Trigger) and the Header
 * Auth credential, loaded from the n8n install the end-to-end test caches in
 * ~/.cache/n8n-nodes-formswtf. n8n-nodes-base is never a dependency of this package: it is
 * required by absolute path, with its own node_modules, only when a benchmark needs it.
 */
import { existsSync, readFileSync } from 'fs';
import { createRequire } from 'module';
import type { ICredentialType, INodeType, IVersionedNodeType } from 'n8n-workflow';
import { homedir } from 'os';
import { join } from 'path';

export const N8N_CACHE_DIR =
	process.env.FORMSWTF_N8N_CACHE ?? join(homedir(), '.cache', 'n8n-nodes-formswtf');
/** 2.41.1 matches our n8n-core; 1.123.81 is the fallback if 2.41's nodes don't load. */
const CANDIDATES = ['n8n-2.41.1', 'n8n-1.123.81'];

export const HTTP_REQUEST_TYPE = 'n8n-nodes-base.httpRequest';
export const SPLIT_OUT_TYPE = 'n8n-nodes-base.splitOut';
export const REMOVE_DUPLICATES_TYPE = 'n8n-nodes-base.removeDuplicates';
export const SCHEDULE_TRIGGER_TYPE = 'n8n-nodes-base.scheduleTrigger';

export interface N8nBase {
	/** e.g. `n8n-2.41.1` */
	install: string;
	/** n8n-nodes-base's version. */
	version: string;
	httpRequest: INodeType | IVersionedNodeType;
	splitOut: INodeType | IVersionedNodeType;
	removeDuplicates: INodeType | IVersionedNodeType;
	scheduleTrigger: INodeType | IVersionedNodeType;
	httpHeaderAuth: ICredentialType;
}

export type N8nBaseLookup = { ok: true; base: N8nBase } | { ok: false; reason: string };

export const HOW_TO_INSTALL = 'bash test/e2e/install-n8n.sh 2.41.1';

let cached: N8nBaseLookup | undefined;

export function loadN8nBase(): N8nBaseLookup {
	if (cached) return cached;
	const problems: string[] = [];
	for (const install of CANDIDATES) {
		const dist = join(N8N_CACHE_DIR, install, 'node_modules', 'n8n-nodes-base', 'dist');
		if (!existsSync(dist)) {
			problems.push(`${install}: not installed`);
			continue;
		}
		try {
			const load = createRequire(join(dist, 'index.js'));
			const pick = <T>(file: string, name: string): T => {
				const Class = (load(join(dist, file)) as Record<string, new () => T>)[name];
				if (typeof Class !== 'function') throw new Error(`${file} has no export ${name}`);
				return new Class();
			};
			const pkg = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as {
				version: string;
			};
			cached = {
				ok: true,
				base: {
					install,
					version: pkg.version,
					httpRequest: pick('nodes/HttpRequest/HttpRequest.node.js', 'HttpRequest'),
					splitOut: pick('nodes/Transform/SplitOut/SplitOut.node.js', 'SplitOut'),
					removeDuplicates: pick(
						'nodes/Transform/RemoveDuplicates/RemoveDuplicates.node.js',
						'RemoveDuplicates',
					),
					scheduleTrigger: pick('nodes/Schedule/ScheduleTrigger.node.js', 'ScheduleTrigger'),
					httpHeaderAuth: pick('credentials/HttpHeaderAuth.credentials.js', 'HttpHeaderAuth'),
				},
			};
			return cached;
		} catch (error) {
			problems.push(
				`${install}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
			);
		}
	}
	cached = {
		ok: false,
		reason: `n8n-nodes-base not loadable from ${N8N_CACHE_DIR} (${problems.join('; ')}). Install it with: ${HOW_TO_INSTALL}`,
	};
	return cached;
}
