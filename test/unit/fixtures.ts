/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { resetTestRetryPolicy, testRetryPolicy } from '../support/retryPolicy';

/**
 * What the unit tests share whether they mock HTTP with nock or serve it from a real local
 * socket. Kept apart from nockApi.ts because importing nock switches its interceptor on.
 */
export const API_KEY = 'fwtf_unit_test_secret_key_0123456789';

/** Retries with millisecond waits, so that tests of retry logic stay quick. */
export function useFastRetries(): void {
	beforeEach(() =>
		Object.assign(testRetryPolicy, {
			baseDelayMs: 1,
			maxDelayMs: 4,
			maxRateLimitWaitMs: 3_000,
			minDelayMs: 1,
		}),
	);
	afterEach(() => resetTestRetryPolicy());
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
