/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The user guides speak to the people who use the nodes: what a node does, what to set, what
 * comes out, what to do when it says something. How the package is built and tested belongs in
 * docs/design.md and CONTRIBUTING.md. This keeps the maintainers' words out of the guides: a
 * guide that names a test file, a fuzz seed, a review, or a piece of n8n's insides fails here,
 * with the line that does.
 */
import { readFileSync } from 'fs';
import { join } from 'path';

import { ROOT } from './sources';

/** The guides a user reads, named one by one so a new guide is added on purpose. */
const USER_GUIDES = [
	'README.md',
	'docs/node.md',
	'docs/trigger.md',
	'docs/webhook-trigger.md',
	'docs/ai-agent.md',
	'docs/queue-mode.md',
	'examples/README.md',
];

interface Rule {
	what: string;
	pattern: RegExp;
	/** A phrase the rule is there to catch: proves the pattern can fail a guide. */
	catches: string;
}

const RULES: Rule[] = [
	{
		what: 'a test file',
		pattern: /[\w./-]+\.test\.ts\b|\btest\/[\w./-]+\.ts\b/,
		catches: 'see `test/unit/credentialTest.test.ts`',
	},
	{ what: 'a fuzz seed', pattern: /\bfuzz|\bseeds? \d+/i, catches: 'found by seed 92003' },
	{
		what: 'a review',
		pattern: /\breviews? ?#?\d+|\badversarial reviews?\b/i,
		catches: 'a known gap (review 10)',
	},
	{ what: 'an expected failure', pattern: /\bit\.failing\b/, catches: 'pinned by it.failing' },
	{
		what: "one of n8n's internals",
		pattern:
			/(^|[^\w])__(?!proto__)[A-Za-z]\w*|\b(getPollBudgetMs|getWorkflowStaticData|isToolExecution)\b|\bstatic ?data\b/i,
		catches: "the report goes through n8n's `__emitError`",
	},
	{
		what: 'a source file of the package',
		pattern: /\bnodes\/[\w./-]+\.ts\b/,
		catches: 'described in `nodes/FormsWtf/trigger/state.ts`',
	},
];

/** Every line of `text` that a rule finds, as "line N: what (the words)". */
function findings(text: string): string[] {
	const out: string[] = [];
	text.split('\n').forEach((line, index) => {
		for (const rule of RULES) {
			const match = rule.pattern.exec(line);
			if (match) out.push(`line ${index + 1}: names ${rule.what} ("${match[0].trim()}")`);
		}
	});
	return out;
}

describe('the user guides speak to users only', () => {
	test.each(USER_GUIDES)('%s names no test, seed, review or n8n internal', (guide) => {
		expect(findings(readFileSync(join(ROOT, guide), 'utf8'))).toEqual([]);
	});

	test.each(RULES.map((rule) => [rule.what, rule]))(
		'the rule against %s finds what it is there to find',
		(_what, rule) => {
			expect(findings(`Some text.\n${rule.catches}\nMore text.`)).toEqual([
				expect.stringMatching(/^line 2: names /),
			]);
		},
	);

	test('words users need are not taken for maintainer notes', () => {
		const everyday = [
			'Review the responses in the sheet, then send the export.',
			'Run `npm run test:all` once you have the repository.',
			'The local API generates its data from a seed, so two runs give the same forms.',
			'Set **Form** to `{{ $json.formId }}`.',
			'A question labelled `__proto__` keeps its answer.',
		].join('\n');
		expect(findings(everyday)).toEqual([]);
	});
});
