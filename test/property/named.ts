/**
 * What the named schedules share: a simulated service and the fuzzer's driver set up from a few
 * settings, and the end of every story (drain the backlog, then the oracle's full check).
 */
import type { IDataObject } from 'n8n-workflow';

import type { SimServer } from '../sim/server';
import { SimServer as Server } from '../sim/server';
import { useVirtualWaits } from '../sim/session';
import { check, formatViolations } from './oracle';
import type { Emitted } from './run';
import { Driver, REQUEST_MS, startMs } from './run';
import type { FuzzSettings } from './schedule';

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
 * Fuzz seed 92003's service, before the activation poll: One Form, look-back 1 min, newest first,
 * pages of 7; r0001..r0004 one second apart up to the moment (09:00:00). The next 3 pages are of
 * one response and r0004 is deleted before the 4th request: the activation's read takes the
 * boundary after its second page of one on trust and skips r0003.
 */
export function trustedSkipAtActivation(): { server: SimServer; driver: Driver } {
	const { server, driver } = setUp({
		lookBackMinutes: 1,
		order: 'newestFirst',
		pageCap: 7,
		requestMs: 1,
		startOffsetMs: 0,
	});
	server.seed(0, 4, 0, 1_000);
	server.arm(4, { kind: 'delete', form: 0, pick: 11 });
	server.inject({ kind: 'shortPage', size: 1 }, 3);
	return { server, driver };
}

/**
 * Fuzz seed 91007's service, before the activation poll: All Forms of 2, the newest 1, look-back
 * 0, pages of 7 at 100 ms; form0 holds 7 responses and a burst of 16 in the moment's millisecond,
 * form1 4 and a burst of 14.
 */
export function newestOneOfTwoBursts(patch: Partial<FuzzSettings> = {}): {
	server: SimServer;
	driver: Driver;
} {
	const { server, driver } = setUp({
		watch: 'allForms',
		formCount: 2,
		version: 1,
		lookBackMinutes: 0,
		pageCap: 7,
		requestMs: 100,
		startOffsetMs: 0,
		newestCount: 1,
		...patch,
	});
	server.seed(0, 7, 0, 1_000);
	server.seed(1, 4, 0, 1_000);
	server.apply({ kind: 'burst', form: 0, count: 16 });
	server.apply({ kind: 'burst', form: 1, count: 14 });
	return { server, driver };
}

/**
 * Respondents update the last `count` responses of the page of `formId` the service served last
 * (a new `submittedAt`, now: service notes, responses "can be updated"). Armed before a request
 * of a read, it is an edit between two of its pages; between two polls, it edits the responses a
 * cut read ended on.
 */
export function updateEndOfLastPage(server: SimServer, formId: string, count: number): void {
	server.apply({ kind: 'updateServed', form: Number(formId.replace('form', '')), count });
}

/**
 * One Form, Every Response Since a Date (7 days ago), oldest first, `backlog` responses in the
 * last hour, pages of `pageCap` at 100 ms, one page a poll (a 1 ms budget); every 20 polls
 * respondents update the last `edited` responses served, then `quietPolls` polls without edits.
 * The responses that never came, and the errors, on a service that answered every request.
 */
export async function backlogUnderRareEdits(
	pageCap: number,
	backlog: number,
	edited: number,
	quietPolls = 0,
): Promise<{ missing: string[]; errors: string[] }> {
	const { server, driver } = setUp({
		version: 2,
		pageCap,
		requestMs: 100,
		sinceAgoMs: 7 * 24 * 3_600_000,
	});
	server.seed(0, backlog, 60 * MINUTE, 1_000);
	const errors: string[] = [];
	for (let poll = 0; poll < 150; poll++) {
		errors.push(...(await driver.poll({ budgetMs: 1 })).errors);
		server.apply({ kind: 'advance', ms: MINUTE });
		if (poll % 20 === 19) updateEndOfLastPage(server, 'form0', edited);
	}
	for (let poll = 0; poll < quietPolls; poll++) {
		errors.push(...(await driver.poll({ budgetMs: 1 })).errors);
		server.apply({ kind: 'advance', ms: MINUTE });
	}
	expect(server.unhealthy()).toBe(false);
	const missing = aliveIds(server).filter((id) => timesEmitted(driver.emitted, id) === 0);
	return { missing, errors };
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

export function timesEmitted(emitted: Emitted[], id: string): number {
	return emitted.filter((e) => e.id === id).length;
}

/** Plain polls on a healthy server until `quiet` in a row emit nothing. */
export async function drain(driver: Driver): Promise<void> {
	await driver.drain();
	const trace = {
		schedule: { settings: driver.settings, steps: [] },
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

export function cursorOf(driver: Driver, formId: string): IDataObject | undefined {
	const forms = driver.session.triggerState?.forms as IDataObject | undefined;
	return forms?.[formId] as IDataObject | undefined;
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

/** The ids of the place a cut read left for the next one: its checkpoints (from an offset) and anchors. */
export function placeOf(resume: IDataObject, fromOffset = 0): string[] {
	const earlier = ((resume.earlier ?? []) as IDataObject[]).filter(
		(checkpoint) => (checkpoint.offset as number) >= fromOffset,
	);
	return [...earlier, ...(resume.anchors as IDataObject[])].map((point) => point.id as string);
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
