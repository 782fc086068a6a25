/**
 * Public types of the forms.wtf harness: the API's resources (as the contract and the
 * service notes describe them), the harness options and the control API's payloads.
 * Kept in one file so the server, the control client and tests share one definition.
 */

/** Any JSON value. Answer values are strings on the live service, but not always. */
export type JsonValue =
	string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type Plan = 'free' | 'pro' | 'team' | 'business';

/** The 21 question types the live service documents. */
export const QUESTION_TYPES = [
	'SHORT_TEXT',
	'LONG_TEXT',
	'MULTIPLE_CHOICE',
	'EMAIL',
	'PHONE',
	'URL',
	'NUMBER',
	'DATE',
	'YES_NO',
	'DROPDOWN',
	'RATING',
	'OPINION_SCALE',
	'NPS',
	'LEGAL',
	'CHECKBOX',
	'STATEMENT',
	'WELCOME_SCREEN',
	'END_SCREEN',
	'WALLET_ADDRESS',
	'ENS_NAME',
	'FILE_UPLOAD',
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

/** Types that only display content and never collect an answer. */
/*
 * The API resources below are type aliases, not interfaces, on purpose: an alias of an
 * object type is assignable to index-signature types such as n8n's IDataObject, so tests can
 * hand harness data straight to node code.
 */

export const DISPLAY_ONLY_TYPES: ReadonlySet<QuestionType> = new Set<QuestionType>([
	'STATEMENT',
	'WELCOME_SCREEN',
	'END_SCREEN',
]);

export type Question = {
	id: string;
	type: QuestionType;
	label: string;
	description?: string;
	required: boolean;
	order: number;
	options?: string[];
};

export type TokenType = 'ERC20' | 'ERC721' | 'ERC1155';

export type GateRule = {
	chain: string;
	contractAddress: string;
	tokenType: TokenType;
	minBalance: number;
	/** Only on some ERC1155 rules; the shape of gate rules is not fixed, clients pass them through. */
	tokenId?: string;
};

export type FormSummary = {
	id: string;
	title: string;
	slug: string;
	published: boolean;
	responseCount: number;
	createdAt: string;
	updatedAt: string;
};

export type FormDetail = {
	id: string;
	title: string;
	/** Only on forms given one through the API (`POST /forms`, `PUT /forms/:id`). */
	description?: string | null;
	slug: string;
	published: boolean;
	questions: Question[];
	gateRules: GateRule[];
};

export type Answer = {
	questionId: string;
	questionLabel: string;
	value: JsonValue;
};

export type FormResponse = {
	id: string;
	walletAddress: string;
	ensName: string | null;
	submittedAt: string;
	durationSeconds: number;
	answers: Answer[];
};

export type ResponsesPage = {
	responses: FormResponse[];
	total: number;
	hasMore: boolean;
};

export type ResponseOrder = 'newestFirst' | 'oldestFirst';

export interface RateLimitSettings {
	/** Requests allowed per key in one window. */
	requests: number;
	/** Length of the fixed window in milliseconds. */
	windowMs: number;
	/**
	 * For a window shrunk to run faster: real milliseconds per service millisecond (windowMs
	 * 3000 with 0.05 stands for the service's 60 s). Retry-After then counts service seconds.
	 * Default 1.
	 */
	timeScale?: number;
}

/** The settings that can be changed while the harness runs (control API `PATCH /__harness/settings`). */
export interface HarnessSettings {
	responseOrder: ResponseOrder;
	sinceInclusive: boolean;
	rateLimit: RateLimitSettings | false;
	retryAfterHeader: boolean;
	clockOffsetMs: number;
	/**
	 * Serve at most this many responses per page, whatever `limit` asks (the contract's `limit`
	 * is a maximum); `false`: serve `limit`.
	 */
	pageSizeCap: number | false;
	/**
	 * How the management endpoints (webhooks, forms, account) wrap what they send, which the
	 * service's pages do not show: `envelope` (`{ "webhooks": [...] }`, `{ "webhook": {...} }`,
	 * a delete answered 200 `{ "success": true }`) or `bare` (the array or object itself, a
	 * delete answered 204 without a body).
	 */
	answerShape: 'envelope' | 'bare';
	/**
	 * Which webhook URLs `POST /forms/:id/webhooks` accepts: `any` http(s) URL (tests run on
	 * 127.0.0.1), or only `https` ones, as the live service asks (400 otherwise).
	 */
	webhookUrls: 'any' | 'https';
}

export interface HarnessOptions extends Partial<HarnessSettings> {
	/** TCP port on 127.0.0.1; 0 (default) picks a free one. */
	port?: number;
	/** Seed of the data generator; the same seed gives the same data byte for byte. Default 1. */
	seed?: number | string;
	/** Adds the form "Airdrop Eligibility Check" with this many responses (0 or absent: no large form). */
	largeFormResponses?: number;
	/** How many request-log entries to keep (oldest dropped first). Default 10000. */
	requestLogLimit?: number;
	/**
	 * Most hex wallets a merkle export will hash (default 20000). Building the tree with
	 * @openzeppelin/merkle-tree costs ~0.1-0.2 ms per wallet, so a million would take minutes.
	 */
	merkleMaxLeaves?: number;
}

export interface HarnessKeys {
	free: string;
	pro: string;
	team: string;
	business: string;
	revoked: string;
}

export type FormOwner = 'demo' | 'other';
export type Workspace = 'personal' | 'team';

/** One row of the control API's form list. */
export interface HarnessFormInfo {
	id: string;
	/** Stable name of the fixture, the same for every seed (e.g. `feedback`, `large`, `foreign`). */
	fixture: string;
	title: string;
	slug: string;
	owner: FormOwner;
	workspace: Workspace;
	published: boolean;
	responseCount: number;
	questionIds: string[];
}

/** Fields a test may set on a submitted response; anything left out is generated. */
export interface ResponseDraft {
	id?: string;
	walletAddress?: string;
	ensName?: string | null;
	/** ISO timestamp; default: the service clock's "now". */
	submittedAt?: string;
	durationSeconds?: number;
	answers?: Answer[];
}

/** Body of `POST /__harness/forms/:id/responses`: explicit drafts, or `count` generated ones. */
export type SubmitRequest =
	{ responses: ResponseDraft[] } | { count: number; submittedAt?: string };

/** Body of `PATCH /__harness/forms/:id/responses/:responseId`. Default: newer submittedAt, new answers. */
export interface ResponseUpdate {
	walletAddress?: string;
	ensName?: string | null;
	submittedAt?: string;
	durationSeconds?: number;
	answers?: Answer[];
}

/** 429 and 5xx as a proxy sends them; 400/403/404/405 as a service that refuses a call. */
export type FaultStatus = 400 | 403 | 404 | 405 | 429 | 500 | 502 | 503;

export type FaultKind =
	/**
	 * Answer with this status and a JSON `{ error }` body; Retry-After only when retryAfterSeconds
	 * (whole seconds) or retryAfterDateOffsetMs (an HTTP date this far from the service clock,
	 * negative for a date already past) is set.
	 */
	| {
			kind: 'status';
			status: FaultStatus;
			retryAfterSeconds?: number;
			retryAfterDateOffsetMs?: number;
			message?: string;
	  }
	/** Wait this long, then handle the request normally. */
	| { kind: 'delay'; ms: number }
	/** 200 with a JSON content type and a truncated JSON body. */
	| { kind: 'malformedJson' }
	/** Destroy the socket without sending anything. */
	| { kind: 'drop' }
	// --- Listing faults (the trigger's All Forms tests): see listingFaults.ts ---
	/** The list of forms as usual, without these forms (other requests: handled normally). */
	| { kind: 'listingWithout'; formIds: string[] }
	/** 200 with this JSON body instead of the answer, e.g. a listing that is not `{ forms: [...] }`. */
	| { kind: 'jsonBody'; body: unknown };

export type FaultSpec = FaultKind & {
	/** How many matching requests get the fault. Default 1. */
	times?: number;
	/** Only requests whose target (path and query, as sent) contains this string. */
	pathIncludes?: string;
};

export type PendingFault = FaultKind & { id: number; remaining: number; pathIncludes?: string };

export interface RequestLogEntry {
	method: string;
	/** Path as sent, without the query string. */
	path: string;
	query: Record<string, string | string[]>;
	/** Plan of the key that authenticated the request; null when there was no valid key. */
	plan: Plan | null;
	/** Status sent; null when the connection was dropped by a fault. */
	status: number | null;
	/** Service-clock time the request arrived, ISO 8601. */
	timestamp: string;
	/** Set when an injected fault decided the outcome (or delayed it). */
	fault?: FaultKind['kind'];
}

export interface HarnessInfo {
	baseUrl: string;
	controlUrl: string;
	keys: HarnessKeys;
	seed: number;
	settings: HarnessSettings;
}

/* Ordering and stream hooks (hooks.ts): when and how much of a real answer is sent. */
export type HookKind =
	/**
	 * Keep the request unanswered until the next API request after it has been answered; then
	 * insert `insertBeforeAnswer` generated responses into its form (if set) and answer it.
	 */
	| { kind: 'hold'; insertBeforeAnswer?: number }
	/** Answer normally, then insert `count` generated responses into the request's form. */
	| { kind: 'insertAfter'; count: number }
	/** Send the headers and the first `afterBytes` bytes of the body, then nothing more. */
	| { kind: 'stall'; afterBytes: number }
	/** Accept the request and never answer. */
	| { kind: 'hang' };

export type HookSpec = HookKind & {
	/** How many matching requests get the hook. Default 1. */
	times?: number;
	/** Only requests whose target (path and query, as sent) contains this string. */
	pathIncludes?: string;
};

export type PendingHook = HookKind & { id: number; remaining: number; pathIncludes?: string };
