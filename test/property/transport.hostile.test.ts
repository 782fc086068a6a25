/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/no-hardcoded-secrets
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The shared transport and output shaping against generated hostile servers (fast-check):
 * - redirects of every kind (status, where the Location points, loops, chains, garbage): the
 *   key is only ever sent to the origin of the Base URL, requests are bounded, and the outcome
 *   is the answer or a redirect error that says what happened, never anything else;
 * - every body split at every byte, and at random sets of bytes: an export's error object is
 *   recognised as the whole body would be, a file is passed on byte for byte, JSON parses the same;
 * - answers whose labels and ids come from a hostile alphabet (`__proto__`, `constructor`, the
 *   empty label, labels that look like the " (2)" suffix): every answer is an own field of an
 *   ordinary object, survives n8n's copy and JSON, and nothing throws.
 */
import { Readable } from 'stream';
import fc from 'fast-check';
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';

import { simplifyResponse } from '../../nodes/FormsWtf/shared/helpers/output';
import { FormsWtfClient, startsAsErrorObject } from '../../nodes/FormsWtf/shared/transport';
import { MAX_REDIRECTS } from '../../nodes/FormsWtf/shared/transport/redirects';
import { FORM_LIST } from '../../nodes/FormsWtf/shared/transport/shapes';
import type { FormResponse } from '../../nodes/FormsWtf/shared/transport/types';
import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';
import { TRANSPORT_TEST_NODE } from '../unit/transportClient';

const API_KEY = 'fwtf_property_test_secret_key_42';
const BASE_URL = 'https://127.0.0.1:9/api/v1';
const BASE_ORIGIN = 'https://127.0.0.1:9';

interface Sent {
	url: string;
	withKey: boolean;
}

interface Answer {
	status: number;
	headers?: Record<string, string>;
	/** The body, in the parts it arrives in. */
	parts?: Buffer[];
}

/** A stream of parts that arrive one by one, as axios hands n8n a body (Readable.from). */
function arriving(parts: Buffer[]): Readable {
	async function* each() {
		for (const part of parts) {
			await new Promise((resolve) => setImmediate(resolve));
			yield part;
		}
	}
	return Readable.from(each(), { objectMode: false });
}

/** A node context whose requests are answered by `answer`, and every request recorded. */
function hostileClient(answer: (sent: Sent, index: number) => Answer) {
	const sent: Sent[] = [];
	const respond = async (options: IHttpRequestOptions, withKey: boolean) => {
		// The helper is always told not to follow: the transport does.
		expect(options.disableFollowRedirect).toBe(true);
		const url = new URL(options.url);
		for (const [name, value] of Object.entries(options.qs ?? {}))
			url.searchParams.set(name, String(value));
		const request = { url: url.href, withKey };
		sent.push(request);
		if (sent.length > 50) throw new Error('runaway');
		const { status, headers = {}, parts = [] } = answer(request, sent.length - 1);
		return { statusCode: status, headers, body: arriving(parts) };
	};
	const context = {
		getNode: () => TRANSPORT_TEST_NODE,
		getCredentials: async () => ({ apiKey: API_KEY, baseUrl: BASE_URL }),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: IHttpRequestOptions) =>
				await respond(options, true),
			httpRequest: async (options: IHttpRequestOptions) => await respond(options, false),
		},
	} as unknown as IExecuteFunctions;
	return { sent, client: new FormsWtfClient(context, { retryPolicy: testRetryPolicy }) };
}

beforeEach(() => {
	testRetryPolicy.wait = async () => undefined;
});
afterEach(() => resetTestRetryPolicy());

async function bodyOf(stream: unknown): Promise<Buffer> {
	const parts: Buffer[] = [];
	for await (const part of stream as AsyncIterable<Buffer>) parts.push(Buffer.from(part));
	return Buffer.concat(parts);
}

/** Where a generated redirect points. */
const location = fc.oneof(
	fc.constantFrom(
		'/api/v1/forms/',
		'/api/v1/other',
		'forms2',
		'?page=2',
		`${BASE_ORIGIN}/api/v1/forms`,
		'https://127.0.0.1:9/api/v1/forms',
		'https://user:pass@127.0.0.1:9/api/v1/x',
		'https://localhost:9/api/v1/forms',
		'https://127.0.0.1:10/api/v1/forms',
		'http://127.0.0.1:9/api/v1/forms',
		'https://files.example/f.csv?sig=s3cr3t',
		'http://files.example/f.csv',
		'javascript:alert(1)',
		'ftp://127.0.0.1:9/x',
		'http://[::1',
		'',
		'   ',
	),
	fc.webUrl({ withQueryParameters: true, withFragments: true }),
	fc.webPath().map((path) => `/api/v1${path}`),
);

