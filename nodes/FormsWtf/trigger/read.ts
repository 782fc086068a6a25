/**
 * Reading a form's responses in reads that prove themselves. `since` is the cursor. One answer
 * with `hasMore: false` proves a whole read. A window that spans pages is read from the end of
 * the list that arrivals and updates do not move, the oldest: offset 0 of an oldest-first list;
 * the last page of a newest-first one (`offset = total − page + slack`, proven by its own
 * `hasMore: false`). Each such page moves `since` past what it proved. What no single answer can
 * prove (the look-back window itself on more than a page, a millisecond holding more than a page,
 * an order the pages do not show) is walked page by page from offset 0, each page starting a few
 * responses before the end of the last and required to hold one of them; a walk that does not
 * meet them begins again, and one that cannot finish is not proven.
 */
import type { FormsWtfClient } from '../shared/transport';
import { isDeadlineError } from '../shared/transport/errors';
import {
	clockOf,
	FormPages,
	getResponsesPage,
	MAX_PAGE_SIZE,
	orderOf,
	submittedAtMs,
	walkPagesAfter,
} from '../shared/transport/paging';
import type { FetchedPage, PageClock, PageSource } from '../shared/transport/paging';
import type { FormResponse } from '../shared/transport/types';
import { statusOf } from '../shared/transport/webhooks';
import type { Floor, FormCursor } from './state';

/**
 * Pages one poll reads at most (besides the list of forms), so that a poll every minute leaves
 * a third of the key's 60 requests per minute to other workflows.
 */
export const MAX_PAGES_PER_POLL = 40;

/** Responses one poll emits before it stops asking for pages: a backlog comes in executions of this size. */
export const MAX_ITEMS_PER_POLL = 2000;

/** Items a poll keeps, while it reads a form, for each form it reads after it: a page of 100. */
const ITEMS_KEPT_PER_FORM = 100;

/** Why a read that got its pages is not proven. */
export const NOT_WHOLE = new Error(
	'its responses could not be read whole: they kept changing between pages, or the service did not list them in order',
);

/** Why a read the poll cut proved nothing. */
export const NOT_IN_ONE_POLL = new Error(
	'more of its responses than one poll reads (40 pages) lie in its look-back window, or share one moment',
);

/** A failure of the service or the request: not a read that could not be proven. */
export function isReadFailure(failure: unknown): boolean {
	return failure !== undefined && failure !== NOT_WHOLE && failure !== NOT_IN_ONE_POLL;
}

/**
 * Whether a failure ends the poll's reading of every form: a wait the poll has no time for, or a
 * rate limit the transport could not wait out. The service limits the API key, not the form.
 */
export function endsPollReading(error: unknown): boolean {
	return isDeadlineError(error) || statusOf(error) === 429;
}

/** One response in the version read, with its time (an undated one: the read's clock). */
export interface Version {
	id: string;
	atMs: number;
	response: FormResponse;
}

/**
 * What one poll may still read: always two pages (a read and the page that proves it); then pages
 * while the budget, pages and items last.
 */
export class PollBudget implements PageSource {
	pages = 0;
	items = 0;
	/** A wait the poll had no time for, or a rate limit: no form is read any more this poll. */
	stoppedBy?: unknown;
	/** Where the items of the form being read end: its share of what the poll still hands over. */
	private itemsUntil = MAX_ITEMS_PER_POLL;

	constructor(
		readonly client: FormsWtfClient,
		readonly deadline: number,
	) {}

	mayRead(): boolean {
		if (this.stoppedBy !== undefined) return false;
		return this.pages < 2 || (!this.spent() && Date.now() <= this.deadline);
	}

	/** Why the poll cut a read: its pages or items (undefined: its time). */
	cutBy(): unknown {
		if (this.stoppedBy !== undefined) return this.stoppedBy;
		return Date.now() > this.deadline ? undefined : NOT_IN_ONE_POLL;
	}

	/**
	 * Before a form's read: of the items the poll still hands over, a page's worth (at most an
	 * equal share) is kept for each form left to read after it, so that a backlog does not hold
	 * back the others' new responses for a poll, nor lose its pace to them.
	 */
	shareItems(formsLeft: number): void {
		const left = MAX_ITEMS_PER_POLL - this.items;
		const others = Math.max(0, formsLeft - 1);
		const kept = others * Math.min(ITEMS_KEPT_PER_FORM, left / Math.max(1, formsLeft));
		this.itemsUntil = this.items + Math.ceil(left - kept);
	}

