/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The documentation, checked rather than hoped: the README stays within its budget, no link or
 * picture in the documentation points nowhere, the codex files send n8n's "Docs" link to each
 * node's own section, and every node, operation, parameter, choice and error message the code
 * has is in the README's tables. What must be listed is read from the code (test/docs/sources.ts),
 * so a node, an option or a message added later fails here until the README says it.
 *
 * To document a new node: a `## The <display name>` section (or `## <display name>`) whose tables
 * name its operations (a row "| Resource | Operation | …"), parameters and choices; its codex
 * file's primaryDocumentation points at that section's anchor. A new error message goes in a row
 * of a README table (Troubleshooting), written as the code writes it, with "…" where the code
 * fills something in.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import { dirname, join, relative, resolve } from 'path';

import { cells, headings, links, section, tableRows } from './markdown';
import type { Heading } from './markdown';
import { declaredNodes, messagePattern, nodeCoverage, ROOT, userMessages } from './sources';

/** "About 15,000 characters": what a person reads in about five minutes. */
const README_BUDGET = 15_000;
/** Pictures stay small enough to load fast on npm's and GitHub's pages. */
const IMAGE_BUDGET_BYTES = 200 * 1024;

const README = join(ROOT, 'README.md');
const readme = readFileSync(README, 'utf8');

/** The documentation a reader follows links through. */
function documents(): string[] {
	const docs = join(ROOT, 'docs');
	return [
		README,
		join(ROOT, 'CONTRIBUTING.md'),
		join(ROOT, 'CHANGELOG.md'),
		join(ROOT, 'examples', 'README.md'),
		join(ROOT, 'bench', 'README.md'),
		join(ROOT, 'test', 'harness', 'README.md'),
		...readdirSync(docs)
			.filter((name) => name.endsWith('.md'))
			.map((name) => join(docs, name)),
	].filter((file) => existsSync(file));
}

const anchorsOf = (file: string) =>
	new Set(headings(readFileSync(file, 'utf8')).map((heading) => heading.anchor));

/** What is wrong with a link in `from`, or undefined when it leads somewhere. */
function brokenLink(from: string, target: string, image: boolean): string | undefined {
	if (/^(https?:|mailto:)/.test(target)) return undefined;
	const [path, anchor] = target.split('#', 2);
	const file = path === '' ? from : resolve(dirname(from), decodeURIComponent(path));
	if (!existsSync(file)) return `${target}: no such file`;
	if (image) {
		if (!/\.(png|svg|jpe?g|gif)$/i.test(file)) return `${target}: not a picture`;
		const bytes = statSync(file).size;
		if (bytes > IMAGE_BUDGET_BYTES)
			return `${target}: ${Math.round(bytes / 1024)} KB, over ${IMAGE_BUDGET_BYTES / 1024} KB`;
	}
	if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor))
		return `${target}: no heading with the anchor #${anchor} in ${relative(ROOT, file)}`;
	return undefined;
}

/** The README section of a node: "The Forms.wtf node", "The Forms.wtf Trigger", "Forms.wtf …". */
function nodeHeading(displayName: string): Heading | undefined {
	const name = displayName.toLowerCase();
	return headings(readme).find((heading) => {
		const text = heading.text
			.toLowerCase()
			.replace(/^the\s+/, '')
			.replace(/\s+node$/, '');
		return heading.level === 2 && text === name;
	});
}

/** `name` in `text` as a whole phrase (not "Form" inside "Format"). */
function mentions(text: string, name: string): boolean {
	const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(text);
}

describe('the README', () => {
	test(`stays within its budget of ${README_BUDGET.toLocaleString('en')} characters`, () => {
		expect(Array.from(readme).length).toBeLessThanOrEqual(README_BUDGET);
	});

	test('starts with the two commands a newcomer runs', () => {
		const firstSection = section(readme, headings(readme)[1]);
		expect(headings(readme)[1].text).toBe('Try it in two commands');
		expect(firstSection).toContain('npm ci && npm run demo');
		expect(firstSection).toContain('npm run test:all');
	});

	test('links to the full guarantee of the trigger', () => {
		expect(links(readme).some((link) => link.target.split('#')[0] === 'docs/trigger.md')).toBe(
			true,
		);
	});
});

