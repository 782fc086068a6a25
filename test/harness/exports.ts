/**
 * Export bodies (layouts documented in README.md), produced as generators of ~64 KB chunks.
 * Wrapped in Readable.from and piped to the socket, a chunk is only built when the socket
 * wants more, so a 500 MB export of a huge form streams with backpressure and never exists
 * as one string; a client that goes away stops the generator.
 */
import { isoString, jsonText } from './globals';
import { ByteWriter } from './byteWriter';
import type { HarnessForm } from './data';
import type { RawResponse } from './generator';
import type { MerkleDump } from './merkle';
import type { JsonValue, ResponseOrder } from './types';

export type ExportFormat = 'csv' | 'json' | 'merkle';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['csv', 'json', 'merkle'];

const CHUNK_BYTES = 64 * 1024;

export const CSV_META_COLUMNS = [
	'id',
	'walletAddress',
	'ensName',
	'submittedAt',
	'durationSeconds',
] as const;

export function exportHeaders(format: ExportFormat, slug: string): Record<string, string> {
	const [contentType, extension] =
		format === 'csv'
			? ['text/csv; charset=utf-8', 'csv']
			: format === 'json'
				? ['application/json; charset=utf-8', 'json']
				: ['application/json; charset=utf-8', 'merkle.json'];
	return {
		'Content-Type': contentType,
		'Content-Disposition': `attachment; filename="${slug}-responses.${extension}"`,
	};
}

/**
 * Header names: the metadata columns, then each answerable question's label in form order.
 * A label already used (a duplicate label, or one equal to a metadata column) gets " (2)",
 * " (3)", … so every column keeps a distinct name.
 */
export function csvHeader(form: HarnessForm): string[] {
	const used = new Set<string>(CSV_META_COLUMNS);
	const names: string[] = [...CSV_META_COLUMNS];
	for (const q of form.store.generator.answerable) {
		let name = q.label;
		for (let n = 2; used.has(name); n++) name = `${q.label} (${n})`;
		used.add(name);
		names.push(name);
	}
	return names;
}

/** RFC 4180: quote a field that holds a comma, quote, CR or LF; double inner quotes. */
export function csvField(text: string): string {
	return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Cell text: strings as they are, numbers and booleans as text, arrays and objects as JSON, null/absent empty. */
export function csvCell(value: JsonValue | undefined): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'string') return value;
	if (typeof value === 'number' || typeof value === 'boolean') return `${value}`;
	return jsonText(value);
}

function csvRow(row: RawResponse): string {
	let line = `${csvField(row.id)},${csvField(row.walletAddress)},${csvField(row.ensName ?? '')},${isoString(row.submittedAtMs)},${row.durationSeconds}`;
	for (const value of row.values) line += ',' + csvField(csvCell(value));
	return line + '\r\n';
}

export function* csvChunks(form: HarnessForm, order: ResponseOrder): Generator<Buffer> {
	const records = form.store.snapshot(order);
	let out = new ByteWriter(CHUNK_BYTES * 2);
	out.write(csvHeader(form).map(csvField).join(',') + '\r\n');
	for (const record of records) {
		out.write(csvRow(form.store.row(record)));
		if (out.length >= CHUNK_BYTES) {
			yield out.finish();
			out = new ByteWriter(CHUNK_BYTES * 2);
		}
	}
	yield out.finish();
}

/** A JSON array of the same Response objects the responses endpoint sends, one per line. */
export function* jsonChunks(form: HarnessForm, order: ResponseOrder): Generator<Buffer> {
	const records = form.store.snapshot(order);
	let out = new ByteWriter(CHUNK_BYTES * 2);
	out.write('[');
	for (let i = 0; i < records.length; i++) {
		out.write((i === 0 ? '\n' : ',\n') + form.store.json(records[i]));
		if (out.length >= CHUNK_BYTES) {
			yield out.finish();
			out = new ByteWriter(CHUNK_BYTES * 2);
		}
	}
	out.write(records.length === 0 ? ']\n' : '\n]\n');
	yield out.finish();
}

/**
 * The dump exactly as JSON.stringify(tree.dump()) would print it, but written in chunks:
 * the tree and values arrays of a big form are tens of megabytes.
 */
export function* merkleChunks(dump: MerkleDump): Generator<Buffer> {
	let out = new ByteWriter(CHUNK_BYTES * 2);
	out.write('{');
	let firstKey = true;
	for (const [key, value] of Object.entries(dump) as [string, unknown][]) {
		out.write(`${firstKey ? '' : ','}${JSON.stringify(key)}:`);
		firstKey = false;
		if (!Array.isArray(value)) {
			out.write(JSON.stringify(value));
			continue;
		}
		out.write('[');
		for (let i = 0; i < value.length; i++) {
			out.write((i === 0 ? '' : ',') + jsonText(value[i]));
			if (out.length >= CHUNK_BYTES) {
				yield out.finish();
				out = new ByteWriter(CHUNK_BYTES * 2);
			}
		}
		out.write(']');
	}
	out.write('}');
	yield out.finish();
}
