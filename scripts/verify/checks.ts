/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The checks behind `npm run verify`: what n8n's verification asks of a community node package,
 * run offline on the unpacked tarball (what npm would publish) and, for two checks, on the source.
 *
 * - The scanner's lint: `@n8n/scan-community-package` itself (its ESLint config and its pinned
 *   rule plugins), on the tarball's `**\/*.js` + `package.json` and on the source's
 *   `package.json` + `{nodes,credentials}/**\/*.{js,ts,json}`, as the scanner does after
 *   downloading a published version.
 * - What the verification guidelines ask beyond the lint and that a file can show: no runtime
 *   dependencies, `n8n-workflow: "*"` as the only peer dependency, MIT, a tight files list, light
 *   and dark icons, codex files, README sections, a repository that matches homepage and bugs.
 *
 * Not checkable offline, and so not here: npm provenance (the release workflow publishes with
 * it), and that the repository is public.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { basename, dirname, join, relative, sep } from 'path';

export interface CheckResult {
	name: string;
	ok: boolean;
	detail: string;
}

export interface PackageJson {
	name?: string;
	version?: string;
	license?: string;
	main?: string;
	files?: string[];
	homepage?: string;
	repository?: string | { type?: string; url?: string; directory?: string };
	bugs?: string | { url?: string; email?: string };
	dependencies?: Record<string, string>;
	optionalDependencies?: Record<string, string>;
	bundleDependencies?: string[] | boolean;
	bundledDependencies?: string[] | boolean;
	peerDependencies?: Record<string, string>;
	n8n?: { n8nNodesApiVersion?: number; strict?: boolean; nodes?: string[]; credentials?: string[] };
}

const pass = (name: string, detail: string): CheckResult => ({ name, ok: true, detail });
const fail = (name: string, detail: string): CheckResult => ({ name, ok: false, detail });

/** Every file under `dir`, as paths relative to it with `/` separators. */
export function listFiles(dir: string): string[] {
	const out: string[] = [];
	const walk = (current: string): void => {
		for (const entry of readdirSync(current, { withFileTypes: true })) {
			const full = join(current, entry.name);
			if (entry.isDirectory()) walk(full);
			else out.push(relative(dir, full).split(sep).join('/'));
		}
	};
	walk(dir);
	return out.sort();
}

export function readPackageJson(dir: string): PackageJson {
	return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
}

// ---------------------------------------------------------------------------------------------
// package.json

export function checkNoRuntimeDependencies(pkg: PackageJson): CheckResult {
	const name = 'no runtime dependencies';
	const found = [
		...Object.keys(pkg.dependencies ?? {}).map((d) => `dependencies.${d}`),
		...Object.keys(pkg.optionalDependencies ?? {}).map((d) => `optionalDependencies.${d}`),
	];
	for (const key of ['bundleDependencies', 'bundledDependencies'] as const) {
		const value = pkg[key];
		if (value === true || (Array.isArray(value) && value.length > 0)) found.push(key);
	}
	return found.length === 0
		? pass(name, 'no dependencies, optionalDependencies or bundleDependencies')
		: fail(name, `verified community nodes may not have any: ${found.join(', ')}`);
}

export function checkPeerDependencies(pkg: PackageJson): CheckResult {
	const name = 'peer dependency n8n-workflow: "*"';
	const peers = pkg.peerDependencies ?? {};
	const entries = Object.entries(peers);
	if (entries.length === 1 && peers['n8n-workflow'] === '*')
		return pass(name, 'the only peer dependency');
	return fail(name, `expected exactly { "n8n-workflow": "*" }, found ${JSON.stringify(peers)}`);
}

export function checkLicense(pkg: PackageJson, pkgDir: string, files: string[]): CheckResult {
	const name = 'MIT license';
	if (pkg.license !== 'MIT')
		return fail(name, `package.json "license" is ${JSON.stringify(pkg.license)}, not "MIT"`);
	const licenseFile = files.find((f) => /^licen[cs]e(\.(md|txt))?$/i.test(f));
	if (!licenseFile)
		return fail(name, 'no LICENSE file in the package (the MIT terms ship with every copy)');
	const text = readFileSync(join(pkgDir, licenseFile), 'utf8');
	if (!/MIT License/i.test(text) || !/Permission is hereby granted, free of charge/.test(text)) {
		return fail(name, `${licenseFile} is not the MIT license text`);
	}
	return pass(name, `package.json "license": "MIT" and ${licenseFile}`);
}

