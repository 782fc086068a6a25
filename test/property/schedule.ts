/**
 * What the fuzzer generates: the trigger's settings and the simulated service's behaviour
 * (`FuzzSettings`), then a schedule of steps, each a server event or a trigger event. Steps are
 * plain records, so fast-check can shrink a failing schedule to a minimal one (fewer steps,
 * smaller counts, simpler settings) and `formatSchedule` can print it for a person to read.
 */
import fc from 'fast-check';

import type {
	FaultKind,
	GarbleKind,
	ResponseOrder,
	RetryAfter,
	SinceMode,
	WrongShape,
} from '../sim/server';

export type Budget = 'default' | '36s' | '3s' | '1s' | 'tiny';

export const BUDGET_MS: Record<Budget, number> = {
	// n8n-core's PollContext default (5 minutes), what n8n gives every poll without its durable scheduler.
	default: 300_000,
	// n8n 2.41's durable scheduler.
	'36s': 36_000,
	'3s': 3_000,
	'1s': 1_000,
	// Cuts a poll after its first page (every request costs virtual time, and the trigger's Date.now is virtual).
	tiny: 1,
};

export type Watch = 'form' | 'selectedForms' | 'allForms';

export interface FuzzSettings {
	watch: Watch;
	/** With One Form, the trigger watches form0 and the others are noise it must not emit. */
	formCount: number;
	/**
	 * Selected Forms: the forms picked (indexes; those beyond formCount are left out), and
	 * whether the selection also holds a form the service does not have ("formGone").
	 */
	selected: number[];
	selectMissing: boolean;
	/** The trigger's version: 2 names updates as Trigger On and can start from a date. */
	version: 1 | 2;
	/**
	 * Version 2, On Activation, Emit = every response since a date: the date lies this long
	 * before the virtual clock's start (negative: after it; undefined: only new responses).
	 */
	sinceAgoMs?: number;
	/**
	 * On Activation, the newest N existing responses, then new ones (version 1: Existing
	 * Responses to Emit; version 2: The Newest Existing Responses); undefined: not asked for.
	 */
	newestCount?: number;
	/** Virtual time one request takes (a page's latency); 1 ms when absent. */
	requestMs?: number;
	lookBackMinutes: number;
	updatedResponses: 'emit' | 'ignore';
	since: SinceMode;
	order: ResponseOrder;
	/** The most responses one page holds; 1000 is the contract's maximum (no cap). */
	pageCap: number;
	totalAbsent: boolean;
	/** Where in its second the virtual clock starts (the service's Date header has whole seconds). */
	startOffsetMs: number;
	/** Responses each form already has before the schedule, the newest `seedAgoMs` ago. */
	seeded: number[];
	seedAgoMs: number;
	/** How far apart the existing responses are (0: all in one millisecond); 1 s when absent. */
	seedSpacingMs?: number;
	/** The service sends no Date header (the contract does not promise one). */
	dateAbsent?: boolean;
}

/** A server event; `form` indexes the forms (modulo their number), `pick` an alive response of it. */
export type EventStep =
	/** `count` responses `gapMs` apart, the clock moving on between them (no poll in between). */
	| { kind: 'submit'; form: number; count: number; gapMs: number }
	| { kind: 'burst'; form: number; count: number }
	/** Visible from now, submitted `permille`/1000 of (look-back window - 1 s) ago. */
	| { kind: 'late'; form: number; count: number; permille: number }
	| { kind: 'update'; form: number; pick: number }
	/** The last `count` responses of the form served (where a cut read ended, and before) updated. */
	| { kind: 'updateServed'; form: number; count: number }
	| { kind: 'delete'; form: number; pick: number }
	| { kind: 'garble'; form: number; pick: number; garble: GarbleKind }
	| { kind: 'submitGarbled'; form: number; garble: GarbleKind }
	| { kind: 'advance'; ms: number };

