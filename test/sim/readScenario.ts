/**
 * Runs one read strategy of readStrategies.ts poll after poll over a SimServer holding a
 * backlog, while respondents submit, update and delete at given rates, and counts what the
 * comparison needs: requests and polls until a poll read the whole window, passes begun again,
 * versions emitted twice, and versions missed (alive at the end and never emitted).
 */
import { prng } from '../support/prng';
import type { AnchoredState, PollOutcome, ReadPage, StableEndState } from './readStrategies';
import { pollAnchored, pollStableEnd, simReader } from './readStrategies';
import type { ResponseOrder, SinceMode } from './server';
import { current, SimServer } from './server';

export type StrategyName = 'stableEnd' | 'anchored';

/** What respondents do, as chances per request of the reader (each at most 1). */
export interface Activity {
	arrival: number;
	update: number;
	deletion: number;
	/** Three responses submitted in one millisecond. */
	burst?: number;
	/** Between two polls, as much happens as during this many requests. */
	requestsBetweenPolls: number;
}

export interface Scenario {
	strategy: StrategyName;
	order: ResponseOrder;
	pageCap: number;
	since: SinceMode;
	backlog: number;
	/** Time between two milliseconds of the backlog. */
	spacingMs: number;
	/** Responses submitted in each of those milliseconds (ties in one millisecond); 1 if undefined. */
	backlogPerMs?: number;
	/** undefined: a quiet form. */
	activity?: Activity;
	maxPages: number;
	/** Polls to give up after, drained or not. */
	maxPolls: number;
	seed: number;
}

export interface ScenarioFigures {
	drained: boolean;
	/** A second whole read after respondents stopped: `missed` counts what it left unread. */
	settled: boolean;
	/** Polls until the first whole read (one that reached the newest response). */
	pollsToDrain: number;
	requestsToDrain: number;
	/** Versions emitted by then. */
	emittedToDrain: number;
	passesBegunAgain: number;
	emittedTwice: number;
	/** Alive at the end and never emitted (when not settled: not yet read, or lost). */
	missed: number;
	stuckPolls: number;
	/** The most versions the state remembered after a poll. */
	mostRemembered: number;
}

const START_MS = Date.parse('2026-03-02T12:00:00.000Z');
const REQUEST_MS = 200;
const POLL_INTERVAL_MS = 60_000;

type Poll = (read: ReadPage) => Promise<{ outcome: PollOutcome; remembered: number }>;

function strategyPoll(name: StrategyName, sinceMs: number, maxPages: number): Poll {
	if (name === 'stableEnd') {
		let state: StableEndState = { sinceMs, seen: new Map() };
		return async (read) => {
			const next = await pollStableEnd(read, state, { maxPages });
			state = next.state;
			return { outcome: next.outcome, remembered: state.seen.size };
		};
	}
	let state: AnchoredState = { sinceMs, seen: new Map() };
	return async (read) => {
		const next = await pollAnchored(read, state, { maxPages });
		state = next.state;
		return { outcome: next.outcome, remembered: state.seen.size };
	};
}

/** What respondents do during `requests` requests' worth of time. */
function act(server: SimServer, random: () => number, activity: Activity, requests: number): void {
	const pick = () => Math.floor(random() * 1_000_000_000);
	for (let i = 0; i < requests; i++) {
		if (random() < activity.arrival) server.apply({ kind: 'submit', form: 0, count: 1 });
		if (random() < activity.update) server.apply({ kind: 'update', form: 0, pick: pick() });
		if (random() < activity.deletion) server.apply({ kind: 'delete', form: 0, pick: pick() });
		if (random() < (activity.burst ?? 0)) server.apply({ kind: 'burst', form: 0, count: 3 });
	}
}

/** A poll interval, respondents' doings spread over it. */
function betweenPolls(server: SimServer, random: () => number, activity?: Activity): void {
	const steps = Math.max(1, activity?.requestsBetweenPolls ?? 1);
	for (let i = 0; i < steps; i++) {
		server.apply({ kind: 'advance', ms: Math.floor(POLL_INTERVAL_MS / steps) });
		if (activity) act(server, random, activity, 1);
	}
}

/** The backlog, its newest a poll interval before the start; returns the time of its oldest. */
function seedBacklog(server: SimServer, scenario: Scenario): number {
	const perMs = scenario.backlogPerMs ?? 1;
	const milliseconds = Math.ceil(scenario.backlog / perMs);
	server.now = START_MS - POLL_INTERVAL_MS - (milliseconds - 1) * scenario.spacingMs;
	const firstMs = server.now;
	for (let left = scenario.backlog; left > 0; left -= perMs) {
		server.apply({ kind: 'burst', form: 0, count: Math.min(perMs, left) });
		if (left > perMs) server.apply({ kind: 'advance', ms: scenario.spacingMs });
	}
	server.now = START_MS;
	return firstMs;
}

export async function runScenario(scenario: Scenario): Promise<ScenarioFigures> {
	const server = new SimServer(
		{
			since: scenario.since,
			order: scenario.order,
			pageCap: scenario.pageCap,
			totalAbsent: false,
			requestMs: REQUEST_MS,
		},
		START_MS,
		1,
	);
	const firstMs = seedBacklog(server, scenario);
	const random = prng(scenario.seed);
	let busy = scenario.activity !== undefined;
	const beforeEachRequest = (s: SimServer) => {
		if (!busy || !scenario.activity) return;
		act(s, random, scenario.activity, 1);
		s.arm(1, beforeEachRequest);
	};
	server.arm(1, beforeEachRequest);

	const poll = strategyPoll(scenario.strategy, firstMs - 1000, scenario.maxPages);
	const read = simReader(server);
	const emitted = new Map<string, number>();
	const figures: ScenarioFigures = {
		drained: false,
		settled: false,
		pollsToDrain: 0,
		requestsToDrain: 0,
		emittedToDrain: 0,
		passesBegunAgain: 0,
		emittedTwice: 0,
		missed: 0,
		stuckPolls: 0,
		mostRemembered: 0,
	};
	for (let polls = 1; polls <= scenario.maxPolls && !figures.settled; polls++) {
		const { outcome, remembered } = await poll(read);
		for (const r of outcome.emitted) {
			const key = `${r.id}@${r.atMs}`;
			emitted.set(key, (emitted.get(key) ?? 0) + 1);
		}
		figures.passesBegunAgain += outcome.passesBegunAgain;
		figures.stuckPolls += outcome.stuck ? 1 : 0;
		figures.mostRemembered = Math.max(figures.mostRemembered, remembered);
		// After the first whole read respondents stop, and the next whole read settles the count.
		if (outcome.complete && figures.drained) figures.settled = true;
		if (outcome.complete && !figures.drained) {
			Object.assign(figures, {
				drained: true,
				pollsToDrain: polls,
				requestsToDrain: server.log.length,
				emittedToDrain: emitted.size,
			});
			busy = false;
		}
		betweenPolls(server, random, busy ? scenario.activity : undefined);
	}
	figures.emittedTwice = [...emitted.values()].filter((count) => count > 1).length;
	figures.missed = server.responses.filter(
		(r) => r.deletedAtMs === undefined && !emitted.has(`${r.id}@${current(r).atMs}`),
	).length;
	return figures;
}
