import type { IDataObject } from 'n8n-workflow';

import type { FormsWtfClient } from './index';
import { serviceTimeMs } from './index';
import { errorForPaging, errorForUncountedWalk } from './errors';
import { readCount, readFlag, RESPONSES_PAGE } from './shapes';
import type { FormResponse } from './types';

/** The largest page the API serves. Return All and large Limits read pages of this size. */
export const MAX_PAGE_SIZE = 1000;

export interface ResponsesQuery {
	formId: string;
	/** ISO 8601 timestamp: only responses submitted after it. */
	since?: string;
	itemIndex?: number;
	/** See ApiRequest.timeoutMs; the transport's default when absent. */
	timeoutMs?: number;
	/** See ApiRequest.deadlineMs: no retry wait ends after it (a trigger's poll budget). */
	deadlineMs?: number;
}

export interface PageRequest extends ResponsesQuery {
	limit: number;
	offset: number;
	/** Aborted when the page is no longer wanted. */
	signal?: AbortSignal;
}

export interface FetchedPage {
	responses: FormResponse[];
	/**
	 * The form's response count as the API reports it, when it sent a number (or a numeric
	 * string). It informs guards and reading ahead; `hasMore` alone decides where paging ends.
	 */
	total?: number;
	hasMore: boolean;
	/** The service's clock when it answered (its Date header), in epoch ms, if it sent one. */
	serviceTimeMs?: number;
}

/** One page of a form's responses: the only place that calls the responses endpoint. */
export async function getResponsesPage(
	client: FormsWtfClient,
	request: PageRequest,
): Promise<FetchedPage> {
	const qs: IDataObject = { limit: request.limit, offset: request.offset };
	if (request.since !== undefined) qs.since = request.since;
	const { body, headers } = await client.request<unknown>({
		path: ['forms', request.formId, 'responses'],
		qs,
		formId: request.formId,
		itemIndex: request.itemIndex,
		signal: request.signal,
		timeoutMs: request.timeoutMs,
		deadlineMs: request.deadlineMs,
		expect: RESPONSES_PAGE,
	});
	const page = body as IDataObject;
	const responses = page.responses as FormResponse[];
	const total = readCount(page.total);
	// Without hasMore, the count says whether the page is the last one.
	const hasMore = readFlag(page.hasMore) ?? request.offset + responses.length < (total as number);
	return { responses, total, hasMore, serviceTimeMs: serviceTimeMs(headers) };
}

export interface PagingOptions {
	/** Offset of the first page (the "Offset" option of Get Responses). */
	startOffset?: number;
	/** Stop after this many responses. */
	maxItems?: number;
	/** Asked before each page after the first; true stops the walk early (poll time budget). */
	shouldStop?: () => boolean;
	/** Told about each page as it arrives, with the offset it was asked for (request counts, the service clock). */
	onPage?: (page: FetchedPage, offset: number) => void;
	/**
	 * Prove that the walk skipped nothing (see Continuity): each page after the first starts a
	 * little before the end of the last one and must find a response read before it.
	 */
	continuity?: Continuity;
	/**
	 * A response served again in another version (updated while the walk ran) is handed over
	 * again, not dropped as a repeat: a reader that keeps what it saw (the trigger) must see the
	 * update. Otherwise a repeat is dropped by its id alone (Return All lists each response once).
	 */
	keepNewVersions?: boolean;
}

/** A response read at a page boundary, in the version it was read in. */
export interface Anchor {
	id: string;
	/** `submittedAt` exactly as the API sent it: an updated response is no longer the anchor. */
	submittedAt: string;
}

/**
 * Proof that a walk by offset missed nothing between its pages, whatever happened between two
 * requests. Arrivals only push responses to later offsets, which a walk survives by dropping
 * repeats; a response deleted, or moved to the other end by an update, before the offset read
 * so far pulls everything after it one place back, and the first response of the next page
 * would be skipped. So every page after the first starts `overlap` responses early and must
 * hold one of the last responses read (its anchors), in the same version: everything after
 * that anchor is then read. Until an anchor turns up, the anchors of that boundary stay the
 * ones to find (later boundaries prove nothing about it); a walk that ends without finding
 * them is not proven, and its reader must read again from a safe start. A walk cut short
 * hands its anchors to the next walk, which resumes the same way.
 */
