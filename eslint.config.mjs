// The rules n8n applies to community nodes: @n8n/eslint-plugin-community-nodes (what n8n's
// verification scanner checks) and eslint-plugin-n8n-nodes-base (the long-standing node rules).
// Laid out like the config that @n8n/node-cli ships to new node packages.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const communityRecommended = n8nCommunityNodesPlugin.configs.recommended;

export default tseslint.config(
	{ ignores: ['dist/**', 'node_modules/**', 'test/**', 'scripts/**', 'bench/**'] },
	{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
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
