/**
 * What the named schedules share: a simulated service and the fuzzer's driver set up from a few
 * settings, and the end of every story (drain the backlog, then the oracle's full check).
 */
import type { SimServer } from '../sim/server';
import { SimServer as Server } from '../sim/server';
import { useVirtualWaits } from '../sim/session';
import { check, formatViolations } from './oracle';
import type { Emitted, Trace } from './run';
import { Driver, REQUEST_MS, startMs } from './run';
import type { Assumptions, FuzzSettings, Step } from './schedule';
import { assumptionsOf } from './schedule';

export const MINUTE = 60_000;

export function settingsWith(patch: Partial<FuzzSettings>): FuzzSettings {
	return {
		watch: 'form',
		formCount: 1,
		selected: [0],
		selectMissing: false,
		version: 1,
		lookBackMinutes: 10,
		updatedResponses: 'emit',
		since: 'exclusive',
		order: 'oldestFirst',
		pageCap: 1000,
		totalAbsent: false,
		startOffsetMs: 300,
		seeded: [0, 0, 0, 0],
		seedAgoMs: 0,
		...patch,
	};
}

export function serverFor(settings: FuzzSettings): SimServer {
	return new Server(
		{
			since: settings.since,
			order: settings.order,
			pageCap: settings.pageCap,
			totalAbsent: settings.totalAbsent,
			requestMs: settings.requestMs ?? REQUEST_MS,
			...(settings.dateAbsent && { dateAbsent: true }),
		},
		startMs(settings),
		settings.formCount,
	);
}

let undoWaits: (() => void) | undefined;
afterEach(() => {
	undoWaits?.();
	undoWaits = undefined;
});

export function setUp(
	patch: Partial<FuzzSettings>,
	server = serverFor(settingsWith(patch)),
): { server: SimServer; driver: Driver } {
	const settings = settingsWith(patch);
	undoWaits = useVirtualWaits(server);
	return { server, driver: new Driver(server, settings) };
}

/**
 * Every Response Since a Date (7 days ago), newest first, New Response, One Form (unless `patch`
 * says otherwise), `backlog` responses of form0 an hour ago `spacingMs` apart (0: all in one
 * millisecond, as an import makes them), pages of `pageCap` at 100 ms.
 */
export function sinceDateBacklog(
	backlog: number,
	pageCap: number,
	patch: Partial<FuzzSettings> = {},
	spacingMs = 1_000,
): ReturnType<typeof setUp> {
	const setup = setUp({
		version: 2,
		order: 'newestFirst',
		updatedResponses: 'ignore',
		pageCap,
		requestMs: 100,
		sinceAgoMs: 7 * 24 * 3_600_000,
		...patch,
	});
	setup.server.seed(0, backlog, 60 * MINUTE, spacingMs);
	return setup;
}

/** The ids of a form's responses that exist now, in creation order. */
export function aliveIds(server: SimServer, formId = 'form0'): string[] {
	return server.responses
		.filter((r) => r.formId === formId && r.deletedAtMs === undefined)
		.map((r) => r.id);
}

/** The last response submitted to a form that is still there. */
export function newestId(server: SimServer, formId = 'form0'): string {
	return aliveIds(server, formId).at(-1) as string;
}

export function timesEmitted(emitted: Emitted[], id: string): number {
	return emitted.filter((e) => e.id === id).length;
}

/**
 * Plain polls on a healthy server until `quiet` in a row emit nothing, then the oracle's check:
 * every property when the story kept the promise's assumptions (by its settings: pages of 100
 * or more, a listing in order; a story that edits more, or after every page, says `beyond`),
 * never twice and never silent otherwise.
 */
export async function drain(driver: Driver, assumptions?: Assumptions): Promise<void> {
	await driver.drain();
	const schedule = { settings: driver.settings, steps: [] };
	const trace = {
		schedule: { ...schedule, assumptions: assumptions ?? assumptionsOf(schedule) },
		server: driver.server,
		watchedFormIds: driver.watchedFormIds,
		polls: driver.polls,
		emitted: driver.emitted,
		finalPolls: 0,
		converged: driver.converged,
		selections: driver.selections,
	};
	const violations = check(trace);
	if (violations.length)
		throw new Error(`the oracle also objects:\n${formatViolations(violations)}`);
}

/**
 * Respondents update (a new `submittedAt`, now) or delete these responses of a form, `gapMs`
 * apart (0: all in one millisecond).
 */
