/**
 * The oracle: the trigger's promise, checked on a Trace. Each property is separate and named,
 * so a failure says which promise broke.
 *
 * What it assumes about the trigger (and nothing more):
 * - Its part of the workflow's static data (n8n's `node:<name>` key) has a top-level number
 *   `activatedAtMs`: the service's clock at activation, in epoch ms. It appears with the poll
 *   that activates the trigger and never changes afterwards.
 * - Items are emitted in Raw output mode: the response as the API sent it (`id`,
 *   `submittedAt`, `answers`), with `formId` under Selected Forms and All Forms. The simulated
 *   service names the version of each response in its first answer (`<id>#<n>`).
 * - On activation it emits only new responses, or (version 2) every response since a date:
 *   then "new" means submitted at or after that date.
 */
import type { SimResponse } from '../sim/server';
import { current } from '../sim/server';
import type { Emitted, PollRecord, Trace } from './run';
import { emitSinceMs, REQUEST_MS } from './run';
import { MISSING_FORM_ID, selectedFormIds } from './schedule';

export const PROPERTIES = {
	P1: 'P1 no response version is emitted twice (an id again only as a newer version)',
	P1i: 'P1i with Updated Responses = Ignore, no response is emitted twice within the look-back window',
	P2a: 'P2a activation moment: activatedAtMs is the service clock at activation, and stays',
	P2b: 'P2b every response submitted after activation is emitted (its current version)',
	P2c: 'P2c nothing the API showed before activation (or on an unwatched form) is emitted, unless updated after it',
	P3: 'P3 a response without a usable submittedAt is emitted at most once',
	P4a: 'P4a no poll fails while the server is healthy',
	P4b: 'P4b with Selected Forms and All Forms, a form answering 403/404 does not stop the other forms',
	P4c: "P4c with Selected Forms and All Forms, one form's failure never fails n8n's activation poll (that would keep the trigger inactive)",
	P5: 'P5 a poll does not wait out a Retry-After longer than its budget',
	P6: 'P6 with Selected Forms, a selected form the service does not have is reported by its ID',
} as const;

export type PropertyId = keyof typeof PROPERTIES;

export interface Violation {
	property: PropertyId;
	message: string;
}

function usable(submittedAt: unknown): boolean {
	return typeof submittedAt === 'string' && !Number.isNaN(Date.parse(submittedAt));
}

function versionOf(tag: string): number {
	const n = Number(tag.slice(tag.lastIndexOf('#') + 1));
	return Number.isInteger(n) ? n : NaN;
}

function describe(e: Emitted): string {
	return `${e.tag} (submittedAt ${JSON.stringify(e.submittedAt)}, poll ${e.poll})`;
}