export type Step =
	| EventStep
	| { kind: 'fault'; fault: FaultKind; times: number; form?: number }
	| { kind: 'deny'; form: number; status: 403 | 404; times: number }
	| { kind: 'hide'; form: number }
	| { kind: 'show'; form: number }
	/** The event happens just before the `afterRequests`-th request from now (inside the next poll). */
	| { kind: 'during'; afterRequests: number; event: EventStep }
	| { kind: 'poll'; budget: Budget }
	| { kind: 'discardedPoll' }
	| { kind: 'restart' }
	| { kind: 'pollTogether' }
	/** Selected Forms: the user picks these forms (indexes) and saves: n8n activates the trigger again. */
	| { kind: 'select'; selected: number[] }
	/**
	 * In-contract churn on a healthy service: `polls` polls, each after one edit of `form` (an
	 * update or a deletion of another of its responses, or a new one).
	 */
	/** Beyond the assumptions: an edit of `form` before each of the next `requests` requests (after every page). */
	| {
			kind: 'editEachRequest';
			form: number;
			edit: 'update' | 'delete' | 'submit';
			requests: number;
	  }
	| {
			kind: 'churn';
			form: number;
			edit: 'update' | 'delete' | 'submit';
			polls: number;
			budget: Budget;
	  };

export interface Schedule {
	settings: FuzzSettings;
	steps: Step[];
	/**
	 * Whether the service keeps the promise's assumptions (docs/trigger-promise.md) all through
	 * the schedule; the generator sets it from `assumptionsOf`, and a schedule written by hand
	 * without it is classified the same way.
	 */
	assumptions?: Assumptions;
}

export type Assumptions = 'within' | 'beyond';

/** The smallest page the assumptions allow while more follow (what was asked, up to this). */
export const SMALLEST_FULL_PAGE = 100;
/** Edits (updates, deletions) between two polls that are still a human rate. */
export const HUMAN_EDITS = 4;

/**
 * Within the assumptions: pages of at least 100 while more follow (no cap below, no short
 * page), a listing ordered by submittedAt (not shuffled), and edits at human rates: at most a
 * few between two polls, none after every page.
 */
export function assumptionsOf(schedule: Schedule): Assumptions {
	const { settings, steps } = schedule;
	if (settings.pageCap < SMALLEST_FULL_PAGE || settings.order === 'shuffled') return 'beyond';
	if (!fitsInAPoll(schedule)) return 'beyond';
	let edits = 0;
	for (const step of steps) {
		if (step.kind === 'editEachRequest') return 'beyond';
		if (step.kind === 'fault' && step.fault.kind === 'shortPage') return 'beyond';
		if (['poll', 'discardedPoll', 'pollTogether', 'churn'].includes(step.kind)) edits = 0;
		const event = step.kind === 'during' ? step.event : step;
		if (event.kind === 'updateServed') edits += event.count;
		if (['update', 'delete', 'garble'].includes(event.kind)) edits++;
		if (edits > HUMAN_EDITS) return 'beyond';
	}
	return 'within';
}

/**
 * The fifth assumption: what must be read together (a form's look-back window with what the
 * steps add to it, one millisecond of the existing responses or of a burst, the newest N) fits
 * in what every poll of the schedule reads: 40 pages, or as many as four fifths of its budget
 * allows at the service's pace (two at least).
 */
function fitsInAPoll(schedule: Schedule): boolean {
	const { settings, steps } = schedule;
	const requestMs = settings.requestMs ?? 1;
	const spacingMs = settings.seedSpacingMs ?? 1_000;
	const lookBackMs = settings.lookBackMinutes * 60_000;
	const added = addedPerForm(steps);
	const together = Math.max(
		...settings.seeded.map(
			(count, form) =>
				(spacingMs === 0 ? count : Math.min(count, Math.floor(lookBackMs / spacingMs) + 1)) +
				(added[form] ?? 0),
		),
		settings.newestCount === undefined ? 0 : settings.newestCount * 1.1 + 10,
		...steps.map((step) => {
			const event = step.kind === 'during' ? step.event : step;
			return event.kind === 'burst' ? event.count : 0;
		}),
	);
	// A walk moves on a page less its overlap of 5; beyond one page, the look at the list's oldest
	// end and the first page again cost two more.
	const walked = 1 + Math.ceil(Math.max(0, together - settings.pageCap) / (settings.pageCap - 5));
	const pagesNeeded = together <= settings.pageCap ? 2 : walked + 2;
	const budgets = steps.flatMap((step) => ('budget' in step ? [step.budget] : []));
	return budgets.every(
		(budget) =>
			Math.min(40, Math.max(2, Math.floor((0.8 * BUDGET_MS[budget]) / requestMs))) >= pagesNeeded,
	);
}

