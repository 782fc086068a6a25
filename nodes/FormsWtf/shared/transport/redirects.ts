/**
 * Where the API key may go, and which redirects the transport follows.
 *
 * n8n's HTTP helper follows redirects on its own and, before n8n 2.x's
 * `sendCredentialsOnCrossOriginRedirect`, sends the credential's headers to wherever the
 * server points: a redirect to another host would carry `Authorization: Bearer <key>` there.
 * So every request asks the helper not to follow (`disableFollowRedirect`, honoured by every
 * n8n since long before 1.85) and the transport follows by this rule:
 *
 * - a redirect to the origin of the Base URL (same scheme, host and port) is followed with the
 *   key, at most MAX_REDIRECTS times in a row, and never twice to the same address;
 * - a redirect to any other origin is refused with an error that names its host, except for
 *   an export's file, which may be fetched from another origin (a storage or CDN link)
 *   without the key, and never from https down to http.
 */

/** The statuses that send a GET elsewhere (RFC 9110 §15.4); 300 and 304 are not followed. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** How many redirects in a row a request follows. */
export const MAX_REDIRECTS = 10;

export function isRedirectStatus(status: number): boolean {
	return REDIRECT_STATUSES.has(status);
}

/** A hop the transport takes: where to, and whether the key goes with it. */
export interface RedirectHop {
	url: string;
	withKey: boolean;
}

/** Why a redirect is not followed; errors.ts turns it into a message. */
export type RedirectRefusal =
	| { kind: 'noLocation'; status: number }
	| { kind: 'badLocation'; status: number }
	| { kind: 'otherOrigin'; status: number; host: string; shown: string }
	| { kind: 'downgrade'; status: number; host: string; shown: string }
	| { kind: 'loop'; shown: string }
	| { kind: 'tooMany' };

export interface RedirectState {
	/** The origin of the Base URL: the only one the key goes to. */
	readonly keyOrigin: string;
	/** Whether a redirect to another origin may be followed without the key (an export's file). */
	readonly foreignAllowed: boolean;
	/** The address the current request was sent to. */
	current: string;
	/** Whether the current request carries the key. */
	withKey: boolean;
	/** Every address asked for so far. */
	readonly visited: Set<string>;
}

export function startRedirects(
	firstUrl: string,
	baseUrl: string,
	foreignAllowed: boolean,
): RedirectState {
	return {
		keyOrigin: new URL(baseUrl).origin,
		foreignAllowed,
		current: firstUrl,
		withKey: true,
		visited: new Set([withoutFragment(firstUrl)]),
	};
}

/**
 * The next hop of a redirect answer, or why it is not taken. Moves `state` on when it is.
 */
export function nextHop(
	state: RedirectState,
	status: number,
	location: string | undefined,
): RedirectHop | RedirectRefusal {
	if (location === undefined || location.trim() === '') return { kind: 'noLocation', status };
	let target: URL;
	try {
		target = new URL(location.trim(), state.current);
	} catch {
		return { kind: 'badLocation', status };
	}
	if (target.protocol !== 'https:' && target.protocol !== 'http:')
		return { kind: 'badLocation', status };
	// A user name or password in the address would be sent as Basic auth in place of the key.
	target.username = '';
	target.password = '';
	const url = withoutFragment(target.href);
	const shown = displayUrl(target);
	if (state.visited.has(url)) return { kind: 'loop', shown };
	if (state.visited.size > MAX_REDIRECTS) return { kind: 'tooMany' };
	const sameOrigin = target.origin === state.keyOrigin;
	if (!sameOrigin || !state.withKey) {
		if (!state.foreignAllowed) return { kind: 'otherOrigin', status, host: target.host, shown };
		if (new URL(state.current).protocol === 'https:' && target.protocol === 'http:')
			return { kind: 'downgrade', status, host: target.host, shown };
	}
	state.visited.add(url);
	state.current = url;
	// Once the request has left the origin of the Base URL, the key never joins it again.
	state.withKey = state.withKey && sameOrigin;
	return { url, withKey: state.withKey };
}

function withoutFragment(url: string): string {
	const at = url.indexOf('#');
	return at < 0 ? url : url.slice(0, at);
}

/**
 * An address as messages show it: scheme, host, port and path, never a user name, a password,
 * a query or a fragment (any of which may hold a secret). Text that is not an address is shown
 * as "an address that could not be read".
 */
export function displayUrl(url: string | URL): string {
	let parsed: URL;
	try {
		parsed = typeof url === 'string' ? new URL(url) : url;
	} catch {
		return 'an address that could not be read';
	}
	return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}
