/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { createHmac } from 'crypto';

import { checkSignature } from '../../nodes/FormsWtf/webhook/signature';
import { delivery } from '../support/webhookTrigger';

const SECRET = 'whsec_3f9c1b7e2a';

function hmacHex(body: string | Buffer, secret = SECRET): string {
	return createHmac('sha256', secret).update(body).digest('hex');
}

describe('checkSignature', () => {
	const body = Buffer.from(delivery('integrations', undefined).body);

	it.each([
		['X-Webhook-Signature as the API reference sends it', { 'x-webhook-signature': hmacHex(body) }],
		[
			'X-Forms-Signature as the integrations page sends it',
			{ 'x-forms-signature': `sha256=${hmacHex(body)}` },
		],
		['upper-case hex and prefix', { 'x-forms-signature': `SHA256=${hmacHex(body).toUpperCase()}` }],
		[
			'spaces around the value and the "="',
			{ 'x-forms-signature': `  sha256 = ${hmacHex(body)}  ` },
		],
		['the prefix on the other header', { 'x-webhook-signature': `sha256=${hmacHex(body)}` }],
		[
			'a header sent twice, one of them right',
			{ 'x-webhook-signature': `${'0'.repeat(64)}, ${hmacHex(body)}` },
		],
		[
			'one wrong header beside a right one',
			{ 'x-webhook-signature': '0'.repeat(64), 'x-forms-signature': `sha256=${hmacHex(body)}` },
		],
	])('accepts %s', (_name, headers) => {
		expect(checkSignature(body, headers, SECRET)).toBe('valid');
	});

	it('reports a request without either header as missing', () => {
		expect(checkSignature(body, {}, SECRET)).toBe('missing');
		expect(checkSignature(body, { 'x-signature': hmacHex(body) }, SECRET)).toBe('missing');
	});

	it.each([
		['another secret', { 'x-webhook-signature': hmacHex(body, 'whsec_other') }],
		['an empty value', { 'x-webhook-signature': '' }],
		['a value that is not hex', { 'x-forms-signature': 'sha256=not-a-signature' }],
		['a truncated signature', { 'x-webhook-signature': hmacHex(body).slice(0, 63) }],
		['a signature one character too long', { 'x-webhook-signature': `${hmacHex(body)}0` }],
		['another algorithm named', { 'x-forms-signature': `sha1=${hmacHex(body)}` }],
	])('refuses %s', (_name, headers) => {
		expect(checkSignature(body, headers, SECRET)).toBe('mismatch');
	});

	it('refuses a body changed by one byte, wherever the byte is', () => {
		const signature = { 'x-webhook-signature': hmacHex(body) };
		for (const at of [0, Math.floor(body.length / 2), body.length - 1]) {
			const changed = Buffer.from(body);
			changed[at] ^= 0x01;
			expect(checkSignature(changed, signature, SECRET)).toBe('mismatch');
		}
		expect(checkSignature(Buffer.concat([body, Buffer.from(' ')]), signature, SECRET)).toBe(
			'mismatch',
		);
	});

	it('refuses a signature when the secret is empty, even the HMAC under the empty key', () => {
		expect(checkSignature(body, { 'x-webhook-signature': hmacHex(body, '') }, '')).toBe('mismatch');
	});

	it('checks the bytes, not a re-serialised copy', () => {
		const spaced = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 2));
		expect(checkSignature(spaced, { 'x-webhook-signature': hmacHex(body) }, SECRET)).toBe(
			'mismatch',
		);
		expect(checkSignature(spaced, { 'x-webhook-signature': hmacHex(spaced) }, SECRET)).toBe(
			'valid',
		);
	});

	it('signs a 10 MB body like any other', () => {
		const big = Buffer.alloc(10 * 1024 * 1024, 0x61);
		expect(checkSignature(big, { 'x-webhook-signature': hmacHex(big) }, SECRET)).toBe('valid');
	});
});
