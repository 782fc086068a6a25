/**
 * Runs one schedule: builds the simulated service from the settings, drives the real trigger
 * through n8n-core step by step, then makes the service healthy and polls until nothing more
 * comes. Records everything the oracle needs (a Trace): each poll's virtual start and end, the
 * requests it sent and how they were answered, what it emitted and reported, and the service's
 * final state. Nothing of the trigger's stored state is read: its shape is the trigger's own.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RequestRecord, ServerEvent } from '../sim/server';
import { SimServer } from '../sim/server';
import { SimTriggerSession, useVirtualWaits } from '../sim/session';
import { formById } from '../support/formsWtf';
import type { EventStep, FuzzSettings, Schedule } from './schedule';
import { assumptionsOf, BUDGET_MS, MISSING_FORM_ID, selectedFormIds } from './schedule';

/** 2026-03-02T09:00:00.000Z: a fixed virtual epoch, so that every schedule replays exactly. */
export const VIRTUAL_EPOCH_MS = Date.UTC(2026, 2, 2, 9, 0, 0);
/** Virtual time one request takes. */
export const REQUEST_MS = 1;

export interface Emitted {
	formId: string;
	id: string;
	/** As emitted (a string, null, or absent). */
	submittedAt: unknown;
	/** `<id>#<n>` from the answers: which version this is. */
	tag: string;
	poll: number;
}

export type PollKind = 'poll' | 'discarded' | 'together' | 'final';

export interface PollRecord {
	index: number;
	/** Index of the schedule step (-1: the final polls). */
	step: number;
	kind: PollKind;
	budgetMs: number;
	/** n8n's activation poll (the first poll of an activation or of a start of n8n). */
	activationTick: boolean;
	startMs: number;
	endMs: number;
	/** Virtual time the transport spent waiting (Retry-After, backoff) during the poll. */
	waitedMs: number;
	requests: RequestRecord[];
	/** Nothing pending at its start that fails a request (no fault, no denied form). */
	healthyAtStart: boolean;
	/** Only denied forms (no fault) pending at its start. */
	onlyDenialsAtStart: boolean;
	/**
	 * What was set to fail at its start: every request (a fault for any request), and the forms
	 * whose reads were (a fault of theirs, a denial). A page shorter than asked is no failure.
	 */
	failingAtStart: { all: boolean; formIds: string[] };
	/** Forms of the watched ones that the listing showed at its start. */
	listedFormIds: string[];
	/** What the poll threw or reported (n8n's __emitError). */
	errors: string[];
	/** n8n's activation poll threw, so n8n failed the activation. */
	activationFailed: boolean;
	emitted: Emitted[];
	/**
	 * All Forms, a plain poll while forms answer 403/404 (and nothing else is pending): what the
	 * same poll emits for the other forms when no form is denied (same state, same service).
	 */
	withoutDenials?: { deniedFormIds: string[]; otherTags: string[]; error?: string };
}

export interface Trace {
	schedule: Schedule;
	server: SimServer;
	watchedFormIds: string[];
	polls: PollRecord[];
	emitted: Emitted[];
	/** Polls it took at the end until nothing more came. */
	finalPolls: number;
	/** Whether the final polls went quiet (nothing emitted, no read under way) before their cap. */
	converged: boolean;
	/** Selected Forms: the selection from each poll on (the first entry from poll 0). */
	selections: Array<{ fromPoll: number; formIds: string[] }>;
}

/**
 * Quiet polls in a row that end the drain: more than the 5 polls without progress after which a
 * form is named, so that a read that cannot go on is named before the drain ends.
 */
const QUIET_FINAL_POLLS = { form: 6, selectedForms: 24, allForms: 24 };
export const MAX_FINAL_POLLS = 150;
const SILENT_FINAL_POLLS = 40;

export function toServerEvent(event: EventStep, settings: FuzzSettings): ServerEvent {
	if (event.kind !== 'late') return event;
	const windowMs = Math.max(0, settings.lookBackMinutes * 60_000 - 1_000);
	return {
		kind: 'late',
		form: event.form,
		count: event.count,
		lateByMs: Math.floor((windowMs * event.permille) / 1000),
	};
}

