// The rules n8n applies to community nodes: @n8n/eslint-plugin-community-nodes (what n8n's
// verification scanner checks) and eslint-plugin-n8n-nodes-base (the long-standing node rules).
// Laid out like the config that @n8n/node-cli ships to new node packages. The tests, the
// harness, the benchmarks and the scripts, which are never shipped, get the TypeScript rules
// without the community-node ones.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const communityRecommended = n8nCommunityNodesPlugin.configs.recommended;

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', '.tmp/**'] },
	{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
	{
		files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended],
		rules: {
			'@typescript-eslint/no-unused-vars': [
				'error',
				{
					argsIgnorePattern: '^_',
					varsIgnorePattern: '^_',
					destructuredArrayIgnorePattern: '^_',
					caughtErrors: 'none',
				},
			],
			eqeqeq: ['error', 'always'],
			// A focused test left in skips every other test of its file without a word.
			'no-restricted-properties': [
				'error',
				...['describe', 'it', 'test'].map((object) => ({
					object,
					property: 'only',
					message: 'Commit no focused tests.',
				})),
			],
		},
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		ignores: ['**/*.test.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended, communityRecommended],
		rules: {
			'prefer-spread': 'off',
			'no-console': 'error',
		},
	},
	{
		files: ['package.json'],
		extends: [communityRecommended],
		rules: { ...n8nNodesBase.configs.community.rules },
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: { extraFileExtensions: ['.json'] },
		},
	},
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// Community credentials link a full URL, which this rule would lower-case.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		ignores: ['**/*.test.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// These three assume a single-file node and n8n's in-repo connection types.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
);
