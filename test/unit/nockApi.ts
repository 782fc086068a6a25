import nock from 'nock';

import { DEFAULT_RETRY_POLICY, retryPolicy } from '../../nodes/FormsWtf/transport/retry';

/** Nothing but these mocked origins on 127.0.0.1 is reachable from unit tests. */
export const ORIGIN = 'http://127.0.0.1:9';
export const BASE_URL = `${ORIGIN}/api/v1`;
export const API_KEY = 'fwtf_unit_test_secret_key_0123456789';

export function api(): nock.Scope {
	return nock(ORIGIN, { reqheaders: { authorization: `Bearer ${API_KEY}` } });
}

/** Retries with millisecond waits, so that tests of retry logic stay quick. */
export function useFastRetries(): void {
	beforeEach(() => Object.assign(retryPolicy, { baseDelayMs: 1, maxDelayMs: 4, maxRateLimitWaitMs: 3_000 }));
	afterEach(() => Object.assign(retryPolicy, DEFAULT_RETRY_POLICY));
}

export function isolateNetwork(): void {
	beforeAll(() => nock.disableNetConnect());
	afterEach(() => nock.cleanAll());
	afterAll(() => nock.enableNetConnect());
}

export function response(id: string, submittedAt = '2026-01-01T00:00:00.000Z') {
	return {
		id,
		walletAddress: '0x' + 'ab'.repeat(20),
		ensName: null,
		submittedAt,
		durationSeconds: 12,
		answers: [{ questionId: 'q1', questionLabel: 'Name', value: `name-${id}` }],
	};
}