/** The start of the schedule's virtual clock. */
export function startMs(settings: FuzzSettings): number {
	return VIRTUAL_EPOCH_MS + settings.startOffsetMs;
}

/** Version 2, every response since a date: the date. */
export function emitSinceMs(settings: FuzzSettings): number | undefined {
	return settings.sinceAgoMs === undefined ? undefined : startMs(settings) - settings.sinceAgoMs;
}

export function triggerParameters(settings: FuzzSettings): IDataObject {
	const watched = {
		watch: settings.watch,
		...(settings.watch === 'form' && { formId: formById('form0') }),
		...(settings.watch === 'selectedForms' && { formIds: selectedFormIds(settings) }),
		output: 'raw',
	};
	if (settings.version === 1) {
		return {
			...watched,
			options: {
				lookBackMinutes: settings.lookBackMinutes,
				updatedResponses: settings.updatedResponses,
				...(settings.newestCount !== undefined && { backfill: settings.newestCount }),
			},
		};
	}
	const sinceMs = emitSinceMs(settings);
	const onActivation =
		sinceMs !== undefined
			? { onActivation: 'since', submittedSince: new Date(sinceMs).toISOString() }
			: settings.newestCount !== undefined
				? { onActivation: 'newest', existingCount: settings.newestCount }
				: { onActivation: 'newOnly' };
	return {
		...watched,
		event: settings.updatedResponses === 'ignore' ? 'newResponse' : 'newOrUpdatedResponse',
		...onActivation,
		options: { lookBackMinutes: settings.lookBackMinutes },
	};
}