export class Continuity {
	/** The anchors of the oldest boundary not proven yet. */
	private pending: Anchor[] | undefined;
	private lastRead: Anchor[] = [];
	/** Whether the anchors the walk resumed from are still to be found. */
	private resumePending: boolean;
	/** Every response the walk was served, in the version served (see pushedOn). */
	private readonly served = new Set<string>();
	/** The server's order, once a page shows it: 1 oldest first, -1 newest first. */
	private order: 1 | -1 | undefined;
	/** Since the pending boundary, every page held responses, all of them before it (pushedOn). */
	private allBeforeBoundary = false;
	/** A page came after the pending boundary was crossed. */
	private answered = false;
	/** A boundary was taken on trust (see iterateResponses): the walk may have skipped a response. */
	private trusted = false;

	constructor(
		/** How many responses before the end of the last page the next page starts. */
		readonly overlap: number,
		resumeAnchors: Anchor[] = [],
	) {
		this.pending = resumeAnchors.length ? resumeAnchors : undefined;
		this.resumePending = this.pending !== undefined;
		this.allBeforeBoundary = this.resumePending;
	}

	/** Whether the walk found the anchors it resumed from (or resumed from none). */
	get resumed(): boolean {
		return !this.resumePending;
	}

	/** Whether every boundary so far found its anchor. */
	get proven(): boolean {
		return this.pending === undefined;
	}

	/** Whether a boundary was taken on trust: proven, as far as a page of one can prove it. */
	get tookOnTrust(): boolean {
		return this.trusted;
	}

	/** The anchors a walk that goes on from the end of what was read must find. */
	get anchors(): Anchor[] {
		return this.pending ?? this.lastRead;
	}

	/**
	 * A boundary of this walk (or the anchors it resumed from) is still to be proven, and every
	 * page since held only responses that lie before it: served before, or (not served yet) on
	 * its near side in the server's order, such as arrivals at the top of a newest-first list.
	 * They pushed the anchors to later offsets, where the next pages find them: nothing was
	 * skipped so far, and a walk cut here goes on from its end, still looking for them. A
	 * response from beyond the boundary, not served before, is what a deletion or an update
	 * pulling responses back looks like: something may lie between, and the walk is not proven.
	 */
	get pushedOn(): boolean {
		return this.pending !== undefined && this.allBeforeBoundary;
	}

	/** Every page as the server sent it, repeats included. */
	observe(responses: FormResponse[]): void {
		this.answered = true;
		this.order ??= orderOf(responses);
		if (
			this.pending &&
			responses.some((response) => this.pending?.some((anchor) => isAnchor(response, anchor)))
		) {
			this.pending = undefined;
			this.resumePending = false;
		}
		const anchors = responses.map(toAnchor);
		if (this.pending) {
			const boundaryMs = Date.parse(this.pending[this.pending.length - 1].submittedAt);
			const before = (anchor: Anchor): boolean => {
				if (this.served.has(keyOf(anchor))) return true;
				const atMs = Date.parse(anchor.submittedAt);
				if (this.order === undefined || Number.isNaN(atMs) || Number.isNaN(boundaryMs))
					return false;
				return this.order === 1 ? atMs < boundaryMs : atMs > boundaryMs;
			};
			this.allBeforeBoundary &&= anchors.length > 0 && anchors.every(before);
		}
		for (const anchor of anchors) this.served.add(keyOf(anchor));
		const tail = anchors.slice(-(this.overlap + 1));
		// A page that starts early serves again what the last one ended with: each response is
		// kept once, at its latest place, so the anchors (and the checkpoints taken before them)
		// are the distinct responses just before the offset, as resuming assumes.
		const earlier = this.lastRead.filter(
			(read) => !tail.some((anchor) => sameAnchor(anchor, read)),
		);
		this.lastRead = [...earlier, ...tail].slice(-(this.overlap + 1));
	}

	/** The next page is about to be asked for. */
	crossBoundary(): void {
		if (!this.pending && this.lastRead.length) {
			this.pending = this.lastRead;
			this.allBeforeBoundary = true;
			this.answered = false;
		}
	}

