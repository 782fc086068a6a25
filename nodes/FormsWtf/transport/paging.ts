import type { IDataObject } from 'n8n-workflow';

import type { FormsWtfContext } from './index';
import { apiRequest, serviceTimeMs } from './index';
import { errorForMalformedBody, errorForPaging } from './errors';
import type { FormResponse, ResponsesPage } from './types';

/** The largest page the API serves. Return All always reads pages of this size. */
export const MAX_PAGE_SIZE = 1000;

export interface ResponsesQuery {
	formId: string;
	/** ISO 8601 timestamp: only responses submitted after it. */
	since?: string;
	itemIndex?: number;
}

export interface PageRequest extends ResponsesQuery {
	limit: number;
	offset: number;
	/** Aborted when the page is no longer wanted. */
	signal?: AbortSignal;
}

export interface FetchedPage extends ResponsesPage {
	/** The service's clock when it answered (its Date header), in epoch ms, if it sent one. */
	serviceTimeMs?: number;
}

/** One page of a form's responses: the only place that calls the responses endpoint. */
export async function getResponsesPage(this: FormsWtfContext, request: PageRequest): Promise<FetchedPage> {
	const qs: IDataObject = { limit: request.limit, offset: request.offset };
	if (request.since !== undefined) qs.since = request.since;
	const { body, headers } = await (apiRequest<ResponsesPage>).call(this, {
		path: ['forms', request.formId, 'responses'],
		qs,
		formId: request.formId,
		itemIndex: request.itemIndex,
		signal: request.signal,
	});
	if (!body || !Array.isArray(body.responses)) {
		throw errorForMalformedBody(this.getNode(), 'a page of responses ({ responses, total, hasMore })', request);
	}
	return {
		responses: body.responses,
		total: typeof body.total === 'number' ? body.total : body.responses.length,
		hasMore: body.hasMore === true,
		serviceTimeMs: serviceTimeMs(headers),
	};
}

export interface PagingOptions {
	/** Offset of the first page (the "Offset" option of Get Responses). */
	startOffset?: number;
	/** Stop after this many responses. */
	maxItems?: number;
	/** Asked before each page after the first; true stops the walk early (poll time budget). */
	shouldStop?: () => boolean;
	/** Told about each page as it arrives (request counts, the service clock). */
	onPage?: (page: FetchedPage) => void;
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
export const REPEAT_WINDOW = 10 * MAX_PAGE_SIZE;

/** The ids of the last responses read, the oldest forgotten first. */
class RecentIds {
	private readonly ids = new Set<string>();
	private readonly order: string[] = [];
	private head = 0;

	constructor(private readonly capacity: number) {}

	/** False if the id was read recently; otherwise remembers it and returns true. */
	addIfNew(id: string): boolean {
		if (this.ids.has(id)) return false;
		this.ids.add(id);
		this.order.push(id);
		if (this.order.length - this.head > this.capacity) {
			this.ids.delete(this.order[this.head++]);
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
	page: Promise<FetchedPage>;
}

/**
 * Walks a form's responses page by page, raising `offset` by what each page held until
 * `hasMore` is false, and yields each response once. Responses can arrive while the walk
 * runs; with a newest-first order they push older ones to later offsets, so a response may be
 * served twice: the walk drops the repeat. It stops with an error instead of looping forever
 * when the server contradicts itself.
 *
 * The next page is requested as soon as the current one has been checked, before the caller
 * turns it into items. When the walk reads everything without a Since filter, it also asks for
 * the page after that, while `total` says it exists, so that the server builds one page while
 * this process reads the previous one. (With Since, the live service's `total` is not known to
 * count only the responses after it, and a page past the end would be a wasted request.) A page
 * asked for ahead is dropped if the server sent a shorter page than asked (it would start at the
 * wrong offset), so no response is skipped; requests stay one per page unless that happens or
 * responses are deleted during the walk.
 */
export async function* iterateResponses(
	this: FormsWtfContext,
	query: ResponsesQuery,
	options: PagingOptions = {},
): AsyncGenerator<FormResponse[], void, undefined> {
	const recent = new RecentIds(REPEAT_WINDOW);
	const readAhead =
		query.since === undefined && options.maxItems === undefined && options.shouldStop === undefined;
	let remaining = options.maxItems ?? Number.POSITIVE_INFINITY;
	let pageStep = MAX_PAGE_SIZE;
	let pagesRead = 0;
	// Pages the walk no longer needs still finish (or fail) after it ends: stop their retries.
	const abandon = new AbortController();
	const inFlight: PendingPage[] = [];
	const request = (offset: number, limit: number): void => {
		const page = getResponsesPage.call(this, { ...query, limit, offset, signal: abandon.signal });
		// A page nobody awaits any more must not fail as an unhandled rejection.
		page.catch(() => undefined);
		inFlight.push({ offset, limit, page });
	};

	try {
		request(options.startOffset ?? 0, Math.min(MAX_PAGE_SIZE, remaining));
		while (inFlight.length) {
			const { offset, limit, page: pending } = inFlight.shift() as PendingPage;
			const page = await pending;
			pagesRead++;
			options.onPage?.(page);

			const fresh: FormResponse[] = [];
			for (const response of page.responses) {
				if (recent.addIfNew(response.id)) fresh.push(response);
			}
			if (fresh.length > remaining) fresh.length = remaining;
			remaining -= fresh.length;
			if (!page.hasMore || remaining <= 0) {
				if (fresh.length) yield fresh;
				return;
			}

			if (page.responses.length === 0) {
				throw errorForPaging(
					this.getNode(),
					`The API said more responses exist but sent an empty page at offset ${offset}.`,
					query,
				);
			}
			if (fresh.length === 0) {
				throw errorForPaging(
					this.getNode(),
					`The page at offset ${offset} repeated responses already read, so the offset is not advancing.`,
					query,
				);
			}
			// Arrivals during the walk can add pages, never an unbounded number of them.
			if (pagesRead > Math.ceil(page.total / MAX_PAGE_SIZE) * 2 + 10) {
				throw errorForPaging(
					this.getNode(),
					`Read ${pagesRead} pages of a form that reports ${page.total} responses.`,
					query,
				);
			}

			const nextOffset = offset + page.responses.length;
			if (page.responses.length < limit) pageStep = page.responses.length;
			if (inFlight.length && inFlight[0].offset !== nextOffset) inFlight.length = 0;
			if (!inFlight.length) {
				if (options.shouldStop?.()) {
					yield fresh;
					return;
				}
				request(nextOffset, Math.min(MAX_PAGE_SIZE, remaining));
			}
			while (readAhead && inFlight.length < PAGES_IN_FLIGHT) {
				const aheadOffset = inFlight[inFlight.length - 1].offset + pageStep;
				if (aheadOffset >= page.total) break;
				request(aheadOffset, MAX_PAGE_SIZE);
			}
			yield fresh;
		}
	} finally {
		abandon.abort();
	}
}