/**
 * The responses each form gets from the schedule's steps, new ones and new versions, as if all
 * were in one look-back window (the schedule's clock may move them out of it: an over-count).
 */
function addedPerForm(steps: Step[]): number[] {
	const added: number[] = [];
	for (const step of steps) {
		const event = step.kind === 'during' ? step.event : step;
		let count = 0;
		if (event.kind === 'churn') count = event.edit === 'delete' ? 0 : event.polls;
		else if ('count' in event) count = event.count;
		else if (event.kind === 'update' || event.kind === 'submitGarbled') count = 1;
		if ('form' in event && event.form !== undefined)
			added[event.form] = (added[event.form] ?? 0) + count;
	}
	return added;
}

const formIndex = fc.nat({ max: 3 });
const pick = fc.nat({ max: 40 });
const garble = fc.constantFrom<GarbleKind>('null', 'missing', 'notADate');

/** Server events; within the assumptions, a few edits at a time, and backlogs that span pages of 100. */
function eventStepOf(assumptions: Assumptions): fc.Arbitrary<EventStep> {
	return fc.oneof(
		{
			arbitrary: fc.record({
				kind: fc.constant('submit' as const),
				form: formIndex,
				count:
					assumptions === 'within'
						? fc.oneof(
								{ arbitrary: fc.integer({ min: 1, max: 12 }), weight: 5 },
								{ arbitrary: fc.constantFrom(99, 101, 160), weight: 1 },
							)
						: fc.integer({ min: 1, max: 12 }),
				gapMs: fc.constantFrom(1, 1_000, 61_000, 150_000),
			}),
			weight: 6,
		},
		{
			arbitrary: fc.record({
				kind: fc.constant('burst' as const),
				form: formIndex,
				count: fc.integer({ min: 2, max: 20 }),
			}),
			weight: 3,
		},
		{
			arbitrary: fc.record({
				kind: fc.constant('late' as const),
				form: formIndex,
				count: fc.integer({ min: 1, max: 4 }),
				permille: fc.integer({ min: 0, max: 999 }),
			}),
			weight: 2,
		},
		{
			arbitrary: fc.record({ kind: fc.constant('update' as const), form: formIndex, pick }),
			weight: 3,
		},
		{
			arbitrary: fc.record({
				kind: fc.constant('updateServed' as const),
				form: formIndex,
				count:
					assumptions === 'within'
						? fc.constantFrom(1, 2, HUMAN_EDITS)
						: fc.constantFrom(1, 4, 12, 30),
			}),
			weight: 1,
		},
		{
			arbitrary: fc.record({ kind: fc.constant('delete' as const), form: formIndex, pick }),
			weight: 2,
		},
		{
			arbitrary: fc.record({ kind: fc.constant('garble' as const), form: formIndex, pick, garble }),
			weight: 1,
		},
		{
			arbitrary: fc.record({
				kind: fc.constant('submitGarbled' as const),
				form: formIndex,
				garble,
			}),
			weight: 1,
		},
		{
			arbitrary: fc.record({
				kind: fc.constant('advance' as const),
				ms: fc.constantFrom(1, 400, 999, 1_000, 5_000, 61_000, 10 * 60_000 + 1, 3_600_000),
			}),
			weight: 4,
		},
	);
}

export const eventStep = eventStepOf('beyond');

const retryAfter: fc.Arbitrary<RetryAfter> = fc.oneof(
	fc.constant({ kind: 'absent' as const }),
	fc.constant({ kind: 'zero' as const }),
	fc.constant({ kind: 'pastDate' as const }),
	fc.record({ kind: fc.constant('seconds' as const), seconds: fc.constantFrom(1, 8, 40, 400) }),
);