export function buildServer(settings: FuzzSettings): SimServer {
	const server = new SimServer(
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
	for (let form = 0; form < settings.formCount; form++) {
		server.seed(
			form,
			settings.seeded[form] ?? 0,
			settings.seedAgoMs,
			settings.seedSpacingMs ?? 1_000,
		);
	}
	return server;
}

/** Drives a session; shared by the fuzzer and the named schedules. */
export class Driver {
	readonly polls: PollRecord[] = [];
	readonly emitted: Emitted[] = [];
	readonly session: SimTriggerSession;
	readonly selections: Array<{ fromPoll: number; formIds: string[] }>;
	/** Whether the last drain went quiet before its cap. */
	converged = false;
	private step = -1;

	constructor(
		readonly server: SimServer,
		readonly settings: FuzzSettings,
		randomSeed = 1,
	) {
		this.session = new SimTriggerSession(
			server,
			triggerParameters(settings),
			randomSeed,
			settings.version,
		);
		this.selections = [{ fromPoll: 0, formIds: selectedFormIds(settings) }];
	}

	/** The forms the trigger watches at some time (Selected Forms: selected at some time). */
	get watchedFormIds(): string[] {
		if (this.settings.watch === 'form') return ['form0'];
		const forms = this.server.forms.map((form) => form.id);
		if (this.settings.watch === 'allForms') return forms;
		const ever = new Set(this.selections.flatMap((selection) => selection.formIds));
		return forms.filter((formId) => ever.has(formId));
	}

	/** Selected Forms: the user picks other forms and saves the workflow (n8n activates it again). */
	select(selected: number[]): void {
		if (this.settings.watch !== 'selectedForms') return;
		const settings = { ...this.settings, selected, selectMissing: false };
		const formIds = selectedFormIds(settings);
		this.selections.push({ fromPoll: this.polls.length, formIds });
		this.session.setParameters(triggerParameters(settings));
	}

	atStep(step: number): void {
		this.step = step;
	}

	async poll(
		options: { budgetMs?: number; discarded?: boolean; final?: boolean } = {},
	): Promise<PollRecord> {
		return await this.record(
			options.discarded ? 'discarded' : options.final ? 'final' : 'poll',
			options.budgetMs,
			async () => [
				await this.session.poll({ pollBudgetMs: options.budgetMs, discarded: options.discarded }),
			],
		);
	}

	async pollTogether(): Promise<PollRecord> {
		return await this.record('together', undefined, async () => await this.session.pollTogether());
	}

	private async record(
		kind: PollKind,
		budgetMs: number | undefined,
		run: () => Promise<
			Array<{ items: IDataObject[]; error?: Error; errors?: Error[]; activationFailed?: boolean }>
		>,
	): Promise<PollRecord> {
		const withoutDenials =
			this.settings.watch !== 'form' && (kind === 'poll' || kind === 'final')
				? await this.pollWithoutDenials(budgetMs)
				: undefined;
		const activationTick = this.session.nextIsActivationPoll;
		const firstRequest = this.server.log.length;
		const faultsPending = this.server.faults.length > 0;
		const denialsPending = this.server.forms.some((form) => form.denial !== undefined);
		const failures = this.server.faults.filter((fault) => fault.fault.kind !== 'shortPage');
		const failingAtStart = {
			all: failures.some((fault) => fault.formId === undefined),
			formIds: [
				...failures.flatMap((fault) => (fault.formId === undefined ? [] : [fault.formId])),
				...this.server.forms.filter((form) => form.denial !== undefined).map((form) => form.id),
			],
		};
		const listedFormIds = this.server.forms
			.filter((form) => !form.hidden && this.watchedFormIds.includes(form.id))
			.map((form) => form.id);
		const startMs = this.server.now;
		const waitedBefore = this.server.waitedMs;
		const outcomes = await run();
		const index = this.polls.length;
		const emitted: Emitted[] = [];
		for (const outcome of outcomes) {
			for (const item of outcome.items) emitted.push(this.toEmitted(item, index));
		}
		const record: PollRecord = {
			index,
			step: this.step,
			kind,
			budgetMs: budgetMs ?? BUDGET_MS.default,
			activationTick,
			startMs,
			endMs: this.server.now,
			waitedMs: this.server.waitedMs - waitedBefore,
			requests: this.server.log.slice(firstRequest),
			healthyAtStart: !faultsPending && !denialsPending,
			onlyDenialsAtStart: !faultsPending && denialsPending,
			failingAtStart,
			listedFormIds,
			errors: outcomes.flatMap((outcome) =>
				(outcome.errors ?? (outcome.error ? [outcome.error] : [])).map((error) => error.message),
			),
			activationFailed: outcomes.some((outcome) => outcome.activationFailed === true),
			emitted,
			...(withoutDenials && { withoutDenials }),
		};
		this.polls.push(record);
		this.emitted.push(...emitted);
		return record;
	}

	/**
	 * When forms are denied and nothing else is pending: the same poll on a copy of the service
	 * without the denials, from the same static data, and what it emits for the other forms.
	 */
	private async pollWithoutDenials(
		budgetMs: number | undefined,
	): Promise<PollRecord['withoutDenials']> {
		const denied = this.server.forms
			.filter((form) => form.denial !== undefined)
			.map((form) => form.id);
		if (!denied.length || this.server.faults.length || this.server.armedCount) return undefined;
		const server = this.server.clone();
		for (const form of server.forms) delete form.denial;
		const undoWaits = useVirtualWaits(server);
		try {
			const outcome = await this.session.fork(server).poll({ pollBudgetMs: budgetMs });
			const otherTags = outcome.items
				.map((item) => this.toEmitted(item, -1))
				.filter((e) => !denied.includes(e.formId))
				.map((e) => e.tag);
			return {
				deniedFormIds: denied,
				otherTags,
				...(outcome.error && { error: outcome.error.message }),
			};
		} finally {
			undoWaits();
			useVirtualWaits(this.server);
		}
	}

	private toEmitted(item: IDataObject, poll: number): Emitted {
		const answers = Array.isArray(item.answers) ? (item.answers as IDataObject[]) : [];
		const tag = answers.length && typeof answers[0].value === 'string' ? answers[0].value : '?';
		return {
			formId: this.settings.watch === 'form' ? 'form0' : String(item.formId),
			id: String(item.id),
			submittedAt: item.submittedAt,
			tag,
			poll,
		};
	}

	/**
	 * The server made healthy, then plain polls until `quiet` polls in a row emit nothing, report
	 * nothing and have no read under way, seen from outside: no page says more follow, or the
	 * poll asked exactly what the one before asked (a window of more than a page read again on
	 * every poll is not a read under way); or until SILENT_FINAL_POLLS emit and report nothing.
	 */
	async drain(): Promise<number> {
		this.step = -1;
		this.server.heal();
		const quiet = QUIET_FINAL_POLLS[this.settings.watch];
		let quietPolls = 0;
		let silentPolls = 0;
		let polls = 0;
		/** What each form's last read asked: a form read in rotation is compared with its own last read. */
		const asked = new Map<string, string>();
		while (quietPolls < quiet && silentPolls < SILENT_FINAL_POLLS && polls < MAX_FINAL_POLLS) {
			const record = await this.poll({ final: true });
			polls++;
			// A selected form the service does not have is named again and again: that is no activity.
			const errors = record.errors.filter((error) => !error.includes(`"${MISSING_FORM_ID}"`));
			const silent = record.emitted.length === 0 && errors.length === 0;
			let readUnderWay = false;
			for (const formId of new Set(record.requests.map((r) => r.formId ?? ''))) {
				const reads = record.requests.filter((r) => (r.formId ?? '') === formId);
				const now = JSON.stringify(
					reads.map((r) => [r.path, r.since, r.offset, r.ids?.length, r.hasMore]),
				);
				if (reads.some((r) => r.hasMore === true) && asked.get(formId) !== now) readUnderWay = true;
				asked.set(formId, now);
			}
			silentPolls = silent ? silentPolls + 1 : 0;
			quietPolls = silent && !readUnderWay ? quietPolls + 1 : 0;
		}
		this.converged = quietPolls >= quiet || silentPolls >= SILENT_FINAL_POLLS;
		return polls;
	}
}

export async function runSchedule(schedule: Schedule, randomSeed = 1): Promise<Trace> {
	const { settings } = schedule;
	const server = buildServer(settings);
	const undoWaits = useVirtualWaits(server);
	try {
		const driver = new Driver(server, settings, randomSeed);
		for (const [index, step] of schedule.steps.entries()) {
			driver.atStep(index);
			switch (step.kind) {
				case 'fault':
					server.inject(step.fault, step.times, step.form);
					break;
				case 'deny':
					server.deny(step.form, step.status, step.times);
					break;
				case 'hide':
					server.setHidden(step.form, true);
					break;
				case 'show':
					server.setHidden(step.form, false);
					break;
				case 'during':
					server.arm(step.afterRequests, toServerEvent(step.event, settings));
					break;
				case 'poll':
					await driver.poll({
						budgetMs: step.budget === 'default' ? undefined : BUDGET_MS[step.budget],
					});
					break;
				case 'discardedPoll':
					// n8n's activation poll is never superseded here: before activation this is a plain poll.
					await driver.poll({
						discarded: driver.session.active && !driver.session.nextIsActivationPoll,
					});
					break;
				case 'restart':
					driver.session.restart();
					break;
				case 'pollTogether':
					if (driver.session.active && !driver.session.nextIsActivationPoll)
						await driver.pollTogether();
					else await driver.poll();
					break;
				case 'select':
					driver.select(step.selected);
					break;
				case 'editEachRequest':
					for (let k = 1; k <= step.requests; k++)
						server.arm(
							k,
							step.edit === 'submit'
								? { kind: 'submit', form: step.form, count: 1, gapMs: 1 }
								: { kind: step.edit, form: step.form, pick: k * 7 },
						);
					break;
				case 'churn':
					for (let i = 0; i < step.polls; i++) {
						// Each edit touches another response than the last (picks wrap over the form's).
						server.apply(
							step.edit === 'submit'
								? { kind: 'submit', form: step.form, count: 1, gapMs: 1 }
								: { kind: step.edit, form: step.form, pick: i * 7 },
						);
						await driver.poll({
							budgetMs: step.budget === 'default' ? undefined : BUDGET_MS[step.budget],
						});
					}
					break;
				default:
					server.apply(toServerEvent(step, settings));
			}
		}
		const finalPolls = await driver.drain();
		return {
			schedule: { ...schedule, assumptions: schedule.assumptions ?? assumptionsOf(schedule) },
			server,
			watchedFormIds: driver.watchedFormIds,
			polls: driver.polls,
			emitted: driver.emitted,
			finalPolls,
			converged: driver.converged,
			selections: driver.selections,
		};
	} finally {
		undoWaits();
	}
}