export function check(trace: Trace): Violation[] {
	const violations: Violation[] = [];
	const add = (property: PropertyId, message: string) => violations.push({ property, message });
	const { settings } = trace.schedule;
	const byId = new Map<string, SimResponse>(trace.server.responses.map((r) => [r.id, r]));
	const watched = new Set(trace.watchedFormIds);

	// P1 and P3: repeats.
	const emissions = new Map<string, Emitted[]>();
	for (const e of trace.emitted) emissions.set(e.id, [...(emissions.get(e.id) ?? []), e]);
	for (const [id, list] of emissions) {
		if (settings.updatedResponses === 'ignore') {
			// Ignore skips the new versions of responses the trigger still remembers: those handled
			// inside the look-back window (docs/trigger.md, a documented limit). A version submitted more
			// than the window after the one emitted may come again.
			const lookBackMs = settings.lookBackMinutes * 60_000;
			const versions = byId.get(id)?.versions ?? [];
			const atOf = (e: Emitted) => versions.find((v) => v.n === versionOf(e.tag))?.atMs;
			for (let i = 1; i < list.length; i++) {
				const [before, after] = [atOf(list[i - 1]), atOf(list[i])];
				if (before !== undefined && after !== undefined && after - before >= lookBackMs) continue;
				add(
					'P1i',
					`Updated Responses = Ignore, yet ${id} was emitted again within the look-back window: ${list.map(describe).join('; ')}`,
				);
				break;
			}
		}
		for (let i = 1; i < list.length; i++) {
			const [before, after] = [list[i - 1], list[i]];
			if (versionOf(after.tag) > versionOf(before.tag)) continue;
			if (!usable(before.submittedAt) && !usable(after.submittedAt) && before.tag === after.tag)
				continue; // P3's
			add(
				'P1',
				`${id} emitted again without a newer version: ${describe(before)} then ${describe(after)}`,
			);
		}
		const garbled = list.filter((e) => !usable(e.submittedAt));
		for (const tag of new Set(garbled.map((e) => e.tag))) {
			const times = garbled.filter((e) => e.tag === tag);
			if (times.length > 1)
				add(
					'P3',
					`${tag} (submittedAt unusable) emitted ${times.length} times: ${times.map(describe).join('; ')}`,
				);
		}
	}

	// P2a: the activation moment.
	const activation = trace.polls.find((p) => p.activated);
	let activatedAtMs: number | undefined;
	if (!activation) {
		const after = trace.polls.find((p) => p.errors.length === 0)?.activatedAtMsAfter;
		add(
			'P2a',
			`no poll left a numeric top-level activatedAtMs in the trigger's static data (found ${JSON.stringify(after)})`,
		);
	} else {
		activatedAtMs = activation.activatedAtMsAfter as number;
		const firstRequestMs = activation.requests[0]?.atMs ?? activation.startMs;
		const low = Math.floor(firstRequestMs / 1000) * 1000;
		if (activatedAtMs < low || activatedAtMs > activation.endMs) {
			add(
				'P2a',
				`activatedAtMs ${iso(activatedAtMs)} is outside [${iso(low)}, ${iso(activation.endMs)}] (activation poll ${activation.index})`,
			);
		}
		for (const poll of trace.polls.slice(activation.index + 1)) {
			if (poll.activatedAtMsAfter !== undefined && poll.activatedAtMsAfter !== activatedAtMs) {
				add(
					'P2a',
					`activatedAtMs changed from ${iso(activatedAtMs)} to ${JSON.stringify(poll.activatedAtMsAfter)} at poll ${poll.index}`,
				);
				break;
			}
		}
	}

	if (activatedAtMs !== undefined) {
		const at = activatedAtMs;
		// Versions submitted at or after this are new: after activation, or from the date asked for
		// (the schedules' dates are never later than the activation).
		const newFromMs = emitSinceMs(settings) ?? at + 1;
		// P2b: no loss.
		const emittedTags = new Set(trace.emitted.map((e) => e.tag));
		const emittedIds = new Set(trace.emitted.map((e) => e.id));
		for (const response of trace.server.responses) {
			if (!watched.has(response.formId) || response.deletedAtMs !== undefined) continue;
			const version = current(response);
			if (version.garble !== undefined || version.atMs < newFromMs) continue;
			const tag = `${response.id}#${version.n}`;
			if (settings.updatedResponses === 'emit') {
				if (!emittedTags.has(tag)) {
					const others = trace.emitted.filter((e) => e.id === response.id).map(describe);
					add(
						'P2b',
						`${tag} of ${response.formId} (submitted ${iso(version.atMs)}, new from ${iso(newFromMs)}, activation ${iso(at)}) was never emitted` +
							(others.length ? `; emitted: ${others.join('; ')}` : ''),
					);
				}
			} else if (
				response.versions[0].atMs >= newFromMs &&
				// A version without a date shown at activation cannot be told from an existing one.
				!response.versions.some(
					(v) => v.garble !== undefined && v.atMs <= (activation as PollRecord).endMs,
				) &&
				!emittedIds.has(response.id)
			) {
				// Ignore: required once it was new when it first appeared (with a usable date: an undated
				// first version that existed at activation cannot be told apart from an existing one).
				add(
					'P2b',
					`${response.id} of ${response.formId} (first submitted ${iso(response.versions[0].atMs)}, new from ${iso(newFromMs)}) was never emitted`,
				);
			}
		}
		// P2c: nothing from before activation, nothing unwatched.
		for (const e of trace.emitted) {
			const response = byId.get(e.id);
			const version = response?.versions.find((v) => v.n === versionOf(e.tag));
			if (!response || !version) {
				add('P2c', `emitted something the service never had: ${describe(e)}`);
			} else if (!watched.has(response.formId) || e.formId !== response.formId) {
				add(
					'P2c',
					`emitted ${describe(e)} of ${response.formId} as ${e.formId}, which is not watched`,
				);
			} else if (!usable(e.submittedAt)) {
				// Without a date the trigger cannot tell an existing response from a new one: it is
				// emitted once (P3), unless handled before with a date it still remembers (docs/trigger.md).
				continue;
			} else if (
				version.atMs < newFromMs &&
				response.visibleAtMs <= (activation as PollRecord).startMs
			) {
				// A response that showed up only after activation began (late-visible) was not there
				// to count as existing, and may be emitted (docs/trigger.md: the look-back window).
				add(
					'P2c',
					`emitted ${describe(e)}, submitted ${iso(version.atMs)} (before ${iso(newFromMs)}) and shown before activation ${iso(at)}`,
				);
			}
		}
	}

	// P6: a selected form the service does not have is named.
	const missingSelected =
		settings.watch === 'selectedForms' && selectedFormIds(settings).includes(MISSING_FORM_ID);
	const namesMissing = (error: string) => error.includes(`"${MISSING_FORM_ID}"`);
	if (
		missingSelected &&
		activatedAtMs !== undefined &&
		!trace.polls.some((poll) => poll.errors.some(namesMissing))
	) {
		add(
			'P6',
			`the selection holds ${MISSING_FORM_ID}, which the service does not have, and no poll reported it`,
		);
	}
	for (const poll of trace.polls) {
		// P4a: no failure while healthy (but the report of a selected form that does not exist).
		const failures = poll.errors.filter((error) => !(missingSelected && namesMissing(error)));
		if (poll.healthyAtStart && failures.length) {
			add(
				'P4a',
				`poll ${poll.index} (${describePoll(poll)}) failed with nothing pending on the server: ${failures.join(' | ')}`,
			);
		}
		// P4c: the report of one failing form never fails n8n's activation poll.
		const aboutOneForm = poll.errors.filter((error) =>
			/^(Selected form|Form|Access to form) "/.test(error),
		);
		if (settings.watch !== 'form' && poll.activationFailed && aboutOneForm.length) {
			add(
				'P4c',
				`n8n's activation poll ${poll.index} (${describePoll(poll)}) failed on one form: ${aboutOneForm.join(' | ')}`,
			);
		}
		// P4b: a denied form does not stop the others: what the same poll emits for the other
		// forms when no form is denied, it emits (failing, it emits nothing).
		if (settings.watch !== 'form' && poll.onlyDenialsAtStart && poll.withoutDenials) {
			const denied = [
				...new Set(poll.requests.filter((r) => r.denied).map((r) => `${r.formId} (${r.status})`)),
			];
			const emittedTags = new Set(poll.emitted.map((e) => e.tag));
			const held = poll.withoutDenials.otherTags.filter((tag) => !emittedTags.has(tag));
			if (denied.length && held.length) {
				const failed = poll.errors.length ? ` (it failed: ${poll.errors.join(' | ')})` : '';
				add(
					'P4b',
					`poll ${poll.index} (${describePoll(poll)}): while ${denied.join(', ')} answered, it did not emit ${held.join(' ')} of the other forms, which the same poll emits when no form is denied${failed}`,
				);
			}
		}
		// P5: waits fit the budget. The poll's own time is its requests (REQUEST_MS each) and its
		// waits; the clock moving on by itself (a server event armed inside the poll) is not the poll's.
		const asked = Math.max(-1, ...poll.requests.map((r) => r.retryAfterMs ?? -1));
		if (asked > poll.budgetMs && poll.waitedMs > poll.budgetMs) {
			const took = poll.waitedMs + REQUEST_MS * poll.requests.length;
			add(
				'P5',
				`poll ${poll.index} (${describePoll(poll)}, budget ${poll.budgetMs} ms) got Retry-After ${asked / 1000} s and took ${took} ms of virtual time: ${poll.requests.length} requests of ${REQUEST_MS} ms and ${poll.waitedMs} ms of waiting (at most its budget plus its requests allowed)`,
			);
		}
	}
	return violations;
}

function describePoll(poll: PollRecord): string {
	const where = poll.step >= 0 ? `step ${poll.step + 1}` : 'final polls';
	return `${poll.kind}${poll.activationTick ? ', activation tick' : ''}, ${where}`;
}

function iso(ms: number): string {
	return Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms);
}

export function formatViolations(violations: Violation[], max = 8): string {
	const lines = violations.slice(0, max).map((v) => `- [${PROPERTIES[v.property]}] ${v.message}`);
	if (violations.length > max) lines.push(`- … and ${violations.length - max} more`);
	return lines.join('\n');
}