const failure: fc.Arbitrary<FaultKind> = fc.oneof(
	fc.record({ kind: fc.constant('rateLimit' as const), retryAfter }),
	fc.record({
		kind: fc.constant('serverError' as const),
		status: fc.constantFrom<500 | 502 | 503>(500, 502, 503),
	}),
	fc.constant({ kind: 'drop' as const }),
	fc.record({
		kind: fc.constant('wrongShape' as const),
		body: fc.constantFrom<WrongShape>('errorObject', 'null', 'html', 'responseWithoutId'),
	}),
);

/** Beyond the assumptions, a page of fewer than asked while more follow is a fault too. */
const shortPage: fc.Arbitrary<FaultKind> = fc.record({
	kind: fc.constant('shortPage' as const),
	size: fc.constantFrom(1, 2, 50, 99),
});

const editEachRequest = {
	arbitrary: fc.record({
		kind: fc.constant('editEachRequest' as const),
		form: formIndex,
		edit: fc.constantFrom<'update' | 'delete' | 'submit'>('update', 'delete', 'submit'),
		requests: fc.integer({ min: 2, max: 30 }),
	}),
	weight: 2,
};

function stepOf(assumptions: Assumptions): fc.Arbitrary<Step> {
	const fault =
		assumptions === 'within'
			? failure
			: fc.oneof({ arbitrary: failure, weight: 4 }, { arbitrary: shortPage, weight: 1 });
	return fc.oneof(
		{ arbitrary: eventStepOf(assumptions), weight: 20 },
		{
			arbitrary: fc.record(
				{
					kind: fc.constant('fault' as const),
					fault,
					times: fc.integer({ min: 1, max: 14 }),
					form: formIndex,
				},
				{ requiredKeys: ['kind', 'fault', 'times'] },
			),
			weight: 4,
		},
		{
			arbitrary: fc.record({
				kind: fc.constant('deny' as const),
				form: formIndex,
				status: fc.constantFrom<403 | 404>(403, 404),
				times: fc.integer({ min: 1, max: 8 }),
			}),
			weight: 2,
		},
		{ arbitrary: fc.record({ kind: fc.constant('hide' as const), form: formIndex }), weight: 1 },
		{ arbitrary: fc.record({ kind: fc.constant('show' as const), form: formIndex }), weight: 1 },
		{
			arbitrary: fc.record({
				kind: fc.constant('during' as const),
				// 1: just before the poll's first request (the activation's moment, in a burst).
				afterRequests: fc.integer({ min: 1, max: 6 }),
				event: eventStep,
			}),
			weight: 4,
		},
		{
			arbitrary: fc.record({
				kind: fc.constant('poll' as const),
				budget: fc.constantFrom<Budget>('default', 'tiny', '1s', '3s', '36s'),
			}),
			weight: 12,
		},
		{ arbitrary: fc.constant({ kind: 'discardedPoll' as const }), weight: 2 },
		{ arbitrary: fc.constant({ kind: 'restart' as const }), weight: 2 },
		{ arbitrary: fc.constant({ kind: 'pollTogether' as const }), weight: 2 },
		{
			arbitrary: fc.record({
				kind: fc.constant('select' as const),
				selected: fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }),
			}),
			weight: 1,
		},
		{
			arbitrary: fc.record({
				kind: fc.constant('churn' as const),
				form: formIndex,
				edit: fc.constantFrom<'update' | 'delete' | 'submit'>(
					'update',
					'update',
					'delete',
					'submit',
				),
				polls: fc.integer({ min: 5, max: 60 }),
				budget: fc.constantFrom<Budget>('default', 'tiny', '1s', '36s'),
			}),
			weight: 1,
		},
		...(assumptions === 'beyond' ? [editEachRequest] : []),
	);
}

export const step = stepOf('beyond');

