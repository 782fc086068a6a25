/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/no-dangerous-functions
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * `npm run verify -- --unpacked <dir>` on a small unpacked package built here: it passes when
 * the package is sound, and each way of breaking it fails the check that guards against it,
 * the scanner's lint included, so `npm run verify` cannot pass vacuously.
 */
import { execFile } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join, resolve } from 'path';

const ROOT = resolve(__dirname, '../..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

let workDir: string;

beforeAll(() => {
	workDir = mkdtempSync(join(tmpdir(), 'formswtf-verify-test-'));
});

afterAll(() => {
	rmSync(workDir, { recursive: true, force: true });
});

const SVG =
	'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 60"><rect width="60" height="60"/></svg>\n';

const nodeJs = (console = ''): string => `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.Demo = void 0;
const n8n_workflow_1 = require("n8n-workflow");
class Demo {
    constructor() {
        this.description = {
            displayName: 'Demo',
            name: 'demo',
            icon: { light: 'file:demo.svg', dark: 'file:demo.dark.svg' },
            group: ['transform'],
            version: 1,
            description: 'A demo node',
            defaults: { name: 'Demo' },
            usableAsTool: true,
            inputs: [n8n_workflow_1.NodeConnectionTypes.Main],
            outputs: [n8n_workflow_1.NodeConnectionTypes.Main],
            credentials: [{ name: 'demoApi', required: true }],
            properties: [],
        };
    }
    async execute() {
        const items = this.getInputData();${console}
        return [items.map((item, i) => ({ json: item.json, pairedItem: { item: i } }))];
    }
}
exports.Demo = Demo;
`;

const credentialJs = `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DemoApi = void 0;
class DemoApi {
    constructor() {
        this.name = 'demoApi';
        this.displayName = 'Demo API';
        this.icon = { light: 'file:demo.svg', dark: 'file:demo.dark.svg' };
        this.documentationUrl = 'https://github.com/example/n8n-nodes-demo#credentials';
        this.properties = [
            { displayName: 'API Key', name: 'apiKey', type: 'string', typeOptions: { password: true }, default: '' },
        ];
        this.authenticate = { type: 'generic', properties: { headers: { Authorization: '=Bearer {{$credentials.apiKey}}' } } };
        this.test = { request: { baseURL: 'https://example.com', url: '/me' } };
    }
}
exports.DemoApi = DemoApi;
`;

const packageJson = {
	name: 'n8n-nodes-demo',
	version: '1.0.0',
	description: 'A demo community node package',
	keywords: ['n8n-community-node-package'],
	license: 'MIT',
	homepage: 'https://github.com/example/n8n-nodes-demo#readme',
	author: { name: 'Demo', email: 'demo@example.com' },
	repository: { type: 'git', url: 'git+https://github.com/example/n8n-nodes-demo.git' },
	bugs: { url: 'https://github.com/example/n8n-nodes-demo/issues' },
	main: 'index.js',
	files: ['dist'],
	n8n: {
		n8nNodesApiVersion: 1,
		strict: true,
		credentials: ['dist/credentials/DemoApi.credentials.js'],
		nodes: ['dist/nodes/Demo/Demo.node.js'],
	},
	peerDependencies: { 'n8n-workflow': '*' },
} as Record<string, unknown>;

const codex = {
	node: 'n8n-nodes-demo.demo',
	nodeVersion: '1.0',
	codexVersion: '1.0',
	categories: ['Data & Storage'],
	resources: {
		credentialDocumentation: [{ url: 'https://github.com/example/n8n-nodes-demo#credentials' }],
		primaryDocumentation: [{ url: 'https://github.com/example/n8n-nodes-demo#usage' }],
	},
};

const readme = `# n8n-nodes-demo

## Installation

Settings → Community Nodes.

## Operations

Demo does things.

## Credentials

An API key.

## Example workflows

See examples/.
`;

const mitLicense = `MIT License

Copyright (c) 2026 Demo

Permission is hereby granted, free of charge, to any person obtaining a copy of this software.
`;

/** A sound unpacked package; `files` replaces (or, with `null`, removes) some of its files. */
function makePackage(name: string, files: Record<string, string | object | null> = {}): string {
	const dir = join(workDir, name);
	const all: Record<string, string | object | null> = {
		'package.json': packageJson,
		'README.md': readme,
		'LICENSE.md': mitLicense,
		'index.js': 'module.exports = {};\n',
		'dist/nodes/Demo/Demo.node.js': nodeJs(),
		'dist/nodes/Demo/Demo.node.json': codex,
		'dist/nodes/Demo/demo.svg': SVG,
		'dist/nodes/Demo/demo.dark.svg': SVG,
		'dist/credentials/DemoApi.credentials.js': credentialJs,
		'dist/credentials/demo.svg': SVG,
		'dist/credentials/demo.dark.svg': SVG,
		...files,
	};
	for (const [path, content] of Object.entries(all)) {
		if (content === null) continue;
		mkdirSync(dirname(join(dir, path)), { recursive: true });
		writeFileSync(
			join(dir, path),
			typeof content === 'string' ? content : JSON.stringify(content, null, 2),
		);
	}
	return dir;
}

interface Run {
	code: number;
	output: string;
	/** The PASS/FAIL status of each check, by the start of its name. */
	status: (check: string) => 'PASS' | 'FAIL' | undefined;
}

async function verify(dir: string): Promise<Run> {
	const { code, output } = await new Promise<{ code: number; output: string }>((done) => {
		execFile(
			TSX,
			['scripts/verify.ts', '--unpacked', dir],
			{ cwd: ROOT },
			(error, stdout, stderr) => {
				const exit = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
				done({ code: exit, output: stdout + stderr });
			},
		);
	});
	const status = (check: string): 'PASS' | 'FAIL' | undefined => {
		const line = output
			.split('\n')
			.find((l) => /^ {2}(PASS|FAIL) {2}/.test(l) && l.slice(8).startsWith(check));
		return line ? (line.slice(2, 6) as 'PASS' | 'FAIL') : undefined;
	};
	return { code, output, status };
}

const CHECKS = [
	'scanner lint, packed package',
	'no runtime dependencies',
	'peer dependency',
	'MIT license',
	'files list',
	'icons',
	'codex file',
	'README',
	'repository URL',
];

test('a sound package passes every check, and the exit code says so', async () => {
	const run = await verify(makePackage('sound'));
	expect(run.output).toContain('n8n verification checks: n8n-nodes-demo@1.0.0');
	for (const check of CHECKS) expect([check, run.status(check)]).toEqual([check, 'PASS']);
	expect(run.output).toContain(`verify: ${CHECKS.length} passed, 0 failed`);
	expect(run.code).toBe(0);
});

test('a console.log in the compiled code fails the scanner lint (no-console), naming file and line', async () => {
	const run = await verify(
		makePackage('console', {
			'dist/nodes/Demo/Demo.node.js': nodeJs('\n        console.log(items.length);'),
		}),
	);
	expect(run.status('scanner lint, packed package')).toBe('FAIL');
	expect(run.output).toMatch(
		/dist\/nodes\/Demo\/Demo\.node\.js\s+\S*\s*2[0-9]:9\s+error\s+Unexpected console statement\s+no-console/,
	);
	for (const check of CHECKS.slice(1)) expect([check, run.status(check)]).toEqual([check, 'PASS']);
	expect(run.output).toContain('verify: 8 passed, 1 failed');
	expect(run.code).toBe(1);
});

test('a runtime dependency fails both its own check and the scanner lint of package.json', async () => {
	const run = await verify(
		makePackage('dependency', {
			'package.json': { ...packageJson, dependencies: { axios: '1.7.0' } },
		}),
	);
	expect(run.status('no runtime dependencies')).toBe('FAIL');
	expect(run.output).toContain('dependencies.axios');
	expect(run.status('scanner lint, packed package')).toBe('FAIL');
	expect(run.output).toContain('package.json');
	expect(run.output).toMatch(/no-runtime-dependencies/);
	expect(run.code).toBe(1);
});

test('a package.json the guidelines reject fails peer dependency, license and repository checks', async () => {
	const run = await verify(
		makePackage('manifest', {
			'package.json': {
				...packageJson,
				license: 'ISC',
				peerDependencies: { 'n8n-workflow': '^2.0.0' },
				homepage: 'https://example.com',
				bugs: { url: 'https://github.com/someone-else/n8n-nodes-demo/issues' },
			},
		}),
	);
	expect(run.status('peer dependency')).toBe('FAIL');
	expect(run.status('MIT license')).toBe('FAIL');
	expect(run.output).toContain('"license" is "ISC"');
	expect(run.status('repository URL')).toBe('FAIL');
	expect(run.output).toContain(
		'"homepage" "https://example.com" is not github.com/example/n8n-nodes-demo',
	);
	expect(run.output).toContain('github.com/someone-else');
	expect(run.code).toBe(1);
});

test('missing files fail their checks: dark icon, codex, LICENSE, README sections, a leaked source file', async () => {
	const run = await verify(
		makePackage('files', {
			'dist/credentials/demo.dark.svg': null,
			'dist/nodes/Demo/Demo.node.json': null,
			'LICENSE.md': null,
			'README.md': '# n8n-nodes-demo\n\n## Installation\n\nSettings → Community Nodes.\n',
			'dist/nodes/Demo/Demo.node.ts': 'export class Demo {}\n',
		}),
	);
	expect(run.status('icons')).toBe('FAIL');
	expect(run.output).toContain(
		'dist/credentials/demo.dark.svg (dark icon of dist/credentials/DemoApi.credentials.js) is missing',
	);
	expect(run.status('codex file')).toBe('FAIL');
	expect(run.output).toContain('dist/nodes/Demo/Demo.node.json is missing from the tarball');
	expect(run.status('MIT license')).toBe('FAIL');
	expect(run.status('README')).toBe('FAIL');
	expect(run.output).toContain(
		'no section on: usage (the nodes and their operations), credentials, example workflows',
	);
	expect(run.status('files list')).toBe('FAIL');
	expect(run.output).toContain('should not be published: dist/nodes/Demo/Demo.node.ts');
	expect(run.status('no runtime dependencies')).toBe('PASS');
	expect(run.code).toBe(1);
});
