/**
 * What people put between IDs they paste: spaces and line breaks, commas, semicolons, pipes,
 * the quotes and brackets of a copied list, full-width commas, and the invisible zero-width
 * characters (which `\s` does not cover). A form ID has none of these.
 */
const FORM_ID_SEPARATORS = /[\s,;|"'`[\](){}\u200b-\u200d\u2060\ufeff\uff0c\uff1b\u3001]+/;

/** "a, b c", "a;b", '["a", "b"]' or ["a", "b"]: the IDs, without separators or empties. */
export function parseFormIds(value: unknown): string[] {
	const entries: unknown[] = Array.isArray(value) ? value : [value ?? ''];
	return entries
		.flatMap((entry) => String(entry).split(FORM_ID_SEPARATORS))
		.filter((part) => part !== '');
}
