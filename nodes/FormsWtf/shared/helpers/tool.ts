/**
 * What the action node gives an AI Agent that calls it as a tool ("Forms.wtf Tool" in n8n).
 *
 * A model reads every character of a tool's answer, on this turn and every later one, so a tool
 * call gets a bounded answer: at most TOOL_MAX_RESPONSES responses and about
 * TOOL_MAX_CHARACTERS characters of JSON, whatever Limit or Return All say, with a count and a
 * note that says how to read on when more exist. Outside a tool call nothing here applies: a
 * workflow's Get Many returns what Limit and Return All ask for.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/** The most responses one tool call returns; Return All, or a larger Limit, read as this. */
export const TOOL_MAX_RESPONSES = 100;
/** The most characters of JSON one tool call returns (about 12,000 tokens); at least one response is kept. */
export const TOOL_MAX_CHARACTERS = 50_000;
/** A longer text (an answer, usually) is cut to this many characters in a tool's answer. */
export const TOOL_MAX_TEXT = 2_000;

/**
 * Whether n8n runs the node as a tool of an AI Agent. n8n names the tool variant of a node
 * `<type>Tool` (here `n8n-nodes-formswtf.formsWtfTool`) and runs that node's own `execute`:
 * - n8n 2.x's AI Agent (version 3) hands a tool call back to the workflow engine, which runs the
 *   tool node like any other node, with an ordinary execute context whose `isToolExecution()`
 *   is false; only the node's type tells;
 * - a sub-agent (the AI Agent Tool) and older agents call the node inside the agent, with a
 *   context whose `isToolExecution()` is true (absent before n8n 1.9x).
 */
export function isToolCall(context: IExecuteFunctions): boolean {
	const type = context.getNode().type;
	if (typeof type === 'string' && type.endsWith('Tool')) return true;
	const isToolExecution = (context as { isToolExecution?: () => boolean }).isToolExecution;
	return typeof isToolExecution === 'function' && isToolExecution.call(context) === true;
}

