/**
 * Faults that change what a successful answer says, for the trigger's All Forms tests: a list
 * of forms that lacks some forms (a glitch, a team membership that comes back), and a 200
 * whose JSON is not what the contract promises.
 */
import { toSummary } from './data';
import { sendJson, type RequestTarget } from './http';
import type { HarnessState } from './state';
import type { FaultKind } from './types';

/** Answers the request if the fault is a listing fault that applies to it; false otherwise. */
export function applyListingFault(
	state: HarnessState,
	fault: FaultKind,
	target: RequestTarget,
	res: Parameters<typeof sendJson>[0],
): boolean {
	if (fault.kind === 'jsonBody') {
		sendJson(res, 200, fault.body);
		return true;
	}
	if (fault.kind === 'listingWithout' && target.path === '/api/v1/forms') {
		const forms = state.dataset.forms
			.filter((form) => form.owner === 'demo' && !fault.formIds.includes(form.id))
			.map(toSummary);
		sendJson(res, 200, { forms });
		return true;
	}
	return false;
}
