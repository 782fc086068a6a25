/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Two ways of reading a form's responses since a cursor, prototyped over SimServer to choose
 * one by measurement (bench/readStrategies.ts). Both emit each version of a response (its id
 * and `submittedAt`) once, read at most `maxPages` pages a poll, and remember the versions they
 * emitted only as long as a later read can serve them again.
 *
 * - Stable end (`pollStableEnd`): `since` is the cursor and every answer proves what it holds.
 *   A page that ends the list (`hasMore: false`) proves the whole window. Otherwise the window
 *   is read from its oldest end, which arrivals and updates do not move: offset 0 on an
 *   oldest-first list; on a newest-first list the last page, at `total − pageSize + slack`,
 *   whose own `hasMore: false` proves it holds the oldest responses. `since` then moves to the
 *   newest response read − 1 ms (the boundary millisecond is read again, its ids dropped).
 * - Head-first with anchors (`pollAnchored`): pages from offset 0 with a fixed `since`, each
 *   next page starting `overlap` responses before the end of the last and required to hold the
 *   last response of the last page (same id and `submittedAt`); a page that does not meet its
 *   anchor begins the pass again from offset 0. `since` moves only when a pass is complete; a
 *   pass cut by the page cap resumes at the next poll where it stopped, anchor and all.
 */
import type { IDataObject } from 'n8n-workflow';
import type { Readable } from 'stream';

import type { ResponseOrder, SimServer } from './server';
import { SIM_BASE_URL } from './server';

/** A version of a response as a page serves it. */
export interface Served {
	id: string;
	atMs: number;
}

export interface Page {
	responses: Served[];
	hasMore: boolean;
	total?: number;
}

/** One request for a page of a form's responses: `since` (exclusive as asked) and `offset`. */
export type ReadPage = (sinceMs: number, offset: number) => Promise<Page>;

/** The contract's largest page; a server may serve fewer (its cap). */
export const PAGE_LIMIT = 1000;

/** Reads one form's responses from the simulated service through its `handle`. */
export function simReader(server: SimServer, form = 0): ReadPage {
	const formId = server.formAt(form).id;
	return async (sinceMs, offset) => {
		const answer = (await server.handle('formsWtfApi', {
			url: `${SIM_BASE_URL}/forms/${formId}/responses`,
			qs: { limit: PAGE_LIMIT, offset, since: new Date(sinceMs).toISOString() },
		})) as { statusCode: number; body: Readable };
		const chunks: Buffer[] = [];
		for await (const chunk of answer.body) chunks.push(chunk as Buffer);
		const json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as IDataObject;
		if (answer.statusCode !== 200) throw new Error(`HTTP ${answer.statusCode}`);
		const responses = (json.responses as IDataObject[]).map((r) => ({
			id: String(r.id),
			atMs: Date.parse(String(r.submittedAt)),
		}));
		const total = typeof json.total === 'number' ? json.total : undefined;
		return { responses, hasMore: json.hasMore === true, total };
	};
}

export interface PollLimits {
	/** Pages one poll reads at most. */
	maxPages: number;
}

export interface PollOutcome {
	emitted: Served[];
	requests: number;
	/** The read reached the newest response: everything up to it is proven. */
	complete: boolean;
	/** No page could move the read on (more than a page in one millisecond, `total` absent). */
	stuck: boolean;
	/** Passes begun again from offset 0 because a page missed its anchor (head-first only). */
	passesBegunAgain: number;
}

/** Versions emitted and still servable again, by `id@submittedAt`, with their time. */
type Seen = Map<string, number>;

const versionKey = (r: Served): string => `${r.id}@${r.atMs}`;

/** Emits the versions of `page` not emitted yet. */
function emitNew(page: Served[], seen: Seen, emitted: Served[]): void {
	for (const response of page) {
		const key = versionKey(response);
		if (seen.has(key)) continue;
		seen.set(key, response.atMs);
		emitted.push(response);
	}
}

/**
 * Forgets what no read from `sinceMs` on can serve again. A server may compare `since` to its
 * whole second, so what is in that second stays remembered.
 */
function forgetBefore(seen: Seen, sinceMs: number): void {
	const floor = Math.floor(sinceMs / 1000) * 1000;
	for (const [key, atMs] of seen) if (atMs < floor) seen.delete(key);
}

function newOutcome(): PollOutcome {
	return { emitted: [], requests: 0, complete: false, stuck: false, passesBegunAgain: 0 };
}

// ---- strategy A: stable end ----

export interface StableEndState {
	sinceMs: number;
	seen: Seen;
	/** Learnt from the first page that shows two times. */
	order?: ResponseOrder;
}

/** Responses a newest-first read asks short of the last page, for arrivals between two answers. */
export const STABLE_END_SLACK = 5;

function orderOf(page: Served[]): ResponseOrder | undefined {
	const first = page[0]?.atMs;
	const last = page[page.length - 1]?.atMs;
	if (first === undefined || first === last) return undefined;
	return first < last ? 'oldestFirst' : 'newestFirst';
}