const redirectHop = fc.record({
	status: fc.constantFrom(301, 302, 303, 307, 308),
	location: fc.option(location, { nil: undefined }),
});

const KNOWN_REDIRECT_ERRORS = [
	/^Forms\.wtf redirected the request to another host \(.+\)$/,
	/^Forms\.wtf redirected the download to an insecure address \(.+\)$/,
	/^Forms\.wtf redirected the request in a loop$/,
	new RegExp(`^Forms\\.wtf redirected the request more than ${MAX_REDIRECTS} times$`),
	/^Forms\.wtf answered with a redirect but no address to go to$/,
	/^Forms\.wtf redirected the request to an address that could not be read$/,
];

describe('transport, hostile redirects', () => {
	it.each([
		['a JSON request', false],
		['an export', true],
	])(
		'%s: the key stays with the Base URL’s origin, requests are bounded, the outcome is clear',
		async (_case, isExport) => {
			await fc.assert(
				fc.asyncProperty(
					fc.array(redirectHop, { maxLength: 14 }),
					fc.boolean(),
					async (hops, loopBack) => {
						const { sent, client } = hostileClient((_request, index): Answer => {
							if (index < hops.length) {
								const hop = hops[index];
								// A chain may also point back at the first address: a loop.
								const target =
									loopBack && index === hops.length - 1 ? '/api/v1/forms' : hop.location;
								return {
									status: hop.status,
									headers:
										target === undefined ? {} : ({ location: target } as Record<string, string>),
								};
							}
							return {
								status: 200,
								parts: [Buffer.from(isExport ? 'a,b\n1,2\n' : '{"forms":[]}')],
							};
						});
						let outcome: unknown;
						try {
							const request = { path: ['forms'], expect: FORM_LIST };
							outcome = isExport
								? await bodyOf((await client.download(request)).body)
								: (await client.request(request)).body;
						} catch (error) {
							outcome = error;
						}
						// The key only ever goes to the origin of the Base URL.
						for (const request of sent) {
							if (request.withKey) expect(new URL(request.url).origin).toBe(BASE_ORIGIN);
							else expect(isExport).toBe(true);
							expect(new URL(request.url).username).toBe('');
						}
						// Never from https down to http, and never past the bound.
						expect(sent.every((request) => request.url.startsWith('https:'))).toBe(true);
						expect(sent.length).toBeLessThanOrEqual(MAX_REDIRECTS + 1);
						if (outcome instanceof Error) {
							expect(KNOWN_REDIRECT_ERRORS.some((pattern) => pattern.test(outcome.message))).toBe(
								true,
							);
							expect(JSON.stringify(outcome)).not.toContain(API_KEY);
							expect(
								`${outcome.message} ${(outcome as { description?: string }).description}`,
							).not.toMatch(/s3cr3t|pass@/);
						} else {
							expect(sent).toHaveLength(hops.length + 1);
							if (!isExport) expect(outcome).toEqual({ forms: [] });
							else expect(String(outcome)).toBe('a,b\n1,2\n');
						}
					},
				),
				{ numRuns: 300 },
			);
		},
	);
});

/** Every way to split a body: at each single byte, and at random sets of bytes. */
function splits(body: Buffer): fc.Arbitrary<Buffer[]> {
	return fc
		.uniqueArray(fc.integer({ min: 1, max: Math.max(1, body.length - 1) }), {
			maxLength: Math.min(8, body.length),
		})
		.map((cuts) => {
			const points = [
				0,
				...cuts.filter((cut) => cut < body.length).sort((a, b) => a - b),
				body.length,
			];
			const parts: Buffer[] = [];
			for (let i = 1; i < points.length; i++)
				if (points[i] > points[i - 1]) parts.push(body.subarray(points[i - 1], points[i]));
			return parts;
		});
}

/** Bodies an export can answer with: files, the API's error object, and what looks like it. */
const exportBody = fc.oneof(
	fc.constantFrom(
		'{"error":"export failed"}',
		'\n\n  {  "error" :  "plan"}',
		'\ufeff{"error":"with a byte order mark"}',
		'{"format":"standard-v1","tree":[]}',
		'{"errors":["not the error object"]}',
		'{"err',
		'{',
		'   ',
		'',
		'[{"id":"r1"}]',
		'id,answer\n1,"{""error"":1}"\n',
		'"error",x\n',
		'{"error"',
		'{"error" x',
		'é,ü\n',
	),
	fc.string({ unit: fc.constantFrom(' ', '\n', '\t', '{', '"', 'e', 'r', 'o', ':', 'x', '€') }),
	fc.json(),
);

