/** Shared helpers of the harness's own tests (not a test file itself). */
import { startHarness } from './index';
import type { HarnessFormInfo, HarnessOptions, RunningHarness } from './index';
import type { FormResponse, ResponsesPage } from './types';

export interface ApiResult {
	status: number;
	headers: Headers;
	text: string;
}

/** GET an API path (relative to the base URL) with a key; `null` sends no Authorization header. */
export async function apiGet(
	harness: RunningHarness,
	path: string,
	key: string | null = harness.keys.team,
	headers: Record<string, string> = {},
): Promise<ApiResult> {
	const response = await fetch(`${harness.baseUrl}${path}`, {
		headers: key === null ? headers : { Authorization: `Bearer ${key}`, ...headers },
	});
	return { status: response.status, headers: response.headers, text: await response.text() };
}

export async function apiJson<T>(
	harness: RunningHarness,
	path: string,
	key: string | null = harness.keys.team,
): Promise<T> {
	const result = await apiGet(harness, path, key);
	if (result.status !== 200) throw new Error(`GET ${path}: ${result.status} ${result.text}`);
	return JSON.parse(result.text) as T;
}

/** Reads every page the way the contract says a client should: raise offset by the page length until hasMore is false. */
export async function readAllPages(
	harness: RunningHarness,
	formId: string,
	limit: number,
	extra = '',
): Promise<{ responses: FormResponse[]; totals: number[] }> {
	const responses: FormResponse[] = [];
	const totals: number[] = [];
	for (let offset = 0; ;) {
		const page = await apiJson<ResponsesPage>(
			harness,
			`/forms/${formId}/responses?limit=${limit}&offset=${offset}${extra}`,
		);
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

export interface HarnessContext {
	/** The running harness; set before the first test. */
	h: RunningHarness;
	/** Every form of the harness, as the control API lists them. */
	forms: HarnessFormInfo[];
	/** The form of a fixture (`feedback`, `rsvp`, `foreign`, …). */
	fixture(name: string): HarnessFormInfo;
}

/**
 * Starts a harness for the test file (rate limit off unless given), resets its data after each
 * test when asked, and closes it after the last one.
 */
export function useHarness(
	options: HarnessOptions = {},
	{ resetAfterEach = true } = {},
): HarnessContext {
	const context: HarnessContext = {
		h: undefined as unknown as RunningHarness,
		forms: [],
		fixture(name) {
			const form = context.forms.find((f) => f.fixture === name);
			if (!form) throw new Error(`no fixture ${name}`);
			return form;
		},
	};
	beforeAll(async () => {
		context.h = await startHarness({ port: 0, rateLimit: false, ...options });
		context.forms = await context.h.control.listForms();
	});
	afterAll(() => context.h.close());
	if (resetAfterEach) afterEach(() => context.h.control.reset());
	return context;
}
