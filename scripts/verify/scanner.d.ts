// Types for the parts of n8n's verification scanner (`@n8n/scan-community-package`, plain ESM
// without type declarations) that `npm run verify` calls. See scanner/scanner.mjs in that package.
declare module '@n8n/scan-community-package/scanner/scanner.mjs' {
	export interface ScanResult {
		passed: boolean;
		message?: string;
		/** ESLint's "stylish" report of the errors, when there are any. */
		details?: string;
	}

	/** What the scanner lints in the source checkout that the package's provenance points at. */
	export const SOURCE_FILE_PATTERNS: string[];

	/** Lints `filePatterns` under `packageDir` with the scanner's own ESLint config. */
	export function analyzePackage(packageDir: string, filePatterns?: string[]): Promise<ScanResult>;
}
