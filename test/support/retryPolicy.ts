/**
 * The retry policy of every node the tests and benchmarks build (see `nodeTypes` in
 * formsWtf.ts): n8n builds the nodes with the default one; tests shorten its waits or give it a
 * clock of their own, and put it back with `resetTestRetryPolicy`. It lives here, in the tests:
 * the nodes hold no policy of their own that anything could change.
 */
import type { RetryPolicy } from '../../nodes/FormsWtf/shared/transport/retry';
import { DEFAULT_RETRY_POLICY } from '../../nodes/FormsWtf/shared/transport/retry';

export const testRetryPolicy: RetryPolicy = { ...DEFAULT_RETRY_POLICY };

export function resetTestRetryPolicy(): void {
	Object.assign(testRetryPolicy, DEFAULT_RETRY_POLICY);
}
