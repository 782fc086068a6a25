/**
 * The fixed demo keys. All belong to the one demo account; they differ only in plan (and the
 * revoked one in being revoked), so docs and tests can name them.
 */
import type { HarnessKeys, Plan } from './types';

export const HARNESS_KEYS: HarnessKeys = {
	free: 'fwtf_demo_free',
	pro: 'fwtf_demo_pro',
	team: 'fwtf_demo_team',
	business: 'fwtf_demo_business',
	revoked: 'fwtf_demo_revoked',
};

interface KeyRecord {
	plan: Plan;
	revoked: boolean;
}

const KEY_RECORDS = new Map<string, KeyRecord>([
	[HARNESS_KEYS.free, { plan: 'free', revoked: false }],
	[HARNESS_KEYS.pro, { plan: 'pro', revoked: false }],
	[HARNESS_KEYS.team, { plan: 'team', revoked: false }],
	[HARNESS_KEYS.business, { plan: 'business', revoked: false }],
	// Was a Team key before it was revoked in the settings area.
	[HARNESS_KEYS.revoked, { plan: 'team', revoked: true }],
]);

const PLAN_RANK: Record<Plan, number> = { free: 0, pro: 1, team: 2, business: 3 };

export function planAtLeast(plan: Plan, minimum: Plan): boolean {
	return PLAN_RANK[plan] >= PLAN_RANK[minimum];
}

export type AuthResult = { ok: true; key: string; plan: Plan } | { ok: false; message: string };

/** `Authorization: Bearer <key>`, scheme spelled exactly so, one space, no whitespace in the key. */
export function authenticate(header: string | undefined): AuthResult {
	if (header === undefined || header === '') {
		return {
			ok: false,
			message: 'Missing API key: send the header "Authorization: Bearer <API_KEY>"',
		};
	}
	const match = /^Bearer ([^\s]+)$/.exec(header);
	if (match === null) {
		return { ok: false, message: 'Malformed Authorization header: expected "Bearer <API_KEY>"' };
	}
	const record = KEY_RECORDS.get(match[1]);
	if (record === undefined) return { ok: false, message: 'Invalid API key' };
	if (record.revoked) return { ok: false, message: 'API key has been revoked' };
	return { ok: true, key: match[1], plan: record.plan };
}
