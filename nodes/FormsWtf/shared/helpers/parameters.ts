import type { IExecuteFunctions, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isSinglePathSegment, MAX_TIMEOUT_MS } from '../transport';

/** The Timeout option of an operation (milliseconds), or undefined for the transport's default. */
export function getTimeoutMs(this: IExecuteFunctions, itemIndex: number): number | undefined {
	const options = this.getNodeParameter('options', itemIndex, {}) as { timeout?: unknown };
	const value = options.timeout;
	if (value === undefined || value === null || value === '') return undefined;
	const ms = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof ms !== 'number' || Number.isNaN(ms) || ms < 1) {
		throw new NodeOperationError(
			this.getNode(),
			'"Timeout" must be a number of milliseconds, 1 or more',
			{
				description: `Got "${String(value)}".`,
				itemIndex,
			},
		);
	}
	const rounded = Math.round(ms);
	// Node's timers overflow at 2^31 ms and fire at once: a healthy request would time out.
	if (!Number.isFinite(rounded) || rounded > MAX_TIMEOUT_MS) {
		throw new NodeOperationError(
			this.getNode(),
			`"Timeout" must be at most ${MAX_TIMEOUT_MS} ms (about 24 days)`,
			{
				description: `Got "${String(value)}". The default, 30000 (30 s), suits almost every request; raise it only for a slow server or a very large export.`,
				itemIndex,
			},
		);
	}
	return rounded;
}

/** The form the user chose, whichever mode of the form picker they used. */
export function getFormId(this: IExecuteFunctions | IPollFunctions, itemIndex?: number): string {
	const value =
		itemIndex === undefined
			? this.getNodeParameter('formId', '', { extractValue: true })
			: this.getNodeParameter('formId', itemIndex, '', { extractValue: true });
	const formId = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	if (formId === '') {
		throw new NodeOperationError(this.getNode(), 'No form chosen', {
			description: 'Pick a form from the list, or enter its ID in "By ID".',
			itemIndex,
		});
	}
	// "." and ".." would not name a form but a level of the URL (the list of forms, the API).
	if (!isSinglePathSegment(formId)) {
		throw new NodeOperationError(this.getNode(), `"${formId}" is not a form ID`, {
			description:
				'"." and ".." cannot be form IDs. Pick the form from the list, or copy its ID again.',
			itemIndex,
		});
	}
	return formId;
}

const ISO_LIKE =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * Reads a date the user gave (a date picker string, an expression's Date or Luxon DateTime, or
 * epoch milliseconds) and returns it as the API wants it: ISO 8601 in UTC with milliseconds.
 * A date and time without a zone is read in the workflow's time zone, as n8n's own nodes do.
 */
export function toApiTimestamp(
	this: IExecuteFunctions | IPollFunctions,
	value: unknown,
	fieldName: string,
	itemIndex?: number,
): string {
	const date = parseUserDate(value, this.getTimezone());
	if (date === undefined) {
		throw new NodeOperationError(this.getNode(), `"${fieldName}" is not a date`, {
			description: `Got "${String(value)}". Use a date such as 2025-05-01T09:30:00Z, or pick one in the date field.`,
			itemIndex,
		});
	}
	return date.toISOString();
}

export function parseUserDate(value: unknown, timeZone: string): Date | undefined {
	if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
	if (typeof value === 'number') return Number.isFinite(value) ? new Date(value) : undefined;
	if (
		value &&
		typeof value === 'object' &&
		typeof (value as { toISO?: unknown }).toISO === 'function'
	) {
		return parseUserDate((value as { toISO: () => string }).toISO(), timeZone);
	}
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	const match = ISO_LIKE.exec(text);
	if (!match) return undefined;
	const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '0', zone] = match;
	const millis = Math.round(Number(`0.${fraction}`) * 1000);
	const wallClockUtc = Date.UTC(
		Number(y),
		Number(mo) - 1,
		Number(d),
		Number(h),
		Number(mi),
		Number(s),
		millis,
	);
	const check = new Date(wallClockUtc);
	if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h) > 23)
		return undefined;
	if (zone) {
		if (zone.toUpperCase() === 'Z') return check;
		const sign = zone.startsWith('-') ? -1 : 1;
		const digits = zone.slice(1).replace(':', '');
		const offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
		return new Date(wallClockUtc - offsetMinutes * 60_000);
	}
	return new Date(wallClockUtc - zoneOffsetMs(timeZone, wallClockUtc));
}

/** Offset of a time zone from UTC at (about) the given instant, from Intl; 0 for an unknown zone. */
function zoneOffsetMs(timeZone: string, instant: number): number {
	let format: Intl.DateTimeFormat;
	try {
		format = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
		});
	} catch {
		return 0;
	}
	const offsetAt = (t: number) => {
		const parts: Record<string, number> = {};
		for (const part of format.formatToParts(new Date(t))) parts[part.type] = Number(part.value);
		const asUtc = Date.UTC(
			parts.year,
			parts.month - 1,
			parts.day,
			parts.hour,
			parts.minute,
			parts.second,
		);
		return asUtc - Math.floor(t / 1000) * 1000;
	};
	// The wall-clock time is local; one correction step lands on the right side of a DST change.
	const first = offsetAt(instant);
	return offsetAt(instant - first);
}

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
		.filter((entry) => typeof entry === 'string' || typeof entry === 'number')
		.flatMap((entry) => String(entry).split(FORM_ID_SEPARATORS))
		.filter((part) => part !== '');
}
