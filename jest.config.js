/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/nodes', '<rootDir>/credentials', '<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// Sources import `x.node.js` for `x.node.ts` (see test/support/formsWtf.ts).
	moduleNameMapper: { '^(\\.{1,2}/.*\\.node)\\.js$': '$1' },
	transform: {
		// Types are checked once by `npm run typecheck`; with isolatedModules ts-jest only transpiles.
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	globalSetup: '<rootDir>/test/setup/globalSetup.ts',
	globalTeardown: '<rootDir>/test/setup/globalTeardown.ts',
	testTimeout: 30000,
};
