/**
 * The signatures Forms.wtf puts on a webhook delivery. Its two public pages describe two
 * headers for the same thing, an HMAC-SHA256 of the raw body under the webhook's secret:
 * `X-Webhook-Signature: <hex>` (API reference) and `X-Forms-Signature: sha256=<hex>`
 * (integrations page). Either is accepted, each with or without the `sha256=` prefix.
 */
import { createHmac, timingSafeEqual } from 'crypto';

/** Request headers, names in lower case (as Node gives them, whatever case was sent). */
export type RequestHeaders = Record<string, string | string[] | undefined>;

export const SIGNATURE_HEADERS = ['x-webhook-signature', 'x-forms-signature'] as const;

export type SignatureCheck = 'valid' | 'missing' | 'mismatch';

/** `sha256=<64 hex>` or `<64 hex>`, any case, spaces around the parts tolerated. */
const SIGNATURE_VALUE = /^\s*(?:sha256\s*=\s*)?([0-9a-f]{64})\s*$/i;

/** Every signature the request carries; a header given twice (joined with commas by Node) counts each. */
function signaturesOf(headers: RequestHeaders): string[] | undefined {
	let present = false;
	const found: string[] = [];
	for (const name of SIGNATURE_HEADERS) {
		const value = headers[name];
		if (value === undefined) continue;
		present = true;
		for (const part of (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(','))) {
			const match = SIGNATURE_VALUE.exec(part);
			if (match) found.push(match[1].toLowerCase());
		}
	}
	return present ? found : undefined;
}

/**
 * Whether one of the request's signatures is the HMAC-SHA256 of exactly these bytes under the
 * secret. Compared in constant time; an empty secret matches nothing.
 */
export function checkSignature(
	rawBody: Buffer,
	headers: RequestHeaders,
	secret: string,
): SignatureCheck {
	const given = signaturesOf(headers);
	if (given === undefined) return 'missing';
	if (secret === '') return 'mismatch';
	const expected = createHmac('sha256', secret).update(rawBody).digest();
	let valid = false;
	// Every candidate is compared, so the time taken does not tell which one matched.
	for (const hex of given) {
		if (timingSafeEqual(Buffer.from(hex, 'hex'), expected)) valid = true;
	}
	return valid ? 'valid' : 'mismatch';
}