describe('links and pictures', () => {
	test.each(documents().map((file) => [relative(ROOT, file), file]))(
		'every link and picture in %s leads somewhere',
		(_name, file) => {
			const broken = links(readFileSync(file, 'utf8'))
				.map((link) => ({ link, problem: brokenLink(file, link.target, link.image) }))
				.filter(({ problem }) => problem !== undefined)
				.map(({ link, problem }) => `line ${link.line}: ${problem}`);
			expect(broken).toEqual([]);
		},
	);

	test('the README shows pictures of the nodes, each with a text for those who cannot see it', () => {
		const pictures = links(readme).filter((link) => link.image);
		expect(pictures.length).toBeGreaterThan(0);
		expect(pictures.filter((picture) => picture.text.trim().length < 10)).toEqual([]);
	});
});

describe('the codex files', () => {
	const homepage = (
		JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { homepage: string }
	).homepage.replace(/#.*$/, '');
	const codexFiles = declaredNodes().map((description) => {
		const file = readdirSync(join(ROOT, 'nodes'), { recursive: true, encoding: 'utf8' })
			.filter((path) => path.endsWith('.node.json'))
			.map((path) => join(ROOT, 'nodes', path))
			.find(
				(path) =>
					(JSON.parse(readFileSync(path, 'utf8')) as { node: string }).node.split('.').pop() ===
					description.name,
			);
		return { description, file };
	});

	test.each(
		codexFiles.map(({ description, file }) => [description.displayName, description, file]),
	)(
		"%s: its documentation links lead to the README's section of that node and to Credentials",
		(_name, description, file) => {
			expect(file).toBeDefined();
			const codex = JSON.parse(readFileSync(file as string, 'utf8')) as {
				resources: Record<string, Array<{ url: string }>>;
			};
			const anchorOf = (url: string) => {
				expect(url.startsWith(`${homepage}#`)).toBe(true);
				return url.slice(homepage.length + 1);
			};
			const primary = codex.resources.primaryDocumentation.map((entry) => anchorOf(entry.url));
			const credential = codex.resources.credentialDocumentation.map((entry) =>
				anchorOf(entry.url),
			);
			expect(primary).toEqual([nodeHeading(description.displayName)?.anchor]);
			expect(credential).toEqual(['credentials']);
			expect(anchorsOf(README).has('credentials')).toBe(true);
		},
	);
});

describe("what the code offers is in the README's tables", () => {
	const nodes = declaredNodes().map(nodeCoverage);

	test.each(nodes.map((node) => [node.displayName, node]))(
		'%s: a section of its own, with every operation, parameter and choice in its tables',
		(_name, node) => {
			const heading = nodeHeading(node.displayName);
			expect(heading).toBeDefined();
			const rows = tableRows(section(readme, heading as Heading));
			const tables = rows.join('\n');
			const missing = [
				...node.operations
					.filter(({ resource, operation }) => {
						return !rows.some((row) => {
							const [first, second] = cells(row);
							return resource === undefined
								? first === operation
								: first === resource && second === operation;
						});
					})
					.map(({ resource, operation }) =>
						resource ? `operation ${resource} → ${operation}` : `operation ${operation}`,
					),
				...node.parameters
					.filter((name) => !mentions(tables, name))
					.map((name) => `parameter ${name}`),
				...node.choices.filter((name) => !mentions(tables, name)).map((name) => `choice ${name}`),
			];
			expect(missing).toEqual([]);
		},
	);

	test('every message the nodes and the credential can show is in a table, with what to do', () => {
		const rows = tableRows(readme);
		const missing = userMessages()
			.filter((message) => !rows.some((row) => messagePattern(message.text).test(row)))
			.map((message) => `${message.text} (${message.where})`);
		expect(missing).toEqual([]);
	});

	test('the messages are read from the code (a check that finds none would check nothing)', () => {
		const texts = userMessages().map((message) => message.text);
		expect(texts).toEqual(
			expect.arrayContaining([
				'Forms.wtf did not accept the API key',
				'Form "…" was not found',
				'No forms selected',
			]),
		);
		expect(nodes.length).toBeGreaterThanOrEqual(2);
		expect(nodes.flatMap((node) => node.operations).length).toBeGreaterThan(0);
	});
});
