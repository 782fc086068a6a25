/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * What the README must cover, read from the code itself, so that a node, an operation, an
 * option or an error message added to the package is missing from the README until someone
 * writes it there: the nodes package.json declares, the parameters and choices of each node's
 * description, and every message the nodes and the credential can show a user.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative, resolve } from 'path';
import * as ts from 'typescript';
import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';

export const ROOT = resolve(__dirname, '..', '..');

/** The nodes package.json declares, loaded from their sources (dist/x.node.js → x.node.ts). */
export function declaredNodes(): INodeTypeDescription[] {
	const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[] };
	};
	return pkg.n8n.nodes.map((path) => {
		const source = join(ROOT, path.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(source) as Record<string, unknown>;
		const descriptions = Object.values(exported)
			.filter((value): value is new () => INodeType => typeof value === 'function')
			.map((NodeClass) => new NodeClass().description)
			.filter((description) => description?.properties !== undefined);
		if (descriptions.length !== 1)
			throw new Error(
				`${path}: expected one node class in ${source}, found ${descriptions.length}`,
			);
		return descriptions[0];
	});
}

/** The version a node added now gets: what the README describes. */
function currentVersion(description: INodeTypeDescription): number {
	const versions = ([] as number[]).concat(description.version);
	return description.defaultVersion ?? Math.max(...versions);
}

/** Whether a parameter shows in the current version (older versions' parameters live in docs/). */
function inVersion(property: INodeProperties, version: number): boolean {
	const shown = property.displayOptions?.show?.['@version'];
	const hidden = property.displayOptions?.hide?.['@version'];
	if (Array.isArray(shown) && !shown.includes(version)) return false;
	if (Array.isArray(hidden) && hidden.includes(version)) return false;
	return true;
}

export interface NodeCoverage {
	displayName: string;
	/** "Resource: Operation" pairs, or operations alone for a node without resources. */
	operations: Array<{ resource?: string; operation: string }>;
	/** Parameter names a user sets (the Options collections' entries included). */
	parameters: string[];
	/** The names of the choices of every options parameter other than Resource and Operation. */
	choices: string[];
}

/** What the README must say about one node, from its description. */
export function nodeCoverage(description: INodeTypeDescription): NodeCoverage {
	const version = currentVersion(description);
	const properties = description.properties.filter((property) => inVersion(property, version));
	const resources = properties.find((property) => property.name === 'resource');
	const operations: NodeCoverage['operations'] = [];
	for (const property of properties.filter((candidate) => candidate.name === 'operation')) {
		const owners = (property.displayOptions?.show?.resource as string[] | undefined) ?? [];
		const resourceNames = owners.map(
			(value) =>
				(resources?.options as Array<{ name: string; value: string }> | undefined)?.find(
					(option) => option.value === value,
				)?.name ?? value,
		);
		for (const option of (property.options ?? []) as Array<{ name: string }>) {
			if (resourceNames.length === 0) operations.push({ operation: option.name });
			for (const resource of resourceNames) operations.push({ resource, operation: option.name });
		}
	}
	const parameters = new Set<string>();
	const choices = new Set<string>();
	const visit = (list: readonly unknown[]) => {
		for (const entry of list as INodeProperties[]) {
			if (!inVersion(entry, version) || entry.type === 'notice' || entry.type === 'hidden')
				continue;
			if (entry.name === 'resource' || entry.name === 'operation') continue;
			if (entry.type === 'collection' || entry.type === 'fixedCollection') {
				visit((entry.options ?? []) as unknown[]);
				continue;
			}
			parameters.add(entry.displayName);
			if (entry.type === 'options' || entry.type === 'multiOptions')
				for (const option of (entry.options ?? []) as Array<{ name: string }>)
					choices.add(option.name);
		}
	};
	visit(properties);
	return {
		displayName: description.displayName,
		operations,
		parameters: [...parameters],
		choices: [...choices],
	};
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
	});
}

/** A message as text with `…` where the code fills something in, and where it is written. */
export interface UserMessage {
	text: string;
	where: string;
}

/** The texts an expression can give: each string, each branch of a choice, each value of a map. */
function texts(node: ts.Expression): string[] {
	if (ts.isParenthesizedExpression(node)) return texts(node.expression);
	if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
	if (ts.isTemplateExpression(node))
		return [node.head.text + node.templateSpans.map((span) => `…${span.literal.text}`).join('')];
	if (ts.isConditionalExpression(node)) return [...texts(node.whenTrue), ...texts(node.whenFalse)];
	if (ts.isElementAccessExpression(node) && ts.isObjectLiteralExpression(node.expression))
		return node.expression.properties.flatMap((property) =>
			ts.isPropertyAssignment(property) ? texts(property.initializer) : [],
		);
	return [];
}

const ERROR_CLASSES = new Set(['NodeOperationError', 'NodeApiError']);

/**
 * Every message a user can be shown: the message of each NodeOperationError and NodeApiError the
 * code makes (directly, or through errors.ts's makeApiError), each `message` the code builds
 * (a property or a variable of that name), and the credential test's messages.
 */
export function userMessages(): UserMessage[] {
	const found = new Map<string, UserMessage>();
	const files = [...sourceFiles(join(ROOT, 'nodes')), ...sourceFiles(join(ROOT, 'credentials'))];
	for (const file of files) {
		const source = ts.createSourceFile(
			file,
			readFileSync(file, 'utf8'),
			ts.ScriptTarget.Latest,
			true,
		);
		const add = (expression: ts.Expression | undefined) => {
			if (!expression) return;
			for (const text of texts(expression)) {
				const { line } = source.getLineAndCharacterOfPosition(expression.getStart());
				if (!found.has(text))
					found.set(text, { text, where: `${relative(ROOT, file)}:${line + 1}` });
			}
		};
		const visit = (node: ts.Node) => {
			if (ts.isNewExpression(node) && ERROR_CLASSES.has(node.expression.getText(source)))
				add(node.arguments?.[1]);
			else if (ts.isCallExpression(node) && node.expression.getText(source) === 'makeApiError')
				add(node.arguments[2]);
			else if (ts.isPropertyAssignment(node) && node.name.getText(source) === 'message')
				add(node.initializer);
			else if (ts.isVariableDeclaration(node) && node.name.getText(source) === 'message')
				add(node.initializer);
			else if (
				ts.isBinaryExpression(node) &&
				node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
				node.left.getText(source) === 'message'
			)
				add(node.right);
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return [...found.values()];
}

/**
 * A message as a pattern for the README: its fixed words must be there in order; where the
 * code fills something in, the README may write anything ("…", an example).
 */
export function messagePattern(text: string): RegExp {
	const escape = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return new RegExp(text.split('…').map(escape).join('.*?'));
}
