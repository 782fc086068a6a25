// `npm run lint`: everything `n8n-node lint` checks (n8n's default config, in eslint.config.mjs,
// which n8n's strict mode requires unchanged), plus the project's own rules.
//
// n8n's default config lints every .ts file in the package with the rules for code that runs in
// n8n Cloud. The tests, the local API, the benchmarks and the scripts never ship (package.json
// publishes only dist/, compiled from nodes/ and credentials/) and run in Node.js: each such file
// turns off, in a comment at its top, the n8n rules it must break (Node's globals and modules,
// the console) and says why. Everything else in those rules still applies to them.
import { config as n8nDefault } from '@n8n/node-cli/eslint';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{ ignores: ['.tmp/**', 'coverage/**'] },
	...n8nDefault,
	{
		files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
		rules: {
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
		rules: { eqeqeq: ['error', 'always'] },
	},
	{
		files: ['credentials/**/*.ts'],
		rules: {
			// n8n's default turns this one off; a secret field here must be a password field.
			'n8n-nodes-base/cred-class-field-type-options-password-missing':
				n8nNodesBase.configs.credentials.rules[
					'n8n-nodes-base/cred-class-field-type-options-password-missing'
				],
		},
	},
	{
		linterOptions: { reportUnusedDisableDirectives: 'error' },
	},
);