const settingsRecordOf = (assumptions: Assumptions) =>
	fc.record({
		watch: fc.constantFrom<Watch>('form', 'allForms', 'selectedForms'),
		formCount: fc.integer({ min: 1, max: 4 }),
		selected: fc.uniqueArray(fc.nat({ max: 3 }), { minLength: 1, maxLength: 3 }),
		selectMissing: fc.boolean(),
		version: fc.constantFrom<1 | 2>(1, 2),
		// Between the existing responses (1 s apart, the newest seedAgoMs ago), before them all, and
		// in the future (responses wait for it).
		sinceAgoMs: fc.option(
			fc.constantFrom(
				0,
				1,
				999,
				1_500,
				4_000,
				3_600_000 + 2_000,
				7 * 24 * 3_600_000,
				-1,
				-1_500,
				-90_000,
				-600_000,
			),
			{ nil: undefined },
		),
		// Small windows more often: a loss shows when a response falls out of the window unread.
		newestCount: fc.oneof(
			{ arbitrary: fc.constant(undefined), weight: 2 },
			{ arbitrary: fc.constantFrom(1, 3, 5, 20, 50, 150, 250), weight: 1 },
		),
		// Pages of 1 ms (a fast service), 100 ms (against a 1 s budget: a few pages a poll), 2 s.
		requestMs: fc.constantFrom(1, 1, 1, 100, 2_000),
		lookBackMinutes: fc.oneof(fc.constantFrom(0, 1, 2), fc.integer({ min: 0, max: 15 })),
		updatedResponses: fc.constantFrom<'emit' | 'ignore'>('emit', 'ignore'),
		since: fc.constantFrom<SinceMode>('exclusive', 'inclusive', 'wholeSeconds'),
		order:
			assumptions === 'within'
				? fc.constantFrom<ResponseOrder>('oldestFirst', 'newestFirst')
				: fc.constantFrom<ResponseOrder>('oldestFirst', 'newestFirst', 'shuffled'),
		// Within the assumptions a page holds what was asked up to at least 100; beyond, 1 to 99.
		pageCap:
			assumptions === 'within'
				? fc.constantFrom(100, 100, 250, 1000)
				: fc.constantFrom(1, 2, 3, 5, 7, 50, 99),
		totalAbsent: fc.boolean(),
		startOffsetMs: fc.integer({ min: 0, max: 999 }),
		// Now and then more than a page of 100; rarely a window of many pages (up to 901 of these
		// 1,200 fit in a window of 15 minutes at 1 s apart, all of them in a burst).
		seeded: fc.array(
			assumptions === 'within'
				? fc.oneof(
						{ arbitrary: fc.nat({ max: 15 }), weight: 16 },
						{ arbitrary: fc.constantFrom(120, 260), weight: 4 },
						{ arbitrary: fc.constant(1_200), weight: 1 },
					)
				: fc.nat({ max: 15 }),
			{ minLength: 4, maxLength: 4 },
		),
		seedAgoMs: fc.constantFrom(0, 1, 5, 500, 30_000, 3_600_000),
		// Existing responses this far apart: 1 s, or a burst of one millisecond each.
		seedSpacingMs: fc.constantFrom(1_000, 1_000, 1, 0),
		// A service without a Date header now and then: the trigger must find its clock another way.
		dateAbsent: fc.constantFrom(false, false, false, true),
	});

function settingsOf(assumptions: Assumptions): fc.Arbitrary<FuzzSettings> {
	return settingsRecordOf(assumptions).map((s) => {
		// A date to start from is a version 2 parameter.
		const { sinceAgoMs, newestCount, dateAbsent, ...withDate } = s;
		const rest = dateAbsent ? { ...withDate, dateAbsent } : withDate;
		if (s.version === 2 && sinceAgoMs !== undefined) return { ...rest, sinceAgoMs };
		return newestCount === undefined ? rest : { ...rest, newestCount };
	});
}

export const settings = settingsOf('beyond');

/**
 * Now and then the activation's read of a form comes late: a 429 with a short Retry-After on
 * that form's first request, and responses submitted while it is waited out (or while other
 * forms are read first), seconds after the activation's second.
 */