	/** The next page is about to be asked for right after the last one, with no anchor to find. */
	takeOnTrust(): void {
		this.trusted = true;
	}

	/**
	 * The page asked for across the last boundary never came (its request failed, or the walk
	 * stopped): that boundary was not crossed, and what was read before it stays proven.
	 */
	abandonBoundary(): void {
		if (this.pending && !this.resumePending && !this.answered) this.pending = undefined;
	}
}

/** The order a page shows: its first two responses with different dates. */
function orderOf(responses: FormResponse[]): 1 | -1 | undefined {
	let previousMs: number | undefined;
	for (const response of responses) {
		const atMs = Date.parse(String(response.submittedAt));
		if (Number.isNaN(atMs)) continue;
		if (previousMs !== undefined && atMs !== previousMs) return atMs > previousMs ? 1 : -1;
		previousMs = atMs;
	}
	return undefined;
}

function keyOf(anchor: Anchor): string {
	return `${anchor.id}\u0000${anchor.submittedAt}`;
}

export function toAnchor(response: FormResponse): Anchor {
	return { id: response.id, submittedAt: String(response.submittedAt) };
}

/** Whether two anchors are the same response in the same version. */
export function sameAnchor(a: Anchor, b: Anchor): boolean {
	return keyOf(a) === keyOf(b);
}

/** Whether a response is this anchor, in the same version. */
export function isAnchor(response: FormResponse, anchor: Anchor): boolean {
	return response.id === anchor.id && String(response.submittedAt) === anchor.submittedAt;
}

/**
 * Page requests a walk keeps under way. The paging rule is sequential (raise the offset until
 * `hasMore` is false), so a walk that waited for each page before asking for the next would
 * spend its time alternately idle while the server builds a page and busy while the server
 * idles. With the next page already requested, the two overlap.
 */
export const PAGES_IN_FLIGHT = 2;

/**
 * How many of the most recently read responses a walk remembers to drop repeats. A response is
 * served again only when responses arrive (or are updated) between two page requests and push
 * it across a page boundary, so a repeat is always among the last few pages read: remembering
 * 10,000 covers 9,000 arrivals between two consecutive requests, while the lookup stays small
 * and cheap however long the walk (a Set of every id read cost ~5 % of the CPU time of a
 * 500,000-response Return All, and memory that grew with it).
 */
const REPEAT_WINDOW = 10 * MAX_PAGE_SIZE;

/** The keys (ids, or ids and versions) of the last responses read, the oldest forgotten first. */
class RecentKeys {
	private readonly keys = new Set<string>();
	private readonly order: string[] = [];
	private head = 0;

	constructor(private readonly capacity: number) {}

	/** False if the key was read recently; otherwise remembers it and returns true. */
	addIfNew(key: string): boolean {
		if (this.keys.has(key)) return false;
		this.keys.add(key);
		this.order.push(key);
		if (this.order.length - this.head > this.capacity) {
			this.keys.delete(this.order[this.head++]);
			if (this.head >= this.capacity) {
				this.order.splice(0, this.head);
				this.head = 0;
			}
		}
		return true;
	}
}

interface PendingPage {
	offset: number;
	limit: number;
	/**
	 * Asked for ahead, before the page before it had arrived: it starts one response early, on
	 * the last response that page was expected to hold, and is only used if it does hold it.
	 */
	ahead: boolean;
	page: Promise<FetchedPage>;
}

/**
 * Walks a form's responses page by page, raising `offset` by what each page held until
 * `hasMore` is false, and yields each response once. Responses can arrive while the walk
 * runs; with a newest-first order they push older ones to later offsets, so a response may be
 * served twice: the walk drops the repeat, and goes on through pages that hold only repeats
 * while `total` shows that responses arrived (a busy form). It stops with an error instead of
 * looping forever when the server contradicts itself.
 *
 * The server may serve fewer responses than `limit` asks (it is a maximum): the walk goes on
 * from where each page ended, and bounds the number of pages by the page size actually served.
 *
 * Reading ahead: when the walk reads everything without a Since filter, it asks for the page
 * after the next one while `total` says it exists, so that the server builds one page while
 * this process reads the previous one. (With Since, the live service's `total` is not known to
 * count only the responses after it, and a page past the end would be a wasted request.) Two
 * pages in flight together may be answered in either order, with responses arriving between
 * the two answers, so a page asked for ahead starts one response early: it must hold the last
 * response of the page before it, which proves that nothing lies between the two. If it does
 * not (answers out of order with arrivals between, a shorter page than expected, deletions),
 * it is dropped and the walk reads on from where the page before it ended. Requests stay one
 * per page unless that happens.
 */