	cutByItems(): boolean {
		return this.items >= this.itemsUntil;
	}

	private spent(): boolean {
		return this.pages >= MAX_PAGES_PER_POLL || this.cutByItems();
	}

	async page(formId: string, offset: number, since?: string, limit = MAX_PAGE_SIZE) {
		this.pages++;
		const request = { formId, offset, since, limit, deadlineMs: this.deadline };
		return await getResponsesPage(this.client, request).catch((error: unknown) => {
			if (endsPollReading(error)) this.stoppedBy = error;
			throw error;
		});
	}
}

export interface ReadOptions {
	lookBackMs: number;
	updatedResponses: 'emit' | 'ignore';
	/** The first version to emit (a learning read raises it past the activation's second). */
	floor?: Floor;
}

export interface FormRead {
	/** The cursor after the read: `since`, `seen` and the floor moved; the rest as it was. */
	cursor: FormCursor;
	/** Versions to emit, one per response (the latest read). */
	found: Version[];
	/** Proven whole: every response since the cursor was read. */
	whole: boolean;
	/**
	 * Proven whole; or, unless not whole or cut in a walk of the window, left responses behind or
	 * found new ones from the oldest end.
	 */
	moved: boolean;
	failure?: unknown;
}

/** Reads the responses of a form since its cursor, as far as the poll's budget goes. */
export async function readForm(
	budget: PollBudget,
	formId: string,
	cursor: FormCursor,
	options: ReadOptions,
): Promise<FormRead> {
	const window = new WindowRead(budget, formId, cursor, options);
	let failure: unknown;
	let whole = false;
	try {
		whole = await window.read();
	} catch (error) {
		failure = error ?? new Error('The read failed');
	}
	return window.result(whole, failure);
}

/** One read of a form's window since its cursor (see readForm). */
class WindowRead {
	private sinceMs: number;
	private readonly seen: Record<string, number>;
	private readonly found = new Map<string, Version>();
	/** The clock of the read's first page: the look-back window is measured from it. */
	private started?: PageClock;
	/** The read walks the window page by page: cut, the walk begins again on the next poll. */
	private walkingWindow = false;
	/** A first page showed the list oldest first: what it held is the oldest of the window. */
	private readOldestEnd = false;

	constructor(
		private readonly budget: PollBudget,
		private readonly formId: string,
		private readonly cursor: FormCursor,
		private readonly options: ReadOptions,
	) {
		this.sinceMs = Date.parse(cursor.since);
		this.seen = { ...cursor.seen };
	}

	/** True when proven whole; a walk that cannot be proven throws NOT_WHOLE. */
	async read(): Promise<boolean> {
		const take = (page: FetchedPage) => this.take(page);
		const floor = this.options.floor ?? this.cursor.floor;
		for (;;) {
			if (!this.budget.mayRead()) return false;
			const pages = new FormPages(this.budget, this.formId, new Date(this.sinceMs).toISOString());
			const first = await pages.at(0);
			this.started ??= pages.started;
			this.readOldestEnd ||= orderOf(first.responses) === 1;
			this.take(first);
			if (!first.hasMore) return true;
			// What the oldest end proves moves `since` past it; the look-back window stays.
			const lookBackFromMs = (this.started?.atMs ?? 0) - this.options.lookBackMs - 1;
			const bound = (ms: number) => Math.min(ms - 1, lookBackFromMs);
			// Once `since` is the window's start, nothing before it is left to prove: walk the window.
			const proven =
				this.sinceMs < lookBackFromMs
					? await pages.provenBefore(first, take, (ms) => bound(ms) > this.sinceMs)
					: undefined;
			if (proven?.wholeList) return true;
			if (proven && bound(proven.beforeMs) > this.sinceMs) {
				this.sinceMs = bound(proven.beforeMs);
				continue;
			}
			// Out of pages before the walk: cut where the proven reads stopped.
			if (!this.budget.mayRead()) return false;
			this.walkingWindow = true;
			// On an oldest-first list, a walk no poll finishes, or one this poll has no pages for (not
			// while New Response learns the window: an update of one is not new), gives way to a read
			// of the list's end, where the new responses are, once that page proves itself. A
			// newest-first walk begins with them.
			const pagesNeeded = walkPagesAfter(first);
			const beyondAnyPoll = pagesNeeded >= MAX_PAGES_PER_POLL;
			const learning = this.options.updatedResponses === 'ignore' && floor !== undefined;
			const notNow = !learning && pagesNeeded > MAX_PAGES_PER_POLL - this.budget.pages;
			if ((beyondAnyPoll || notNow) && (await pages.readEnd(first, take))) {
				if (beyondAnyPoll) throw NOT_IN_ONE_POLL;
				return false;
			}
			const walked = await pages.walk(first, 0, take);
			if (walked === 'notWhole') throw NOT_WHOLE;
			return walked === 'whole';
		}
	}

