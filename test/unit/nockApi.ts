import nock from 'nock';

import { API_KEY } from './fixtures';

/** Nothing but these mocked origins on 127.0.0.1 is reachable from unit tests. */
export const ORIGIN = 'http://127.0.0.1:9';
export const BASE_URL = `${ORIGIN}/api/v1`;

export function api(): nock.Scope {
	return nock(ORIGIN, { reqheaders: { authorization: `Bearer ${API_KEY}` } });
}

/**
 * nock replaces the `http` module's request machinery when it is imported, and jest shares core
 * modules between the test files of one worker: without `restore()` a later file that talks to
 * a real local server would still go through nock's interceptor.
 */
export function isolateNetwork(): void {
	beforeAll(() => nock.disableNetConnect());
	afterEach(() => nock.cleanAll());
	afterAll(() => {
		nock.enableNetConnect();
		nock.restore();
	});
}