/** `owner/repo` of a GitHub URL in any of the forms package.json allows, lower-cased. */
export function githubRepo(url: string | undefined): string | undefined {
	if (!url) return undefined;
	const shorthand = /^(?:github:)?([\w.-]+)\/([\w.-]+)$/.exec(url);
	if (shorthand) return `${shorthand[1]}/${shorthand[2].replace(/\.git$/, '')}`.toLowerCase();
	const full =
		/^(?:git\+)?(?:https?|git|ssh):\/\/(?:git@)?github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?(?:[/#?].*)?$/.exec(
			url,
		);
	return full ? `${full[1]}/${full[2]}`.toLowerCase() : undefined;
}

export function checkRepository(pkg: PackageJson): CheckResult {
	const name = 'repository URL matches homepage and bugs';
	const repoUrl = typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url;
	const repo = githubRepo(repoUrl);
	if (!repoUrl)
		return fail(
			name,
			'package.json has no "repository" (n8n checks it against the public GitHub repository)',
		);
	if (!repo)
		return fail(name, `"repository" ${JSON.stringify(repoUrl)} is not a GitHub repository URL`);
	const problems: string[] = [];
	if (githubRepo(pkg.homepage) !== repo) {
		problems.push(`"homepage" ${JSON.stringify(pkg.homepage)} is not github.com/${repo}`);
	}
	const bugsUrl = typeof pkg.bugs === 'string' ? pkg.bugs : pkg.bugs?.url;
	if (githubRepo(bugsUrl) !== repo)
		problems.push(`"bugs" ${JSON.stringify(bugsUrl)} is not github.com/${repo}`);
	return problems.length === 0 ? pass(name, `github.com/${repo}`) : fail(name, problems.join('; '));
}

// ---------------------------------------------------------------------------------------------
// What the tarball holds

/** Files npm adds to every tarball whatever `files` says, and ours besides `dist/`. */
const ALWAYS_SHIPPED = /^(package\.json|readme(\.md)?|licen[cs]e(\.(md|txt))?|changelog\.md)$/i;

export function checkFilesList(pkg: PackageJson, files: string[]): CheckResult {
	const name = 'files list: only the build is published';
	if (!Array.isArray(pkg.files) || pkg.files.length === 0) {
		return fail(
			name,
			'package.json has no "files" list, so npm would publish the whole repository',
		);
	}
	const unexpected = files.filter(
		(f) =>
			!f.startsWith('dist/') && !ALWAYS_SHIPPED.test(f) && f !== pkg.main?.replace(/^\.\//, ''),
	);
	const sources = files.filter(
		(f) =>
			(/\.ts$/.test(f) && !/\.d\.ts$/.test(f)) ||
			/\.(test|spec)\.[jt]s$/.test(f) ||
			/(^|\/)(__tests__|test)\//.test(f),
	);
	const secrets = files.filter((f) => /(^|\/)(\.env[^/]*|\.npmrc|[^/]*\.tgz)$/.test(f));
	const problems = [...new Set([...unexpected, ...sources, ...secrets])];
	if (problems.length > 0)
		return fail(name, `should not be published: ${problems.slice(0, 10).join(', ')}`);
	const missing = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])].filter(
		(f) => !files.includes(f),
	);
	if (pkg.main && !files.includes(pkg.main.replace(/^\.\//, ''))) missing.push(pkg.main);
	if (missing.length > 0)
		return fail(name, `package.json points at files the tarball lacks: ${missing.join(', ')}`);
	return pass(
		name,
		`"files": ${JSON.stringify(pkg.files)}; ${files.length} files, every n8n entry present`,
	);
}

/** The `icon` of a compiled node or credential: a single `file:` path, or a light/dark pair. */
export function findIcon(
	js: string,
): { light?: string; dark?: string; single?: string } | undefined {
	const match = /\bicon\s*[:=]\s*(\{[^}]*\}|'[^']*'|"[^"]*")/.exec(js);
	if (!match) return undefined;
	const value = match[1];
	if (!value.startsWith('{')) return { single: value.slice(1, -1) };
	const part = (key: string): string | undefined =>
		new RegExp(`\\b${key}\\s*:\\s*['"]([^'"]+)['"]`).exec(value)?.[1];
	return { light: part('light'), dark: part('dark') };
}

function iconFileProblem(
	pkgDir: string,
	jsFile: string,
	ref: string | undefined,
	which: string,
): string | undefined {
	if (!ref) return `${jsFile}: no ${which} icon`;
	if (!ref.startsWith('file:'))
		return `${jsFile}: ${which} icon ${JSON.stringify(ref)} is not a file: icon`;
	const iconPath = join(dirname(jsFile), ref.slice('file:'.length)).split(sep).join('/');
	const full = join(pkgDir, iconPath);
	if (!existsSync(full)) return `${iconPath} (${which} icon of ${jsFile}) is missing`;
	if (statSync(full).size === 0) return `${iconPath} is empty`;
	if (iconPath.endsWith('.svg') && !/<svg[\s>]/.test(readFileSync(full, 'utf8')))
		return `${iconPath} is not an SVG`;
	return undefined;
}

export function checkIcons(pkg: PackageJson, pkgDir: string): CheckResult {
	const name = 'icons: light and dark for every node and credential';
	const entries = [...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])];
	if (entries.length === 0) return fail(name, 'package.json "n8n" lists no nodes or credentials');
	const problems: string[] = [];
	for (const entry of entries) {
		const full = join(pkgDir, entry);
		if (!existsSync(full)) {
			problems.push(`${entry} is missing`);
			continue;
		}
		const icon = findIcon(readFileSync(full, 'utf8'));
		if (!icon) problems.push(`${entry}: no icon`);
		else if (icon.single !== undefined)
			problems.push(`${entry}: one icon (${icon.single}); n8n wants { light, dark }`);
		else {
			for (const which of ['light', 'dark'] as const) {
				const problem = iconFileProblem(pkgDir, entry, icon[which], which);
				if (problem) problems.push(problem);
			}
		}
	}
	return problems.length === 0
		? pass(name, `${entries.length} entries, each with both icon files beside it`)
		: fail(name, problems.join('; '));
}

