/** Medians, spreads, tables and the target verdicts the parts share. */

export function median(values: number[]): number {
	const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export interface Summary {
	median: number;
	min: number;
	max: number;
	/** (max − min) / median: how noisy the repeats were. */
	spread: number;
	n: number;
}

export function summarize(values: number[]): Summary {
	const finite = values.filter((v) => Number.isFinite(v));
	const m = median(finite);
	const min = finite.length ? Math.min(...finite) : NaN;
	const max = finite.length ? Math.max(...finite) : NaN;
	return { median: m, min, max, spread: m ? (max - min) / m : NaN, n: finite.length };
}

export function fmtMs(ms: number): string {
	if (!Number.isFinite(ms)) return '–';
	if (ms < 10) return `${ms.toFixed(2)} ms`;
	if (ms < 1000) return `${ms.toFixed(0)} ms`;
	return `${(ms / 1000).toFixed(2)} s`;
}

export function fmtNum(value: number, digits = 0): string {
	return Number.isFinite(value)
		? value.toLocaleString('en-US', {
				maximumFractionDigits: digits,
				minimumFractionDigits: digits,
			})
		: '–';
}

export function fmtRatio(value: number): string {
	return Number.isFinite(value) ? `${value.toFixed(2)}x` : '–';
}

/** `median (min–max)` */
export function fmtSummary(summary: Summary, format: (v: number) => string = fmtMs): string {
	if (summary.n === 0) return '–';
	if (summary.n === 1) return format(summary.median);
	return `${format(summary.median)} (${format(summary.min)}–${format(summary.max)})`;
}

export function table(headers: string[], rows: string[][]): string {
	const widths = headers.map((header, i) =>
		Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)),
	);
	const line = (cells: string[]) =>
		cells
			.map((cell, i) => (cell ?? '').padEnd(widths[i]))
			.join('  ')
			.trimEnd();
	return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export interface Verdict {
	part: string;
	target: string;
	measured: string;
	/** null: not measured (skipped) */
	met: boolean | null;
	/** A figure to report, not a pass/fail target. */
	info?: boolean;
	note?: string;
}

export function verdictLine(v: Verdict): string {
	const mark =
		v.met === null ? 'SKIP' : v.info ? (v.met ? 'info' : 'FAIL') : v.met ? 'met ' : 'MISS';
	return `[${mark}] ${v.part}: ${v.target} — ${v.measured}${v.note ? ` (${v.note})` : ''}`;
}

export function mb(value: number): string {
	return Number.isFinite(value) ? `${value.toFixed(0)} MB` : '–';
}
