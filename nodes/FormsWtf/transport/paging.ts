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
 * Walks a form's responses page by page, raising `offset` by what each page held until
 * `hasMore` is false, and yields each response once. Responses can arrive while the walk
 * runs; with a newest-first order they push older ones to later offsets, so a response may be
 * served twice: the walk drops the repeat. It stops with an error instead of looping forever
 * when the server contradicts itself.
 */
export async function* iterateResponses(
	this: FormsWtfContext,
	query: ResponsesQuery,
	options: PagingOptions = {},
): AsyncGenerator<FormResponse[], void, undefined> {
	const seenIds = new Set<string>();
	let offset = options.startOffset ?? 0;
	let remaining = options.maxItems ?? Number.POSITIVE_INFINITY;
	let pagesRead = 0;
	while (remaining > 0) {
		if (pagesRead > 0 && options.shouldStop?.()) return;
		const limit = Math.min(MAX_PAGE_SIZE, remaining);
		const page = await getResponsesPage.call(this, { ...query, limit, offset });
		pagesRead++;
		options.onPage?.(page);

		const fresh: FormResponse[] = [];
		for (const response of page.responses) {
			if (seenIds.has(response.id)) continue;
			seenIds.add(response.id);
			fresh.push(response);
		}
		if (fresh.length > remaining) fresh.length = remaining;
		remaining -= fresh.length;
		if (fresh.length) yield fresh;

		if (!page.hasMore) return;
		if (page.responses.length === 0) {
			throw errorForPaging(
				this.getNode(),
				`The API said more responses exist but sent an empty page at offset ${offset}.`,
				query,
			);
		}
		if (fresh.length === 0 && remaining > 0) {
			throw errorForPaging(
				this.getNode(),
				`The page at offset ${offset} repeated responses already read, so the offset is not advancing.`,
				query,
			);
		}
		offset += page.responses.length;
		// Arrivals during the walk can add pages, never an unbounded number of them.
		if (pagesRead > Math.ceil(page.total / MAX_PAGE_SIZE) * 2 + 10) {
			throw errorForPaging(
				this.getNode(),
				`Read ${pagesRead} pages of a form that reports ${page.total} responses.`,
				query,
			);
		}
	}
}