interface Codex {
	node?: unknown;
	nodeVersion?: unknown;
	codexVersion?: unknown;
	categories?: unknown;
	resources?: { primaryDocumentation?: unknown; credentialDocumentation?: unknown };
}

function hasDocUrl(list: unknown): boolean {
	return (
		Array.isArray(list) &&
		list.length > 0 &&
		list.every(
			(d) =>
				typeof d === 'object' &&
				d !== null &&
				/^https:\/\//.test(String((d as { url?: unknown }).url)),
		)
	);
}

export function checkCodex(pkg: PackageJson, pkgDir: string): CheckResult {
	const name = 'codex file beside every node';
	const nodes = pkg.n8n?.nodes ?? [];
	if (nodes.length === 0) return fail(name, 'package.json "n8n" lists no nodes');
	const problems: string[] = [];
	for (const entry of nodes) {
		// n8n reads `<file>.node.json` beside `<file>.node.js` (`${filePath}on`).
		const codexPath = `${entry}on`;
		const full = join(pkgDir, codexPath);
		if (!existsSync(full)) {
			problems.push(
				`${codexPath} is missing from the tarball (n8n then files the node under no category and links no docs)`,
			);
			continue;
		}
		let codex: Codex;
		try {
			codex = JSON.parse(readFileSync(full, 'utf8')) as Codex;
		} catch (error) {
			problems.push(`${codexPath} is not JSON: ${(error as Error).message}`);
			continue;
		}
		const js = existsSync(join(pkgDir, entry)) ? readFileSync(join(pkgDir, entry), 'utf8') : '';
		const nodeName = /displayName:\s*['"][^'"]*['"],\s*name:\s*['"]([^'"]+)['"]/.exec(js)?.[1];
		const expected = nodeName ? `${pkg.name}.${nodeName}` : undefined;
		if (typeof codex.node !== 'string' || !codex.node.startsWith(`${pkg.name}.`)) {
			problems.push(`${codexPath}: "node" should be "${expected ?? `${pkg.name}.<node name>`}"`);
		} else if (expected && codex.node !== expected) {
			problems.push(`${codexPath}: "node" is "${codex.node}", the node is named "${expected}"`);
		}
		for (const key of ['nodeVersion', 'codexVersion'] as const) {
			if (typeof codex[key] !== 'string') problems.push(`${codexPath}: no "${key}"`);
		}
		if (!Array.isArray(codex.categories) || codex.categories.length === 0)
			problems.push(`${codexPath}: no "categories"`);
		if (!hasDocUrl(codex.resources?.primaryDocumentation)) {
			problems.push(`${codexPath}: no "resources.primaryDocumentation" URL`);
		}
		if (
			/\bcredentials:\s*\[\s*\{/.test(js) &&
			!hasDocUrl(codex.resources?.credentialDocumentation)
		) {
			problems.push(
				`${codexPath}: the node uses a credential but has no "resources.credentialDocumentation" URL`,
			);
		}
	}
	return problems.length === 0
		? pass(name, nodes.map((n) => basename(`${n}on`)).join(', '))
		: fail(name, problems.join('; '));
}

/** Markdown section headings (level 2 and deeper: not the title) outside code fences. */
export function headings(markdown: string): string[] {
	const out: string[] = [];
	let inFence = false;
	for (const line of markdown.split('\n')) {
		if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
		else if (!inFence) {
			const m = /^#{2,6}\s+(.+?)\s*#*\s*$/.exec(line);
			if (m) out.push(m[1]);
		}
	}
	return out;
}

/** The README sections n8n's reviewers look for, with the headings that count as each. */
const README_SECTIONS: Array<{ what: string; heading: RegExp }> = [
	{ what: 'installation', heading: /\binstall/i },
	{
		what: 'usage (the nodes and their operations)',
		heading: /\busage\b|\boperations?\b|\bhow to use\b|\b(node|trigger)s?$/i,
	},
	{ what: 'credentials', heading: /\bcredentials?\b/i },
	{ what: 'example workflows', heading: /\bexamples?\b/i },
];

export function checkReadme(pkgDir: string, files: string[]): CheckResult {
	const name = 'README: installation, usage, credentials, example workflows';
	const readme = files.find((f) => /^readme(\.md)?$/i.test(f));
	if (!readme) return fail(name, 'no README in the package');
	const found = headings(readFileSync(join(pkgDir, readme), 'utf8'));
	const missing = README_SECTIONS.filter((s) => !found.some((h) => s.heading.test(h))).map(
		(s) => s.what,
	);
	return missing.length === 0
		? pass(name, `${found.length} headings in ${readme}`)
		: fail(name, `${readme} has no section on: ${missing.join(', ')}`);
}

// ---------------------------------------------------------------------------------------------
// The source (only when verifying the repository itself)

export function checkChangelog(sourceDir: string, version: string | undefined): CheckResult {
	const name = 'CHANGELOG has an entry for this version';
	const file = join(sourceDir, 'CHANGELOG.md');
	if (!existsSync(file)) return fail(name, 'no CHANGELOG.md');
	if (!version) return fail(name, 'package.json has no version');
	const escaped = version.replace(/[.+]/g, '\\$&');
	const entry = new RegExp(`^##\\s+\\[?v?${escaped}\\]?(\\s|$)`, 'm');
	return entry.test(readFileSync(file, 'utf8'))
		? pass(name, `## ${version}`)
		: fail(
				name,
				`CHANGELOG.md has no "## ${version}" heading: add the release notes before tagging`,
			);
}