export async function* iterateResponses(
	client: FormsWtfClient,
	query: ResponsesQuery,
	options: PagingOptions = {},
): AsyncGenerator<FormResponse[], void, undefined> {
	const recent = new RecentKeys(REPEAT_WINDOW);
	/** The walk's error when the server contradicts itself. */
	const pagingError = (problem: string) => errorForPaging(client.context.getNode(), problem, query);
	const { continuity } = options;
	const readAhead =
		query.since === undefined &&
		options.maxItems === undefined &&
		options.shouldStop === undefined &&
		continuity === undefined;
	let remaining = options.maxItems ?? Number.POSITIVE_INFINITY;
	// A walk with no bound of its own (Return All) is bounded while the API gives no count.
	const bounded = options.maxItems !== undefined || options.shouldStop !== undefined;
	let readWithoutCount = 0;
	/** The size of the pages the server serves: the smallest page it sent while more existed. */
	let pageStep = MAX_PAGE_SIZE;
	let pagesRead = 0;
	/** The largest `total` reported so far; undefined while the API reports none. */
	let largestTotal: number | undefined;
	let firstTotal: number | undefined;
	let pagesOfRepeats = 0;
	/** How many responses the last page used held, and how far before its end the next page starts. */
	let lastLength = MAX_PAGE_SIZE;
	let back = 0;
	/** Pages of one response in a row, the last one included. */
	let onePagesInRow = 0;
	/** Where the last page used ended, and its last response (a page asked ahead must hold it). */
	let endOfLastPage = options.startOffset ?? 0;
	let lastIdRead: string | undefined;
	// Pages the walk no longer needs still finish (or fail) after it ends: stop their retries.
	const abandon = new AbortController();
	const inFlight: PendingPage[] = [];
	const request = (offset: number, limit: number, ahead = false): void => {
		const page = getResponsesPage(client, { ...query, limit, offset, signal: abandon.signal });
		// A page nobody awaits any more must not fail as an unhandled rejection.
		page.catch(() => undefined);
		inFlight.push({ offset, limit, ahead, page });
	};
	/** The next page in order: with a continuity proof, a little before the end of the last one. */
	const requestNext = (): void => {
		back = 0;
		if (continuity) {
			// The next page starts inside the last one, which must hold more than the overlap. Small
			// pages overlap by a quarter at most, so that each request still moves the walk on by
			// most of a page. After a page of one response the only proof is to read it again: the
			// next page starts at it, once. A server that serves one response a page serves that one
			// again, and from then on such boundaries are taken on trust (the README's limits), since
			// refusing them would never let the walk end; one short page among longer ones no longer
			// leaves the boundary after it unproven.
			back =
				lastLength === 1 && onePagesInRow < 2
					? 1
					: Math.max(
							0,
							Math.min(
								continuity.overlap,
								Math.ceil(lastLength / 4),
								lastLength - 1,
								endOfLastPage,
							),
						);
			if (back > 0) continuity.crossBoundary();
			else continuity.takeOnTrust();
		}
		request(endOfLastPage - back, Math.min(MAX_PAGE_SIZE, remaining + back));
	};

	try {
		request(endOfLastPage, Math.min(MAX_PAGE_SIZE, remaining));
		while (inFlight.length) {
			const { offset, limit, ahead, page: pending } = inFlight.shift() as PendingPage;
			const page = await pending;
			options.onPage?.(page, offset);

			if (ahead && !page.responses.some((response) => response.id === lastIdRead)) {
				// Responses may lie between the two pages: read on from where the last one ended.
				inFlight.length = 0;
				request(endOfLastPage, Math.min(MAX_PAGE_SIZE, remaining));
				continue;
			}
			pagesRead++;
			continuity?.observe(page.responses);
			const totalGrew =
				page.total !== undefined && largestTotal !== undefined && page.total > largestTotal;
			if (page.total !== undefined) largestTotal = Math.max(largestTotal ?? 0, page.total);
			firstTotal ??= page.total;

			const fresh: FormResponse[] = [];
			for (const response of page.responses) {
				const key = options.keepNewVersions ? keyOf(toAnchor(response)) : response.id;
				if (recent.addIfNew(key)) fresh.push(response);
			}
			if (fresh.length > remaining) fresh.length = remaining;
			remaining -= fresh.length;
			if (!page.hasMore || remaining <= 0) {
				if (fresh.length) yield fresh;
				return;
			}
			readWithoutCount = largestTotal === undefined ? readWithoutCount + fresh.length : 0;
			if (!bounded && readWithoutCount >= MAX_UNCOUNTED_RESPONSES) {
				throw errorForUncountedWalk(client.context.getNode(), MAX_UNCOUNTED_RESPONSES, query);
			}

			if (page.responses.length === 0)
				throw pagingError(
					`The API said more responses exist but sent an empty page at offset ${offset}.`,
				);
			// Only repeats: fine while responses that arrived during the walk push the ones read to
			// later offsets (as many pages as the count grew by, and a few more: a page that starts
			// inside the last one can hold only what was read), a server ignoring the offset when
			// it goes on.
			pagesOfRepeats = fresh.length === 0 ? pagesOfRepeats + 1 : 0;
			const advance = Math.max(1, page.responses.length - back);
			// Without a count, up to two pages' worth of arrivals are assumed.
			const arrived =
				largestTotal !== undefined && firstTotal !== undefined
					? largestTotal - firstTotal
					: 2 * page.responses.length;
			if (totalGrew) pagesOfRepeats = Math.min(pagesOfRepeats, 1);
			if (pagesOfRepeats > MAX_PAGES_OF_REPEATS + Math.ceil(arrived / advance)) {
				throw pagingError(
					`The page at offset ${offset} repeated responses already read, so the offset is not advancing.`,
				);
			}
			if (page.responses.length < Math.min(limit, pageStep)) pageStep = page.responses.length;
			// Arrivals during the walk can add pages, never an unbounded number of them. The
			// count the API reports bounds the walk only when it reports one.
			const stride = Math.max(1, pageStep - (continuity?.overlap ?? 0));
			if (largestTotal !== undefined && pagesRead > Math.ceil(largestTotal / stride) * 2 + 10) {
				throw pagingError(
					`Read ${pagesRead} pages of ${pageStep} or fewer responses of a form that reports ${largestTotal} responses.`,
				);
			}

			// A page that ends inside what was read (a server serving fewer than the overlap) moves nothing back.
			endOfLastPage = Math.max(endOfLastPage, offset + page.responses.length);
			lastLength = page.responses.length;
			onePagesInRow = lastLength === 1 ? onePagesInRow + 1 : 0;
			lastIdRead = page.responses[page.responses.length - 1].id;
			if (!inFlight.length) {
				if (options.shouldStop?.()) {
					yield fresh;
					return;
				}
				requestNext();
			}
			// A page of one response cannot overlap the one before it and still advance.
			while (
				readAhead &&
				largestTotal !== undefined &&
				pageStep > 1 &&
				inFlight.length < PAGES_IN_FLIGHT
			) {
				const aheadOffset = inFlight[inFlight.length - 1].offset + pageStep - 1;
				if (aheadOffset >= largestTotal) break;
				request(aheadOffset, MAX_PAGE_SIZE, true);
			}
			yield fresh;
		}
	} finally {
		abandon.abort();
	}
}

/**
 * The most responses Return All reads while the API reports no `total` and says more exist on
 * every page: without a count, nothing else tells a form of many responses from a server that
 * never stops (which would fill n8n's memory). A Limit reads as many as it asks for.
 */
export const MAX_UNCOUNTED_RESPONSES = 100_000;

/** Pages in a row holding only responses already read, when the API reports no count. */
const MAX_PAGES_OF_REPEATS = 5;
