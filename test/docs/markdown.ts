/**
 * Just enough Markdown for the documentation tests: headings and their GitHub anchors, the
 * sections under them, links and images, and table rows. Fenced code blocks are skipped.
 */

export interface Heading {
	level: number;
	text: string;
	anchor: string;
	/** 0-based line of the heading. */
	line: number;
}

/** The lines outside fenced code blocks, with their line numbers. */
function proseLines(markdown: string): Array<{ text: string; line: number }> {
	const out: Array<{ text: string; line: number }> = [];
	let fenced = false;
	markdown.split('\n').forEach((text, line) => {
		if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
		else if (!fenced) out.push({ text, line });
	});
	return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(text: string): string {
	return text
		.replace(/`/g, '')
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

export function headings(markdown: string): Heading[] {
	const seen = new Map<string, number>();
	const out: Heading[] = [];
	for (const { text, line } of proseLines(markdown)) {
		const match = /^(#{1,6})\s+(.+?)\s*#*\s*$/.exec(text);
		if (!match) continue;
		const base = slug(match[2]);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		out.push({
			level: match[1].length,
			text: match[2],
			anchor: count === 0 ? base : `${base}-${count}`,
			line,
		});
	}
	return out;
}

/** The text under a heading, down to the next heading of the same or a higher level. */
export function section(markdown: string, heading: Heading): string {
	const lines = markdown.split('\n');
	const next = headings(markdown).find(
		(other) => other.line > heading.line && other.level <= heading.level,
	);
	return lines.slice(heading.line, next?.line ?? lines.length).join('\n');
}

export interface Link {
	image: boolean;
	text: string;
	target: string;
	line: number;
}

/** Inline links and images, `[text](target)` and `![alt](path)`, outside code. */
export function links(markdown: string): Link[] {
	const out: Link[] = [];
	for (const { text, line } of proseLines(markdown)) {
		const withoutCode = text.replace(/`[^`]*`/g, '');
		for (const match of withoutCode.matchAll(/(!?)\[([^\]]*)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
			out.push({ image: match[1] === '!', text: match[2], target: match[3], line: line + 1 });
	}
	return out;
}

/** The rows of the tables in a piece of Markdown (header and separator rows included). */
export function tableRows(markdown: string): string[] {
	return proseLines(markdown)
		.map(({ text }) => text.trim())
		.filter((text) => text.startsWith('|'));
}

/** The cells of a table row, trimmed, with Markdown emphasis taken off. */
export function cells(row: string): string[] {
	return row
		.replace(/^\||\|$/g, '')
		.split('|')
		.map((cell) => cell.replace(/[*_`]/g, '').trim());
}