export function editByIds(
	server: SimServer,
	kind: 'update' | 'delete',
	ids: string[],
	{ form = 0, gapMs = 0 }: { form?: number; gapMs?: number } = {},
): void {
	for (const id of ids) {
		const alive = server.responses.filter((r) => r.formId === `form${form}` && server.isVisible(r));
		const pick = alive.findIndex((r) => r.id === id);
		if (pick >= 0) server.apply({ kind, form, pick });
		if (gapMs) server.apply({ kind: 'advance', ms: gapMs });
	}
}

/**
 * Polls of one page each (a 1 ms budget), a minute apart, `between` after each, on a service
 * that answers every request; the errors of each poll.
 */
export async function pollsOfOnePage(
	driver: Driver,
	server: SimServer,
	count: number,
	between: (poll: number) => void,
): Promise<string[][]> {
	const errors: string[][] = [];
	for (let poll = 0; poll < count; poll++) {
		errors.push((await driver.poll({ budgetMs: 1 })).errors);
		server.apply({ kind: 'advance', ms: MINUTE });
		between(poll);
	}
	expect(server.unhealthy()).toBe(false);
	return errors;
}

/** Plain polls a minute apart, `between` before each; the errors each reported. */
export async function pollsAMinuteApart(
	driver: Driver,
	count: number,
	between: () => void = () => undefined,
	budgetMs?: number,
): Promise<string[][]> {
	const errors: string[][] = [];
	for (let poll = 0; poll < count; poll++) {
		between();
		errors.push((await driver.poll({ budgetMs })).errors);
		driver.server.apply({ kind: 'advance', ms: MINUTE });
	}
	return errors;
}

/** The errors that name a form, poll by poll (the poll's index with each). */
export function naming(trace: Trace, formId = 'form0'): string[] {
	return trace.polls.flatMap((poll) =>
		poll.errors.filter((error) => error.includes(formId)).map((error) => `${poll.index}: ${error}`),
	);
}

/** The polls from the first that could emit a response to the one that did, or that named its form. */
export function pollsUnnamedBeforeEmitted(trace: Trace, id: string): number {
	const response = trace.server.responses.find((r) => r.id === id);
	const shownAt = response?.visibleAtMs ?? Infinity;
	const from = trace.polls.findIndex((poll) => poll.startMs >= shownAt);
	const told = trace.polls.findIndex(
		(poll) =>
			poll.index >= from &&
			(poll.emitted.some((e) => e.id === id) ||
				poll.errors.some((error) => error.includes(response?.formId ?? '?'))),
	);
	return (told < 0 ? trace.polls.length : told) - from;
}

/** Schedule steps: `polls` plain polls, `before(poll)` ahead of each, then `advanceMs` (a minute). */
export function stepsAMinuteApart(
	polls: number,
	before: (poll: number) => Step[],
	advanceMs = MINUTE,
): Step[] {
	return Array.from({ length: polls }, (_, poll) => [
		...before(poll),
		{ kind: 'poll' as const, budget: 'default' as const },
		{ kind: 'advance' as const, ms: advanceMs },
	]).flat();
}

/** Schedule steps: `count` responses to each of `forms`, `gapMs` apart. */
export function responsesTo(forms: number[], count = 1, gapMs = 1): Step[] {
	return forms.map((form) => ({ kind: 'submit' as const, form, count, gapMs }));
}

/**
 * The longest wait (pollsUnnamedBeforeEmitted) of a response to each of the first `forms` forms
 * that showed up from poll `fromPoll` on, before poll `toPoll` when given.
 */
export function longestWaits(
	trace: Trace,
	forms: number,
	fromPoll: number,
	toPoll?: number,
): Record<string, number> {
	const fromMs = trace.polls[fromPoll]?.startMs ?? 0;
	const toMs = toPoll === undefined ? Infinity : trace.polls[toPoll].startMs;
	const waits: Record<string, number> = {};
	for (let form = 0; form < forms; form++) {
		const formId = `form${form}`;
		const shown = trace.server.responses.filter(
			(r) => r.formId === formId && (r.visibleAtMs ?? 0) >= fromMs && (r.visibleAtMs ?? 0) < toMs,
		);
		waits[formId] = Math.max(0, ...shown.map((r) => pollsUnnamedBeforeEmitted(trace, r.id)));
	}
	return waits;
}