describe('transport, bodies split at every byte', () => {
	it('an export: the error object is recognised as the whole body would be, a file passed on whole', async () => {
		await fc.assert(
			fc.asyncProperty(
				exportBody.chain((text) => {
					const body = Buffer.from(text);
					return fc.tuple(fc.constant(body), splits(body));
				}),
				async ([body, parts]) => {
					const { client } = hostileClient(() => ({ status: 200, parts }));
					const whole = startsAsErrorObject(body) === true;
					try {
						const received = await bodyOf(
							(await client.download({ path: ['forms', 'f1', 'export'] })).body,
						);
						expect(whole).toBe(false);
						expect(received.equals(body)).toBe(true);
					} catch (error) {
						expect(whole).toBe(true);
						expect((error as Error).message).toBe(
							'Forms.wtf sent an answer that could not be read',
						);
					}
				},
			),
			{ numRuns: 400 },
		);
	});

	it('every single split point of a few bodies, one by one', async () => {
		for (const text of ['{ "error" : "x" }', '\ufeff\n{"error":1}', '{"errata":1}', 'a,b\n€,ü\n']) {
			const body = Buffer.from(text);
			for (let cut = 1; cut < body.length; cut++) {
				const parts = [body.subarray(0, cut), body.subarray(cut)];
				expect(
					startsAsErrorObject(body.subarray(0, cut)) !== false || !startsAsErrorObject(body),
				).toBe(true);
				const { client } = hostileClient(() => ({ status: 200, parts }));
				const outcome = await client
					.download({ path: ['forms', 'f1', 'export'] })
					.then(async (answer) => await bodyOf(answer.body))
					.catch((error: Error) => error);
				if (startsAsErrorObject(body)) expect(outcome).toBeInstanceOf(Error);
				else expect(Buffer.isBuffer(outcome) && outcome.equals(body)).toBe(true);
			}
		}
	});

	it('a JSON answer parses the same however it is split', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc
					.array(fc.record({ id: fc.string(), title: fc.string({ unit: 'binary' }) }), {
						maxLength: 5,
					})
					.chain((forms) => {
						const body = Buffer.from(JSON.stringify({ forms }));
						return fc.tuple(fc.constant(forms), splits(body));
					}),
				async ([forms, parts]) => {
					const { client } = hostileClient(() => ({ status: 200, parts }));
					const { body } = await client.request({ path: ['forms'], expect: FORM_LIST });
					expect(body).toEqual({ forms });
				},
			),
			{ numRuns: 200 },
		);
	});
});

const HOSTILE_LABELS = [
	'__proto__',
	'constructor',
	'prototype',
	'',
	' ',
	'toString',
	'hasOwnProperty',
	'valueOf',
	'__proto__ (2)',
	'constructor (2)',
	'a',
	'a (2)',
	'answer 1',
	'Name',
];

const hostileEntry = fc.oneof(
	{
		weight: 6,
		arbitrary: fc.record(
			{
				questionId: fc.oneof(fc.constantFrom(...HOSTILE_LABELS), fc.integer(), fc.constant(null)),
				questionLabel: fc.oneof(
					fc.constantFrom(...HOSTILE_LABELS),
					fc.constant(undefined),
					fc.integer(),
				),
				value: fc.oneof(
					fc.jsonValue({ maxDepth: 2 }),
					fc.constant({ polluted: true }),
					fc.constant(undefined),
				),
			},
			{ requiredKeys: [] },
		),
	},
	{
		weight: 1,
		arbitrary: fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.array(fc.string())),
	},
);

describe('output, labels from a hostile alphabet', () => {
	it('every answer is an own field of an ordinary object, kept by n8n’s copy and JSON, nothing throws', () => {
		fc.assert(
			fc.property(fc.array(hostileEntry, { maxLength: 12 }), (answers) => {
				const response = { id: 'r1', answers } as unknown as FormResponse;
				const simplified = simplifyResponse(response).answers as IDataObject;
				expect(Object.getPrototypeOf(simplified)).toBe(Object.prototype);
				expect(Object.keys(simplified)).toHaveLength(answers.length);
				expect((simplified as { polluted?: unknown }).polluted).toBeUndefined();
				// In the order given, each value as it came (an entry that is not an object is its own value).
				const values = answers.map((entry) =>
					entry !== null && typeof entry === 'object' && !Array.isArray(entry)
						? ((entry as IDataObject).value ?? null)
						: entry,
				);
				// Keys that read as whole numbers come first in any JS object: compare as a set.
				const sorted = (list: unknown[]) => list.map((value) => JSON.stringify(value) ?? '').sort();
				expect(sorted(Object.values(simplified))).toEqual(sorted(values));
				expect(Object.keys(deepCopy(simplified))).toEqual(Object.keys(simplified));
				expect(Object.keys(JSON.parse(JSON.stringify(simplified)))).toEqual(
					Object.keys(simplified),
				);
			}),
			{ numRuns: 500 },
		);
	});
});
