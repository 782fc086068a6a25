/** Shared helpers of the harness's own tests (not a test file itself). */
import type { RunningHarness } from './index';
import type { FormResponse, ResponsesPage } from './types';

export interface ApiResult {
	status: number;
	headers: Headers;
	text: string;
}

/** GET an API path (relative to the base URL) with a key; `null` sends no Authorization header. */
export async function apiGet(harness: RunningHarness, path: string, key: string | null = harness.keys.team, headers: Record<string, string> = {}): Promise<ApiResult> {
	const response = await fetch(`${harness.baseUrl}${path}`, {
		headers: key === null ? headers : { Authorization: `Bearer ${key}`, ...headers },
	});
	return { status: response.status, headers: response.headers, text: await response.text() };
}

export async function apiJson<T>(harness: RunningHarness, path: string, key: string | null = harness.keys.team): Promise<T> {
	const result = await apiGet(harness, path, key);
	if (result.status !== 200) throw new Error(`GET ${path}: ${result.status} ${result.text}`);
	return JSON.parse(result.text) as T;
}

/** Reads every page the way the contract says a client should: raise offset by the page length until hasMore is false. */
export async function readAllPages(harness: RunningHarness, formId: string, limit: number, extra = ''): Promise<{ responses: FormResponse[]; totals: number[] }> {
	const responses: FormResponse[] = [];
	const totals: number[] = [];
	for (let offset = 0; ; ) {
		const page = await apiJson<ResponsesPage>(harness, `/forms/${formId}/responses?limit=${limit}&offset=${offset}${extra}`);
		responses.push(...page.responses);
		totals.push(page.total);
		offset += page.responses.length;
		if (!page.hasMore) break;
		if (page.responses.length === 0) throw new Error('hasMore with an empty page');
	}
	return { responses, totals };
}

/** The order the harness documents: submittedAt, then id; newest first is the exact reverse. */
export function compareOldestFirst(a: FormResponse, b: FormResponse): number {
	if (a.submittedAt !== b.submittedAt) return a.submittedAt < b.submittedAt ? -1 : 1;
	return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