/**
 * One poll of the stable-end read. Every page it emits is proven: it holds all responses after
 * `since` up to its newest but the ties of that millisecond, which the next `since` (that time
 * − 1 ms) reads again.
 */
export async function pollStableEnd(
	read: ReadPage,
	start: StableEndState,
	limits: PollLimits,
): Promise<{ state: StableEndState; outcome: PollOutcome }> {
	const state: StableEndState = { ...start, seen: new Map(start.seen) };
	const outcome = newOutcome();
	let offset = 0;
	let pageSize: number | undefined;
	let total: number | undefined;
	while (outcome.requests < limits.maxPages) {
		const page = await read(state.sinceMs, offset);
		outcome.requests++;
		total = page.total;
		if (page.hasMore && offset === 0) pageSize = page.responses.length;
		state.order ??= orderOf(page.responses);
		const isOldest = !page.hasMore || (offset === 0 && state.order === 'oldestFirst');
		if (!isOldest || page.responses.length === 0) {
			// Not the oldest end (arrivals since `total`), or past it (deletions): ask again.
			if (page.responses.length === 0 && offset === 0) return done(state, outcome, page);
			if (total === undefined || pageSize === undefined || state.order === undefined)
				return stuck(state, outcome);
			offset = Math.max(0, total - pageSize + STABLE_END_SLACK);
			continue;
		}
		emitNew(page.responses, state.seen, outcome.emitted);
		if (!page.hasMore && offset === 0) return done(state, outcome, page);
		const newestMs = Math.max(...page.responses.map((r) => r.atMs));
		if (newestMs - 1 <= state.sinceMs) return stuck(state, outcome);
		state.sinceMs = newestMs - 1;
		forgetBefore(state.seen, state.sinceMs);
		if (state.order === 'oldestFirst') continue;
		// The list after the new `since` lost the page's responses older than its newest.
		const left = page.responses.filter((r) => r.atMs < newestMs).length;
		offset = Math.max(0, (total ?? 0) - left - (pageSize ?? 0) + STABLE_END_SLACK);
	}
	return { state, outcome };
}

/** The whole window is on `last`: `since` moves to its newest response − 1 ms. */
function done(
	state: StableEndState,
	outcome: PollOutcome,
	last: Page,
): { state: StableEndState; outcome: PollOutcome } {
	const newestMs = Math.max(state.sinceMs + 1, ...last.responses.map((r) => r.atMs));
	state.sinceMs = newestMs - 1;
	forgetBefore(state.seen, state.sinceMs);
	outcome.complete = true;
	return { state, outcome };
}

function stuck(
	state: StableEndState,
	outcome: PollOutcome,
): { state: StableEndState; outcome: PollOutcome } {
	outcome.stuck = true;
	return { state, outcome };
}

// ---- strategy B: head-first with anchors ----

/** Responses each next page reads again before the end of the last. */
export const ANCHOR_OVERLAP = 3;

export interface AnchoredState {
	/** Fixed while a pass is under way. */
	sinceMs: number;
	/** Every version emitted since `since`: a pass begun again reads them all again. */
	seen: Seen;
	/** A pass cut by the page cap: where it goes on, what it must meet there, its newest time. */
	pass?: { offset: number; anchor: Served; newestMs: number };
}

/** One poll of the head-first read: its pass goes on, or begins again when a page misses its anchor. */
export async function pollAnchored(
	read: ReadPage,
	start: AnchoredState,
	limits: PollLimits,
): Promise<{ state: AnchoredState; outcome: PollOutcome }> {
	const state: AnchoredState = { ...start, seen: new Map(start.seen) };
	const outcome = newOutcome();
	while (outcome.requests < limits.maxPages) {
		const pass = state.pass;
		const page = await read(state.sinceMs, pass?.offset ?? 0);
		outcome.requests++;
		const anchor = pass?.anchor;
		if (anchor && !page.responses.some((r) => r.id === anchor.id && r.atMs === anchor.atMs)) {
			outcome.passesBegunAgain++;
			state.pass = undefined;
			continue;
		}
		emitNew(page.responses, state.seen, outcome.emitted);
		const newestMs = Math.max(pass?.newestMs ?? -Infinity, ...page.responses.map((r) => r.atMs));
		if (!page.hasMore) {
			if (Number.isFinite(newestMs)) state.sinceMs = Math.max(state.sinceMs, newestMs - 1);
			forgetBefore(state.seen, state.sinceMs);
			state.pass = undefined;
			outcome.complete = true;
			break;
		}
		if (page.responses.length <= ANCHOR_OVERLAP) {
			outcome.stuck = true;
			break;
		}
		state.pass = {
			offset: (pass?.offset ?? 0) + page.responses.length - ANCHOR_OVERLAP,
			anchor: page.responses[page.responses.length - 1],
			newestMs,
		};
	}
	return { state, outcome };
}

// ---- end of strategies ----