const lateActivationRead: fc.Arbitrary<Step[]> = fc
	.record({
		form: formIndex,
		seconds: fc.constantFrom(1, 2, 8),
		afterRequests: fc.integer({ min: 2, max: 5 }),
		count: fc.integer({ min: 1, max: 3 }),
	})
	.map(({ form, seconds, afterRequests, count }) => [
		{
			kind: 'fault',
			fault: { kind: 'rateLimit', retryAfter: { kind: 'seconds', seconds } },
			times: 1,
			form,
		},
		{ kind: 'during', afterRequests, event: { kind: 'submit', form, count, gapMs: 1 } },
	]);

function scheduleOf(assumptions: Assumptions): fc.Arbitrary<Schedule> {
	return fc
		.record({
			settings: settingsOf(assumptions),
			lateRead: fc.oneof(
				{ arbitrary: fc.constant<Step[]>([]), weight: 3 },
				{ arbitrary: lateActivationRead, weight: 1 },
			),
			// 'medium': up to the 40 steps (fast-check's default size keeps arrays to about 10 elements).
			steps: fc.array(stepOf(assumptions), { maxLength: 40, size: 'medium' }),
		})
		.map(({ settings, lateRead, steps }) => {
			const drawn = { settings, steps: [...lateRead, ...steps] };
			return { ...drawn, assumptions: assumptionsOf(drawn) };
		});
}

/**
 * Two schedules within the assumptions for one beyond them; a schedule drawn within that edits
 * more than a few responses between two polls is marked beyond.
 */
export const schedule: fc.Arbitrary<Schedule> = fc.oneof(
	{ arbitrary: scheduleOf('within'), weight: 2 },
	{ arbitrary: scheduleOf('beyond'), weight: 1 },
);

/** Schedules drawn within the assumptions only, or beyond them only (undefined: both). */
export function schedulesDrawn(assumptions?: Assumptions): fc.Arbitrary<Schedule> {
	return assumptions === undefined ? schedule : scheduleOf(assumptions);
}

// ---------------------------------------------------------------------------------------------
// Readable form

export function formatSettings(s: FuzzSettings): string {
	const forms =
		s.watch === 'form'
			? `One Form (form0 of ${s.formCount})`
			: s.watch === 'allForms'
				? `All Forms (${s.formCount})`
				: `Selected Forms ${JSON.stringify(selectedFormIds(s))} (of ${s.formCount})`;
	const start =
		s.sinceAgoMs !== undefined
			? `every response since ${Math.abs(s.sinceAgoMs)} ms ${s.sinceAgoMs < 0 ? 'after' : 'before'} the start`
			: s.newestCount !== undefined
				? `the newest ${s.newestCount} existing responses`
				: 'only new';
	return [
		`trigger version ${s.version}; watch ${forms}; look-back ${s.lookBackMinutes} min; updated responses: ${s.updatedResponses}; on activation: ${start}`,
		`server: since ${s.since}, ${s.order}, page cap ${s.pageCap}${s.totalAbsent ? ', no total' : ''}${s.dateAbsent ? ', no Date header' : ''}, ${s.requestMs ?? 1} ms a request`,
		`clock starts at +${s.startOffsetMs} ms in its second; existing responses per form ${JSON.stringify(
			s.seeded.slice(0, s.formCount),
		)}, the newest ${s.seedAgoMs} ms ago, ${s.seedSpacingMs ?? 1_000} ms apart`,
	].join('\n');
}

/** Selected Forms: the IDs picked, as the user would enter them. */
export function selectedFormIds(
	s: Pick<FuzzSettings, 'formCount' | 'selected' | 'selectMissing'>,
): string[] {
	const existing = s.selected.filter((form) => form < s.formCount).map((form) => `form${form}`);
	// The missing form first: the forms before it must not be what keeps the trigger going.
	return s.selectMissing || !existing.length ? [MISSING_FORM_ID, ...existing] : existing;
}

/** A selected form the service does not have. */
export const MISSING_FORM_ID = 'formGone';