	private take(page: FetchedPage): void {
		const { responses } = page;
		const floor = this.options.floor ?? this.cursor.floor;
		// An undated response is dated no earlier than the newest dated one beside it: the cursor
		// passing those must not forget it while the list still holds it.
		const pageNewestMs = Math.max(
			-Infinity,
			...responses.map((response) => submittedAtMs(response) ?? -Infinity),
		);
		// Undated: dated by the page that showed it, no later than it was served (an update after
		// is newer), again by each page that shows it (`seen` keeps it while reads return it), and
		// judged by the end of that page's second, the latest it may have been submitted.
		const clock = clockOf(page);
		for (const response of responses) {
			const dated = submittedAtMs(response);
			// A server that compares `since` coarsely returns responses the cursor has let go of.
			if (dated !== undefined && dated < this.sinceMs) continue;
			const atMs = dated ?? Math.max(clock.atMs, pageNewestMs);
			const latestMs = dated ?? atMs + (clock.onServiceClock ? 999 : 0);
			const handled = this.seen[response.id];
			const isNew =
				(floor === undefined || compareVersions({ atMs: latestMs, id: response.id }, floor) >= 0) &&
				(handled === undefined ||
					(this.options.updatedResponses === 'emit' && dated !== undefined && atMs > handled));
			if (handled === undefined || atMs > handled) this.seen[response.id] = atMs;
			if (!isNew) continue;
			if (!this.found.has(response.id)) this.budget.items++;
			this.found.set(response.id, { id: response.id, atMs, response });
		}
	}

	result(whole: boolean, failure: unknown): FormRead {
		// Progress: responses `since` left behind that no read had before (not those it passes with
		// the clock), or found new; not a walk of the window the poll cut, begun again next time.
		const fromMs = Date.parse(this.cursor.since);
		const passed = Object.entries(this.seen).some(
			([id, ms]) => ms > fromMs && ms <= this.sinceMs && this.cursor.seen[id] !== ms,
		);
		if (whole) {
			// Trails the read's start by the look-back window: a response that shows up a little
			// after its timestamp is still found. On the n8n host's clock (no Date header) also the
			// newest response read, which is on the service's.
			const newest = Object.values(this.seen).reduce((a, b) => Math.max(a, b), this.sinceMs);
			const started = this.started?.atMs ?? newest;
			const from = this.started?.onServiceClock ? started : Math.min(newest, started);
			const trailing = from - this.options.lookBackMs - 1;
			this.sinceMs = Math.max(this.sinceMs, trailing);
		}
		// Forgotten only now: a version read later in this read must still find the one before.
		// Kept by whole seconds, as a coarse server returns them; New Response keeps a window more,
		// so that an update within the window of the version before it is known as one.
		const { lookBackMs, updatedResponses } = this.options;
		const keepMs = this.sinceMs - (updatedResponses === 'ignore' ? lookBackMs : 0);
		const keepFromMs = Math.floor(keepMs / 1000) * 1000;
		for (const [id, atMs] of Object.entries(this.seen)) if (atMs < keepFromMs) delete this.seen[id];
		const cursor: FormCursor = {
			...this.cursor,
			since: new Date(this.sinceMs).toISOString(),
			seen: this.seen,
		};
		if (cursor.floor && cursor.floor.atMs < this.sinceMs) delete cursor.floor;
		const found = [...this.found.values()];
		// What a read that failed or was cut found is progress only from the oldest end: on a
		// newest-first list it is the newest, found again by every read while the older stay unread.
		const cutInWalk = this.walkingWindow && (failure === undefined || failure === NOT_IN_ONE_POLL);
		const foundMoves = found.length > 0 && this.readOldestEnd;
		const moved = whole || (failure !== NOT_WHOLE && !cutInWalk && (passed || foundMoves));
		return { cursor, found, whole, moved, failure: whole ? undefined : failure };
	}
}

/** Oldest first; ties in one millisecond in a fixed order, by id. */
export function compareVersions(a: Floor, b: Floor): number {
	return a.atMs - b.atMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