/** The `$fromAI` key the model fills a parameter with, when the parameter is left to the model. */
export function fromAiKey(value: unknown): string | undefined {
	if (typeof value !== 'string' && (typeof value !== 'object' || value === null)) return undefined;
	const text = typeof value === 'string' ? value : JSON.stringify(value);
	return /\$fromAI\s*\(\s*(['"`])([^'"`]*)\1/i.exec(text)?.[2] || undefined;
}

/** Texts longer than TOOL_MAX_TEXT cut, with the length they had; everything else as it is. */
export function shortenTexts<T>(value: T): T {
	return shortenTextsTo(value, TOOL_MAX_TEXT, { cut: false });
}

/**
 * Texts (values and keys) longer than `max` cut, the values with the length they had; `state.cut`
 * says whether anything was. A key cut to a key already there gets " (2)", " (3)", …
 */
function shortenTextsTo<T>(value: T, max: number, state: { cut: boolean }): T {
	if (typeof value === 'string') {
		if (value.length <= max) return value;
		state.cut = true;
		return `${value.slice(0, max)}… [cut: ${value.length} characters in all]` as unknown as T;
	}
	if (Array.isArray(value)) return value.map((entry) => shortenTextsTo(entry, max, state)) as T;
	if (value !== null && typeof value === 'object') {
		// Gathered as entries: a key "__proto__" (JSON.parse makes one an own field) assigned to
		// an object would set its prototype instead.
		const copy = new Map<string, unknown>();
		for (const [key, entry] of Object.entries(value as IDataObject)) {
			let shortKey = key;
			if (key.length > max) {
				state.cut = true;
				const base = `${key.slice(0, max)}…`;
				shortKey = base;
				for (let n = 2; copy.has(shortKey); n++) shortKey = `${base} (${n})`;
			}
			copy.set(shortKey, shortenTextsTo(entry, max, state));
		}
		return Object.fromEntries(copy) as T;
	}
	return value;
}

/** The text lengths tried, longest first, until a response fits its budget. */
const TEXT_LIMITS = [TOOL_MAX_TEXT, 500, 200, 80, 20];

/** Room kept in an answer for its own fields (formId, counts, the note) around the responses. */
const ENVELOPE_CHARACTERS = 1_500;

/**
 * A value whose JSON fits in `budget` characters: texts and keys cut shorter and shorter
 * (TEXT_LIMITS), and, if that is not enough (thousands of fields), the fields and list entries
 * that do not fit left out with a mark that says how many. `cut` says whether anything was.
 */
export function fitForTool<T>(value: T, budget: number): { value: T; cut: boolean } {
	let state = { cut: false };
	let shortened = value;
	for (const limit of TEXT_LIMITS) {
		state = { cut: false };
		shortened = shortenTextsTo(value, limit, state);
		if (jsonLength(shortened) <= budget) return { value: shortened, cut: state.cut };
	}
	return { value: leaveOutWhatDoesNotFit(shortened, budget) as T, cut: true };
}

function jsonLength(value: unknown): number {
	return JSON.stringify(value)?.length ?? 4;
}

/** Room kept for the mark that says how many fields or entries were left out. */
const MARK_CHARACTERS = 48;

function leaveOutWhatDoesNotFit(value: unknown, budget: number): unknown {
	if (jsonLength(value) <= budget) return value;
	if (typeof value === 'string') {
		let kept = value.slice(0, Math.max(0, budget - MARK_CHARACTERS));
		while (kept !== '' && jsonLength(`${kept}… [cut]`) > budget)
			kept = kept.slice(0, kept.length >> 1);
		return `${kept}… [cut]`;
	}
	if (Array.isArray(value)) {
		const kept: unknown[] = [];
		let used = 2 + MARK_CHARACTERS;
		for (const entry of value) {
			const fitted = leaveOutWhatDoesNotFit(entry, budget - used - 1);
			const length = jsonLength(fitted) + 1;
			if (budget - used - 1 < MARK_CHARACTERS || used + length > budget) break;
			kept.push(fitted);
			used += length;
		}
		if (kept.length < value.length) kept.push(`… ${value.length - kept.length} more left out`);
		return kept;
	}
	if (value !== null && typeof value === 'object') {
		const entries = Object.entries(value as IDataObject);
		const kept: Array<[string, unknown]> = [];
		let used = 2 + MARK_CHARACTERS;
		for (const [key, entry] of entries) {
			const keyLength = jsonLength(key) + 2;
			const fitted = leaveOutWhatDoesNotFit(entry, budget - used - keyLength);
			const length = keyLength + jsonLength(fitted);
			if (budget - used - keyLength < MARK_CHARACTERS || used + length > budget) break;
			kept.push([key, fitted]);
			used += length;
		}
		if (kept.length < entries.length)
			kept.push(['…', `${entries.length - kept.length} more fields left out`]);
		return Object.fromEntries(kept);
	}
	return value;
}

export interface ResponsesAsked {
	formId: string;
	itemIndex: number;
	/** The Offset the call started at. */
	startOffset: number;
	/** The Since the call sent, if any. */
	since?: string;
	/** The Limit asked for; undefined with Return All. */
	limit?: number;
}

/**
 * Get Many responses as a tool: reads one response more than it returns, to know whether more
 * exist, and answers with one item:
 * `{ formId, returned, hasMore, nextOffset?, total?, note?, responses: [...] }`.
 */
export class ToolResponses {
	private total: number | undefined;

	private constructor(private readonly context: IExecuteFunctions) {}

	/** The tool's reading of Get Many, or undefined when the node does not run as a tool. */
	static of(context: IExecuteFunctions): ToolResponses | undefined {
		return isToolCall(context) ? new ToolResponses(context) : undefined;
	}

	/** How many responses to read for a Limit (undefined: Return All). */
	maxItems(limit: number | undefined): number {
		return wanted(limit) + 1;
	}

	/** Told about every page: keeps the form's response count as the API reported it. */
	readonly onPage = (page: { total?: number }): void => {
		if (this.total === undefined && typeof page.total === 'number') this.total = page.total;
	};

	answer(items: INodeExecutionData[], asked: ResponsesAsked): INodeExecutionData[] {
		const responses: IDataObject[] = [];
		let size = 0;
		let cut = false;
		let textsCut = false;
		const room = TOOL_MAX_CHARACTERS - ENVELOPE_CHARACTERS;
		for (const item of items.slice(0, wanted(asked.limit))) {
			// The first response is always returned, cut to fit; a later one that does not fit in
			// what is left is left for the next call (it comes first there).
			const shortened = fitForTool(item.json, room);
			const json = shortened.value;
			const length = JSON.stringify(json).length + 1;
			if (responses.length > 0 && size + length > room) {
				cut = true;
				break;
			}
			textsCut ||= shortened.cut;
			responses.push(json);
			size += length;
		}
		const hasMore = items.length > responses.length;
		const answer: IDataObject = { formId: asked.formId, returned: responses.length, hasMore };
		const nextOffset = asked.startOffset + responses.length;
		if (hasMore) answer.nextOffset = nextOffset;
		// With Since, the API's total is the form's count, not the count after Since.
		if (asked.since === undefined && this.total !== undefined) answer.total = this.total;
		const notes: string[] = [];
		if (hasMore)
			notes.push(this.note(responses.length, nextOffset, cut, answer.total as number | undefined));
		if (textsCut) notes.push(CUT_NOTE);
		if (notes.length) answer.note = notes.join(' ');
		answer.responses = responses;
		return [{ json: answer, pairedItem: { item: asked.itemIndex } }];
	}

	/** What the model can do to read on, in the names its tool gives the parameters. */
	private note(
		returned: number,
		nextOffset: number,
		cut: boolean,
		total: number | undefined,
	): string {
		const parameters = this.context.getNode().parameters;
		const options = (parameters.options ?? {}) as IDataObject;
		const offsetKey = fromAiKey(options.offset);
		const sinceKey = fromAiKey(options.since);
		const held = `${returned} returned${total !== undefined ? ` of ${total}` : ''}`;
		const why = cut
			? `the answer is kept under ${TOOL_MAX_CHARACTERS} characters`
			: `a call returns at most ${TOOL_MAX_RESPONSES} responses, or its limit`;
		const ways: string[] = [];
		if (offsetKey) ways.push(`call again with ${offsetKey} ${nextOffset} for the next ones`);
		if (sinceKey) ways.push(`ask for a shorter time span with ${sinceKey}`);
		const next = ways.length ? ` To see more, ${ways.join(', or ')}.` : '';
		return `More responses exist than this answer holds (${held}; ${why}).${next}`;
	}
}

/** What a model is told when texts were cut to keep the answer under its bound. */
const CUT_NOTE = `Long texts (answers, labels) were cut to keep the answer under ${TOOL_MAX_CHARACTERS} characters: each cut text ends in "…", a cut answer with "[cut: N characters in all]". Read the full response outside the tool if the cut part matters.`;

function wanted(limit: number | undefined): number {
	return Math.min(limit ?? TOOL_MAX_RESPONSES, TOOL_MAX_RESPONSES);
}

/**
 * A list (the forms of the account) as a tool's answer: the items that fit in
 * TOOL_MAX_CHARACTERS, then a note item saying how many more there are.
 */
export function boundedForTool(
	items: INodeExecutionData[],
	itemIndex: number,
	what: string,
): INodeExecutionData[] {
	const kept: INodeExecutionData[] = [];
	let size = 0;
	let textsCut = false;
	const room = TOOL_MAX_CHARACTERS - ENVELOPE_CHARACTERS;
	for (const item of items) {
		const fitted = fitForTool(item.json, room);
		const length = JSON.stringify(fitted.value).length + 1;
		if (kept.length > 0 && size + length > room) break;
		textsCut ||= fitted.cut;
		kept.push({ ...item, json: fitted.value });
		size += length;
	}
	const notes: string[] = [];
	if (kept.length < items.length)
		notes.push(
			`${items.length - kept.length} more ${what} are not shown (${kept.length} of ${items.length} returned), to keep the answer under ${TOOL_MAX_CHARACTERS} characters.`,
		);
	if (textsCut) notes.push(CUT_NOTE);
	if (notes.length) kept.push({ json: { note: notes.join(' ') }, pairedItem: { item: itemIndex } });
	return kept;
}

/**
 * An error for the model: n8n's engine hands a failed tool call back to the agent as the error's
 * message only, so in a tool call the message carries its description too (what to pass
 * instead, in which format). Outside a tool call the error is returned as it is.
 */
export function explainedForTool<E extends Error>(context: IExecuteFunctions, error: E): E {
	if (!isToolCall(context)) return error;
	const description = (error as { description?: unknown }).description;
	if (
		typeof description === 'string' &&
		description.trim() !== '' &&
		!error.message.includes(description)
	) {
		error.message = `${error.message}${/[.!?]$/.test(error.message) ? '' : '.'} ${description.trim()}`;
	}
	return error;
}