export function formatEvent(e: EventStep, formCount = 4): string {
	const f = (form: number) => `form${form % formCount}`;
	switch (e.kind) {
		case 'submit':
			return e.count === 1
				? `submit 1 on ${f(e.form)}`
				: `submit ${e.count} on ${f(e.form)}, ${e.gapMs} ms apart`;
		case 'burst':
			return `burst of ${e.count} on ${f(e.form)} in one ms`;
		case 'late':
			return `${e.count} late-visible on ${f(e.form)} (${e.permille}‰ of the look-back window ago)`;
		case 'update':
			return `update response #${e.pick} of ${f(e.form)}`;
		case 'updateServed':
			return `update the last ${e.count} responses of ${f(e.form)} served`;
		case 'delete':
			return `delete response #${e.pick} of ${f(e.form)}`;
		case 'garble':
			return `garble submittedAt (${e.garble}) of response #${e.pick} of ${f(e.form)}`;
		case 'submitGarbled':
			return `submit 1 on ${f(e.form)} with submittedAt ${e.garble}`;
		case 'advance':
			return `advance clock ${e.ms} ms`;
	}
}

function formatRetryAfter(r: RetryAfter): string {
	if (r.kind === 'seconds') return `Retry-After ${r.seconds}`;
	if (r.kind === 'zero') return 'Retry-After 0';
	if (r.kind === 'pastDate') return 'Retry-After <past date>';
	return 'no Retry-After';
}

function formatFault(f: FaultKind): string {
	if (f.kind === 'rateLimit') return `429 (${formatRetryAfter(f.retryAfter)})`;
	if (f.kind === 'serverError') return String(f.status);
	if (f.kind === 'wrongShape') return `200 of the wrong shape (${f.body})`;
	if (f.kind === 'shortPage') return `a page of ${f.size} while more follow`;
	return 'ECONNRESET';
}

export function formatStep(s: Step, formCount = 4): string {
	const f = (form: number) => `form${form % formCount}`;
	switch (s.kind) {
		case 'fault':
			return `fault ${formatFault(s.fault)} on the next ${s.times} request(s)${s.form === undefined ? '' : ` of ${f(s.form)}`}`;
		case 'deny':
			return `${f(s.form)} answers ${s.status} to its next ${s.times} request(s)`;
		case 'hide':
			return `hide ${f(s.form)} from the listing`;
		case 'show':
			return `show ${f(s.form)} in the listing`;
		case 'during':
			return `arm: before request ${s.afterRequests} from now, ${formatEvent(s.event, formCount)}`;
		case 'poll':
			return s.budget === 'default' ? 'POLL' : `POLL (budget ${s.budget})`;
		case 'discardedPoll':
			return "POLL discarded by n8n (workflow saved while it ran; a plain poll if it is n8n's activation poll)";
		case 'restart':
			return 'RESTART n8n (new activation from stored static data)';
		case 'pollTogether':
			return "TWO POLLS at once (one plain poll if it is n8n's activation poll)";
		case 'select':
			// As run.ts selects: forms beyond formCount are left out, none left is the missing form.
			return `SELECT ${JSON.stringify(selectedFormIds({ formCount, selected: s.selected, selectMissing: false }))} and save (Selected Forms)`;
		case 'editEachRequest':
			return `${s.edit} one response of ${f(s.form)} before each of the next ${s.requests} requests`;
		case 'churn':
			return `${s.polls} × (${s.edit} one response of ${f(s.form)}, then POLL${s.budget === 'default' ? '' : ` (budget ${s.budget})`})`;
		default:
			return formatEvent(s, formCount);
	}
}

export function formatSchedule(schedule: Schedule): string {
	const lines = schedule.steps.map(
		(s, i) => `  ${String(i + 1).padStart(2)}. ${formatStep(s, schedule.settings.formCount)}`,
	);
	const assumptions = schedule.assumptions ?? assumptionsOf(schedule);
	return `${assumptions} the assumptions; ${formatSettings(schedule.settings)}\nsteps:\n${lines.join('\n') || '  (none)'}\n  then: server healthy, plain polls until drained`;
}
