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
	/** The n8n host's clock when the request that got this page was sent (after any retry). */
	sentAtMs: number;
}

/** One page of a form's responses: the only place that calls the responses endpoint. */
export async function getResponsesPage(
	client: FormsWtfClient,
	request: PageRequest,
): Promise<FetchedPage> {
	const qs: IDataObject = { limit: request.limit, offset: request.offset };
	if (request.since !== undefined) qs.since = request.since;
	const { body, headers, sentAtMs } = await client.request<unknown>({
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
	return { responses, total, hasMore, serviceTimeMs: serviceTimeMs(headers), sentAtMs };
}

export interface PagingOptions {
	/** Offset of the first page (the "Offset" option of Get Responses). */
	startOffset?: number;
	/** Stop after this many responses. */
	maxItems?: number;
	/** Told about each page as it arrives, with the offset it was asked for (request counts, the service clock). */
	onPage?: (page: FetchedPage, offset: number) => void;
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
	const walk = new ResponsesWalk(client, query, options);
	try {
		walk.requestNext();
		for (let pending = walk.nextPending(); pending; pending = walk.nextPending()) {
			const page = await pending.page;
			options.onPage?.(page, pending.offset);
			if (pending.ahead && !walk.holdsLastRead(page)) {
				// Responses may lie between the two pages: read on from where the last one ended.
				walk.readOnFromLastPage();
				continue;
			}
			const { fresh, last } = walk.use(page, pending);
			if (last) {
				if (fresh.length) yield fresh;
				return;
			}
			yield fresh;
		}
	} finally {
		walk.abandon();
	}
}

/**
 * One walk of iterateResponses: the pages it has under way, where the last page it used ended,
 * and what its guards against a server that contradicts itself count. The generator only awaits
 * pages and yields; every decision about a page is made here, in the order the walk needs it.
 */
class ResponsesWalk {
	private readonly recent = new RecentKeys(REPEAT_WINDOW);
	private readonly readAhead: boolean;
	private remaining: number;
	// A walk with no bound of its own (Return All) is bounded while the API gives no count.
	private readonly bounded: boolean;
	private readWithoutCount = 0;
	/** The size of the pages the server serves: the smallest page it sent while more existed. */
	private pageStep = MAX_PAGE_SIZE;
	private pagesRead = 0;
	/** The largest `total` reported so far; undefined while the API reports none. */
	private largestTotal: number | undefined;
	private firstTotal: number | undefined;
	private pagesOfRepeats = 0;
	/** Where the last page used ended, and its last response (a page asked ahead must hold it). */
	private endOfLastPage: number;
	private lastIdRead: string | undefined;
	// Pages the walk no longer needs still finish (or fail) after it ends: stop their retries.
	private readonly abandonment = new AbortController();
	private readonly inFlight: PendingPage[] = [];

	constructor(
		private readonly client: FormsWtfClient,
		private readonly query: ResponsesQuery,
		options: PagingOptions,
	) {
		this.readAhead = query.since === undefined && options.maxItems === undefined;
		this.remaining = options.maxItems ?? Number.POSITIVE_INFINITY;
		this.bounded = options.maxItems !== undefined;
		this.endOfLastPage = options.startOffset ?? 0;
	}

	/** Asks for the page that starts where the last page used ended. */
	requestNext(): void {
		this.request(this.endOfLastPage, Math.min(MAX_PAGE_SIZE, this.remaining));
	}

	/** The oldest page request under way (pages are used in the order asked), if any. */
	nextPending(): PendingPage | undefined {
		return this.inFlight.shift();
	}

	/** Whether a page holds the last response read: a page asked ahead is used only then. */
	holdsLastRead(page: FetchedPage): boolean {
		return page.responses.some((response) => response.id === this.lastIdRead);
	}

	/** Drops the pages asked ahead and asks again from where the last page used ended. */
	readOnFromLastPage(): void {
		this.inFlight.length = 0;
		this.requestNext();
	}

	/**
	 * Uses a page: returns its responses not read before (no more than the walk still wants),
	 * and whether it is the last. Unless it is, checks that the walk progresses (throwing when
	 * the server contradicts itself) and asks for the pages after it, before anything is yielded.
	 */
	use(page: FetchedPage, pending: PendingPage): { fresh: FormResponse[]; last: boolean } {
		this.pagesRead++;
		const totalGrew = this.noteTotal(page.total);
		const fresh: FormResponse[] = [];
		for (const response of page.responses) {
			if (this.recent.addIfNew(response.id)) fresh.push(response);
		}
		if (fresh.length > this.remaining) fresh.length = this.remaining;
		this.remaining -= fresh.length;
		if (!page.hasMore || this.remaining <= 0) return { fresh, last: true };
		this.checkCounted(fresh.length);
		this.checkAdvancing(page, pending.offset, fresh.length, totalGrew);
		this.checkPageCount(page, pending.limit);
		this.endOfLastPage = Math.max(this.endOfLastPage, pending.offset + page.responses.length);
		this.lastIdRead = page.responses[page.responses.length - 1].id;
		this.requestFollowing();
		return { fresh, last: false };
	}

	/** Stops the retries of pages still under way: the walk no longer wants them. */
	abandon(): void {
		this.abandonment.abort();
	}

	private request(offset: number, limit: number, ahead = false): void {
		const signal = this.abandonment.signal;
		const page = getResponsesPage(this.client, { ...this.query, limit, offset, signal });
		// A page nobody awaits any more must not fail as an unhandled rejection.
		page.catch(() => undefined);
		this.inFlight.push({ offset, limit, ahead, page });
	}

	/** Records a page's `total`; true if it is larger than any reported before. */
	private noteTotal(total: number | undefined): boolean {
		const grew =
			total !== undefined && this.largestTotal !== undefined && total > this.largestTotal;
		if (total !== undefined) this.largestTotal = Math.max(this.largestTotal ?? 0, total);
		this.firstTotal ??= total;
		return grew;
	}

	/** Return All without a count stops at MAX_UNCOUNTED_RESPONSES rather than never. */
	private checkCounted(freshCount: number): void {
		this.readWithoutCount =
			this.largestTotal === undefined ? this.readWithoutCount + freshCount : 0;
		if (!this.bounded && this.readWithoutCount >= MAX_UNCOUNTED_RESPONSES) {
			throw errorForUncountedWalk(
				this.client.context.getNode(),
				MAX_UNCOUNTED_RESPONSES,
				this.query,
			);
		}
	}

	/** A page said to have more after it must move the walk on: not be empty, not repeat forever. */
	private checkAdvancing(
		page: FetchedPage,
		offset: number,
		freshCount: number,
		totalGrew: boolean,
	): void {
		if (page.responses.length === 0)
			throw this.pagingError(
				`The API said more responses exist but sent an empty page at offset ${offset}.`,
			);
		// Only repeats: fine while responses that arrived during the walk push the ones read to
		// later offsets (as many pages as the count grew by, and a few more: a page that starts
		// inside the last one can hold only what was read), a server ignoring the offset when
		// it goes on.
		this.pagesOfRepeats = freshCount === 0 ? this.pagesOfRepeats + 1 : 0;
		const advance = Math.max(1, page.responses.length);
		// Without a count, up to two pages' worth of arrivals are assumed.
		const arrived =
			this.largestTotal !== undefined && this.firstTotal !== undefined
				? this.largestTotal - this.firstTotal
				: 2 * page.responses.length;
		if (totalGrew) this.pagesOfRepeats = Math.min(this.pagesOfRepeats, 1);
		if (this.pagesOfRepeats > MAX_PAGES_OF_REPEATS + Math.ceil(arrived / advance)) {
			throw this.pagingError(
				`The page at offset ${offset} repeated responses already read, so the offset is not advancing.`,
			);
		}
	}

	/** Learns the page size served, and bounds the pages read by the count the API reports. */
	private checkPageCount(page: FetchedPage, limit: number): void {
		if (page.responses.length < Math.min(limit, this.pageStep))
			this.pageStep = page.responses.length;
		// Arrivals during the walk can add pages, never an unbounded number of them. The
		// count the API reports bounds the walk only when it reports one.
		const { pagesRead, pageStep, largestTotal } = this;
		if (largestTotal !== undefined && pagesRead > Math.ceil(largestTotal / pageStep) * 2 + 10) {
			throw this.pagingError(
				`Read ${pagesRead} pages of ${pageStep} or fewer responses of a form that reports ${largestTotal} responses.`,
			);
		}
	}

	/** Asks for the next page if none is under way, and for pages ahead while `total` has them. */
	private requestFollowing(): void {
		if (!this.inFlight.length) this.requestNext();
		// A page of one response cannot overlap the one before it and still advance.
		while (
			this.readAhead &&
			this.largestTotal !== undefined &&
			this.pageStep > 1 &&
			this.inFlight.length < PAGES_IN_FLIGHT
		) {
			const aheadOffset = this.inFlight[this.inFlight.length - 1].offset + this.pageStep - 1;
			if (aheadOffset >= this.largestTotal) break;
			this.request(aheadOffset, MAX_PAGE_SIZE, true);
		}
	}

	/** The walk's error when the server contradicts itself. */
	private pagingError(problem: string) {
		return errorForPaging(this.client.context.getNode(), problem, this.query);
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

/** Where the pages of a proven read come from: one poll's reading, with its page and time limits. */
export interface PageSource {
	mayRead(): boolean;
	page(formId: string, offset: number, since?: string, limit?: number): Promise<FetchedPage>;
}

/** How many responses of a page the next page of a walk reads again, to prove nothing fell between. */
export const PAGE_OVERLAP = 5;

/** The fewest responses a page that more follow must hold to prove an order or a boundary. */
export const MIN_PROVING_PAGE = 10;

/** Times a walk begins again from its first offset before it counts as not proven. */
const WALK_PASSES = 3;

/** A page's clock: its Date (whole seconds, their start), or the n8n host's when it was asked for. */
export interface PageClock {
	atMs: number;
	onServiceClock: boolean;
}

/**
 * A page's clock: not later than it was served, so a response submitted or updated after it is
 * newer; nor earlier than it was asked for by the attempt that got it (a 429 waited out before).
 */
export function clockOf(page: FetchedPage): PageClock {
	const onServiceClock = page.serviceTimeMs !== undefined;
	return { atMs: page.serviceTimeMs ?? page.sentAtMs, onServiceClock };
}

/** What a reader does with each page it is served (once or more). */
export type TakePage = (page: FetchedPage) => void;

/** Pages of one form's list, from one `since`, with the proofs each answer carries. */
export class FormPages {
	/** The clock of the first page: the service's Date at the first answer, or the host's. */
	started?: PageClock;
	/** The last walk's pass: its first page, the newest time it read, and its last page. */
	private passFirst?: FetchedPage;
	private passNewestMs = -Infinity;
	private lastPage?: FetchedPage;

	constructor(
		readonly budget: PageSource,
		readonly formId: string,
		readonly since?: string,
	) {}

	async at(offset: number, limit?: number): Promise<FetchedPage> {
		const page = await this.budget.page(this.formId, offset, this.since, limit);
		this.started ??= clockOf(page);
		return page;
	}

	/**
	 * Reads from the oldest end of the list until everything submitted before some time is read,
	 * proven by the answers, and `enough` accepts that time. Oldest first: a walk from offset 0,
	 * whose pages are the oldest. Newest first: the last pages, from `total − span` to the end,
	 * whose own `hasMore: false` proves they are the last; the span doubles until it is enough.
	 * Undefined when no page shows the order (or `total` is missing on a newest-first list).
	 */
	async provenBefore(
		first: FetchedPage,
		take: TakePage,
		enough: (ms: number) => boolean,
	): Promise<{ beforeMs: number; wholeList: boolean } | undefined> {
		const order = orderOf(first.responses) || (await this.orderByLast(first, take));
		if (order === 1) {
			const walked = await this.walk(first, 0, take, () => enough(this.passNewestMs));
			if (walked === 'notWhole') return undefined;
			return {
				beforeMs: this.passNewestMs,
				wholeList: walked === 'whole' && !this.lastPage?.hasMore,
			};
		}
		if (order !== -1 || first.total === undefined) return undefined;
		const size = first.responses.length;
		// Arrivals push the end on: a tenth of a page of slack.
		for (let span = size - Math.floor(size / 10); first.total - span > 0; span *= 2) {
			if (!this.budget.mayRead()) return undefined;
			const offset = first.total - span;
			const walked = await this.walk(await this.at(offset), offset, take);
			const newest = this.passFirst && submittedAtMs(this.passFirst.responses[0]);
			if (
				walked !== 'whole' ||
				newest === undefined ||
				!inOrder(this.passFirst?.responses ?? [], -1)
			)
				return undefined;
			if (enough(newest)) return { beforeMs: newest, wholeList: false };
		}
		return undefined;
	}

	/**
	 * The end of an oldest-first list, its newest responses, asked at `total − page + page/10`
	 * (arrivals push the end on): true when the answer's own `hasMore: false` proves it holds
	 * them, and so that `total` counts what `since` asks.
	 */
	async readEnd(first: FetchedPage, take: TakePage): Promise<boolean> {
		const size = first.responses.length;
		if (orderOf(first.responses) !== 1 || first.total === undefined || !this.budget.mayRead())
			return false;
		const end = await this.at(Math.max(0, first.total - size + Math.floor(size / 10)));
		take(end);
		return !end.hasMore && end.responses.length > 0;
	}

	/** A first page of one millisecond shows no order: the list's last response tells it. */
	async orderByLast(first: FetchedPage, take: TakePage = () => undefined): Promise<1 | -1 | 0> {
		const times = new Set(first.responses.map(submittedAtMs).filter((ms) => ms !== undefined));
		const full = first.responses.length >= MIN_PROVING_PAGE;
		if (!full || times.size !== 1 || first.total === undefined || !this.budget.mayRead()) return 0;
		const [firstMs] = [...times] as number[];
		const last = await this.at(first.total - 1, 1);
		// Read is read: the reader keeps it, as it keeps every page it is served.
		take(last);
		const lastMs = submittedAtMs(last.responses[0] ?? ({} as FormResponse));
		return lastMs === undefined || lastMs === firstMs ? 0 : lastMs > firstMs ? 1 : -1;
	}

	/**
	 * Walks the list from `first` (the page at `offset`) to its end, or until `enough` says so,
	 * handing each page to `take`. Each next page starts PAGE_OVERLAP responses before the end of
	 * the last and must hold one of them, in the same version and in the list's order; if not,
	 * responses moved under the walk and it begins again at `offset`.
	 */
	async walk(
		first: FetchedPage,
		offset: number,
		take: TakePage,
		enough = () => false,
	): Promise<'whole' | 'cut' | 'notWhole'> {
		let page = first;
		let at = offset;
		let passes = 1;
		/** The list's order, once a page shows it: every page after must keep it. */
		let order: 1 | -1 | 0 = 0;
		const begin = (start: FetchedPage) => {
			[this.passFirst, this.passNewestMs] = [start, newestMs(start.responses)];
			take(start);
		};
		begin(page);
		for (;;) {
			this.lastPage = page;
			if (!page.hasMore || enough()) return 'whole';
			if (!this.budget.mayRead()) return 'cut';
			const size = page.responses.length;
			order ||= orderOf(page.responses);
			// A boundary after a page of a few responses, or of no order, is met by chance as easily
			// as by order.
			if (size < MIN_PROVING_PAGE || (order === 0 && !isOneMillisecond(page))) return 'notWhole';
			const step = size - PAGE_OVERLAP;
			const overlap = page.responses.slice(step);
			const next = await this.at(at + step);
			take(next);
			const met = next.responses.some((response) =>
				overlap.some((seen) => sameVersion(seen, response)),
			);
			if (met && (order === 0 || inOrder(next.responses, order))) {
				// Only a page that meets the last proves what lies before its newest.
				this.passNewestMs = Math.max(this.passNewestMs, newestMs(next.responses));
				[page, at] = [next, at + step];
				continue;
			}
			if (!this.budget.mayRead()) return 'cut';
			if (++passes > WALK_PASSES) return 'notWhole';
			[page, at] = [await this.at(offset), offset];
			begin(page);
		}
	}
}

/** The pages a walk needs after `first` to reach the end its `total` says (0 when it says none). */
export function walkPagesAfter(first: FetchedPage): number {
	const size = first.responses.length;
	if (first.total === undefined || size <= PAGE_OVERLAP) return 0;
	return Math.ceil(Math.max(0, first.total - size) / (size - PAGE_OVERLAP));
}

/** The submission time of a response in epoch ms; undefined when it has none the trigger can use. */
export function submittedAtMs(response: FormResponse): number | undefined {
	const at: unknown = response.submittedAt;
	const ms = typeof at === 'string' ? Date.parse(at) : NaN;
	return Number.isNaN(ms) ? undefined : ms;
}

function sameVersion(a: FormResponse, b: FormResponse): boolean {
	return a.id === b.id && a.submittedAt === b.submittedAt;
}

function datedTimes(responses: FormResponse[]): number[] {
	return responses.map(submittedAtMs).filter((ms): ms is number => ms !== undefined);
}

export function newestMs(responses: FormResponse[]): number {
	return Math.max(...datedTimes(responses), -Infinity);
}

/** 1: oldest first, -1: newest first, 0: the page does not show an order (or breaks it). */
function isOneMillisecond(page: FetchedPage): boolean {
	return new Set(datedTimes(page.responses)).size <= 1;
}

export function orderOf(responses: FormResponse[]): 1 | -1 | 0 {
	const times = datedTimes(responses);
	// A few responses in order by chance would prove nothing.
	if (times.length < MIN_PROVING_PAGE) return 0;
	const first = times.find((ms) => ms !== times[0]);
	if (first === undefined) return 0;
	const order = first > times[0] ? 1 : -1;
	return inOrder(responses, order) ? order : 0;
}

function inOrder(responses: FormResponse[], order: 1 | -1): boolean {
	const times = datedTimes(responses);
	return times.every((ms, i) => i === 0 || (ms - times[i - 1]) * order >= 0);
}
