/**
 * The trigger's poll: reads the state n8n stored, lists the watched forms, starts what is new (an
 * activation, a form added to the selection), reads each form due, and writes the next state back
 * only when this poll is still the current one.
 */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { TransportSettings } from '../shared/transport';
import { FormsWtfClient } from '../shared/transport';
import { DEFAULT_RETRY_POLICY } from '../shared/transport/retry';
import { asNodeError, isTransientError } from '../shared/transport/errors';
import { statusOf } from '../shared/transport/webhooks';
import { formsToRead, keepUnlistedForms, listedAs, toItem } from './forms';
import type { WatchedForm } from './listing';
import { listWatchedForms } from './listing';
import { addChosen, leaveChoice, readNewest, settleChoice } from './newest';
import type { Version } from './read';
import {
	compareVersions,
	endsPollReading,
	isReadFailure,
	MAX_PAGES_PER_POLL,
	NOT_IN_ONE_POLL,
	NOT_WHOLE,
	PollBudget,
	readForm,
} from './read';
import { errorForStuckForm, isErrorDue, POLLS_BEFORE_ERROR, warn } from './report';
import type { TriggerSettings } from './settings';
import { readSettings, scopeOf } from './settings';
import type { FormCursor, NewestChoice, StoredState, TriggerState } from './state';
import {
	cursorFrom,
	isStartFloor,
	readState,
	STATE_VERSION,
	unlessAlreadyPolling,
	writeState,
} from './state';
import { sampleNewest } from './testEvent';

/** Share of n8n's poll budget spent reading, leaving room to hand the items over. */
const BUDGET_SHARE = 0.8;

/** n8n's poll budget when it does not say (before 2.41): 5 minutes. */
const DEFAULT_POLL_BUDGET_MS = 5 * 60_000;

/** Why a form in a run of polls without progress, not reached on a poll with time left, made none. */
const NOT_REACHED = new Error(
	"the forms read before it took this poll's pages or items, after polls in which it made no progress",
);

/**
 * How a poll without progress went for a form: its read failed (at its first page or a later
 * one), its pages were served but proved nothing, or it was not asked (the others' failures
 * stopped the poll, or it waited its turn).
 */
type NoProgress = 'failed' | 'served' | 'waited';

export async function pollResponses(
	context: IPollFunctions,
	transport: TransportSettings = {},
): Promise<INodeExecutionData[][] | null> {
	const settings = readSettings(context);
	// A client for each poll: an edited key or base URL is used from the next poll on.
	if (context.getMode() === 'manual')
		return await sampleNewest(context, settings, new FormsWtfClient(context, transport));
	const client = new FormsWtfClient(context, pollTransport(settings, transport));
	const node = context.getNode();
	const key = `${context.getWorkflow().id ?? ''}:${node.id ?? node.name}`;
	const budgetMs = pollBudgetMs(context) ?? DEFAULT_POLL_BUDGET_MS;
	const result = await unlessAlreadyPolling(key, 2 * budgetMs, async (stillCurrent) => {
		const staticData = context.getWorkflowStaticData('node');
		const stored = readState(staticData, scopeOf(settings));
		for (const warning of stored.warnings) warn(context, warning);
		const startedAtMs = Date.now();
		const budget = new PollBudget(client, startedAtMs + budgetMs * BUDGET_SHARE);
		let forms: WatchedForm[];
		try {
			forms = await listWatchedForms(settings, client, budget.deadline);
		} catch (error) {
			// The list of forms fails the whole poll: counted, and an error on the 5th.
			const { state } = stored;
			if (!state || !isTransientError(error)) throw asNodeError(node, error);
			const failures = (state.failures ?? 0) + 1;
			if (!stillCurrent()) return null;
			writeState(staticData, { ...state, failures });
			if (failures >= POLLS_BEFORE_ERROR) throw asNodeError(node, error);
			const why = (error as Error).message;
			warn(context, `the list of forms could not be read (${failures} polls in a row): ${why}`);
			return null;
		}
		const poll = new Poll(context, settings, budget, forms, startedAtMs);
		const next = await poll.run(stored);
		if (!stillCurrent()) return null;
		writeState(staticData, next);
		poll.report();
		return poll.items();
	});
	return result ?? null;
}

/** One poll over the listed forms. */
class Poll {
	private next!: TriggerState;
	private activating = false;
	/** Forms whose read this poll learns what exists, by the second they start at. */
	private readonly learning = new Map<string, number>();
	private readonly found = new Map<string, { version: Version; form: WatchedForm }>();
	private readonly errors: Error[] = [];
	private formsRead = 0;
	/** Failed reads that kept their turn: at most half the poll's pages go to them next poll. */
	private keptForFailure = 0;
	private nowMs?: number;

	constructor(
		private readonly context: IPollFunctions,
		private readonly settings: TriggerSettings,
		private readonly budget: PollBudget,
		private readonly forms: WatchedForm[],
		/** The n8n host's clock as the poll began: the moment when the service gives no Date. */
		private readonly startedAtMs: number,
	) {}

	async run(stored: StoredState): Promise<TriggerState> {
		if (!stored.state) await this.activate();
		else {
			this.next = { ...stored.state, rev: stored.state.rev + 1, failures: undefined };
			await this.follow(stored.reset);
		}
		await this.readForms();
		const chosenFrom = this.next.choice?.done;
		settleChoice(this.next, this.settings.lookBackMs);
		// The choice is over: its forms are read from the floor now, chosen and new alike.
		if (chosenFrom && !this.next.choice) await this.readForms(new Set(chosenFrom));
		return this.next;
	}

	/** The first poll: the service's clock is the moment of activation, and each form starts there. */
	private async activate(): Promise<void> {
		this.activating = true;
		const atMs = await this.clock();
		const { onActivation } = this.settings;
		const scope = scopeOf(this.settings);
		this.next = { version: STATE_VERSION, scope, rev: 0, activatedAtMs: atMs, forms: {} };
		if (onActivation.emit === 'since') this.next.emitSinceMs = onActivation.sinceMs;
		const firstMs = this.next.emitSinceMs ?? atMs;
		for (const form of this.forms) this.start(form, firstMs, atMs, onActivation.emit === 'newOnly');
		if (onActivation.emit !== 'newest') return;
		// Every form, an empty one too: a response submitted as the list was read may be among them.
		const ids = this.forms.map((form) => form.id);
		this.next.choice = { count: onActivation.count, pending: ids, done: [], chosen: [] };
	}

	/**
	 * A form's cursor that emits from `firstMs` on, `atMs` the moment it starts at; a learning one
	 * counts what its first read sees of that second as existing.
	 */
	private start(form: WatchedForm, firstMs: number, atMs: number, learns: boolean): void {
		const cursor = cursorFrom(firstMs, atMs, this.settings.lookBackMs);
		this.next.forms[form.id] = cursor;
		if (!learns) return;
		// Nothing to read: the next list of forms shows any response added.
		if (form.responseCount === 0 && this.settings.watch !== 'form') {
			cursor.listed = listedAs(form);
			cursor.readAtRev = this.next.rev;
		} else this.learning.set(form.id, atMs);
	}

	/** Later polls: forms that left the list or the selection let go, forms added or reset start now. */
	private async follow(reset: string[]): Promise<void> {
		const { choice, forms } = this.next;
		const listed = new Set(this.forms.map((form) => form.id));
		this.next.forms = { ...forms };
		if (this.settings.watch === 'allForms')
			keepUnlistedForms(this.next, listed, this.serviceNowMs());
		else
			for (const formId of Object.keys(forms))
				if (!listed.has(formId)) delete this.next.forms[formId];
		if (choice) {
			this.next.choice = { ...choice, pending: [...choice.pending], done: [...choice.done] };
			for (const formId of [...choice.pending, ...choice.done])
				if (!listed.has(formId)) leaveChoice(this.next.choice, formId);
		}
		// A form added to the selection, or reset, starts now: what exists then is existing. A date
		// to emit from that is still ahead holds back its responses until then, as the others'.
		for (const form of this.forms) {
			const added = this.settings.watch === 'selectedForms' && !this.next.forms[form.id];
			if (!added && !reset.includes(form.id)) continue;
			const nowMs = await this.clock();
			const dateAhead = (this.next.emitSinceMs ?? nowMs) > nowMs;
			if (dateAhead) this.start(form, this.next.emitSinceMs as number, nowMs, false);
			else this.start(form, nowMs, nowMs, true);
		}
	}

	private async readForms(only?: Set<string>): Promise<void> {
		const notReached: WatchedForm[] = [];
		const due = formsToRead(this.next, this.forms, this.settings).filter(
			(form) => !only || only.has(form.id),
		);
		const cutByShare: WatchedForm[] = [];
		for (const [index, form] of due.entries()) {
			if (!this.mayReadMore(due.length - index)) notReached.push(form);
			else if (this.next.choice?.pending.includes(form.id)) await this.choose(form);
			else if (await this.read(form)) cutByShare.push(form);
		}
		// What the forms read later left of the items goes to those their share cut, in turn.
		for (const [index, form] of cutByShare.entries())
			if (this.mayReadMore(cutByShare.length - index)) await this.read(form);
		// A form not reached keeps its turn. It is counted when it is in a run of polls without
		// progress, or when what stopped the reading holds back every form (a rate limit, or a wait
		// the poll has no time for); then not one whose newest are still to be chosen, which must
		// not leave the choice for a rate limit.
		const { stoppedBy } = this.budget;
		const cutBy = this.budget.cutBy();
		const cause = stoppedBy ?? (cutBy === NOT_IN_ONE_POLL ? NOT_REACHED : cutBy);
		for (const form of notReached) {
			const cursor = this.cursorOf(form.id);
			const choosing = this.next.choice?.pending.includes(form.id) === true;
			if (cursor.failedPolls || (stoppedBy !== undefined && !choosing))
				this.noProgress(form, cursor, cause, 'waited');
		}
	}

	/** Whether the next of `formsLeft` forms is read: the poll has pages, time and its share of the items. */
	private mayReadMore(formsLeft: number): boolean {
		this.budget.shareItems(formsLeft);
		return this.budget.mayRead();
	}

	/** Reads a form; true when its share of the items cut the read. */
	private async read(form: WatchedForm): Promise<boolean> {
		const firstRead = this.formsRead++ === 0;
		const learnFromMs = this.learning.get(form.id);
		const floor = learnFromMs === undefined ? undefined : { atMs: learnFromMs + 1000, id: '' };
		const { watch } = this.settings;
		const options = { ...this.settings, floor };
		const before = this.cursorOf(form.id);
		const pagesBefore = this.budget.pages;
		const read = await readForm(this.budget, form.id, before, options);
		// One Form: what the user must fix (and any failure of the activation) is the poll's error.
		const failed = isReadFailure(read.failure);
		if (watch === 'form' && failed && !read.moved)
			if (this.activating || !isTransientError(read.failure))
				throw asNodeError(this.context.getNode(), read.failure);
		for (const version of read.found) this.found.set(`${form.id}/${version.id}`, { version, form });
		const cursor = read.cursor;
		// Read whole, what existed is known one by one (a response that shows up later with an
		// earlier timestamp was not there): the floor of the moment the form started at goes. A date
		// to emit from stays the floor.
		const { emitSinceMs } = this.next;
		const startFloor = isStartFloor(cursor.floor, this.next, this.serviceNowMs());
		if (read.whole && (learnFromMs !== undefined || startFloor)) {
			if (emitSinceMs === undefined) delete cursor.floor;
			else cursor.floor = { atMs: emitSinceMs, id: '' };
		}
		// Turns and counts (docs/design.md, "One way to fail"). Cut behind other forms' reads: not
		// counted, keeps its turn. A first read cut by its share of the items: not counted, takes its
		// turn (a backlog must not hold the others back). Cut by the poll's pages: counted, keeps its
		// turn until the poll that would name its form, then every other poll (`keptTurn`), so that
		// a window that fits in a poll is walked. A passing failure at its first request: keeps its
		// turn on the first 4 polls of the run (keepsTurnFor).
		const cut = !read.whole && read.failure === undefined;
		const sharedPoll = cut && (!firstRead || this.budget.cutByItems());
		const cutByPages = cut && !sharedPoll && this.budget.cutBy() === NOT_IN_ONE_POLL;
		const beforeNamed = namingCount(before, 'served') < POLLS_BEFORE_ERROR;
		const keptForPages = cutByPages && (beforeNamed || !before.keptTurn);
		const failedForNow = !read.moved && this.keepsTurnFor(read.failure, before, pagesBefore);
		const keepsTurn = (cut && !firstRead) || keptForPages || failedForNow;
		if (watch !== 'form') {
			if (!keepsTurn) cursor.readAtRev = this.next.rev;
			cursor.listed = read.whole ? listedAs(form) : undefined;
			if (keptForPages) cursor.keptTurn = true;
			else if (!sharedPoll) delete cursor.keptTurn;
		}
		// A read that had the poll to itself and could not prove its window (or one millisecond of
		// it) made no progress: a form whose window holds more than a poll reads is named.
		const failure = read.failure ?? this.budget.cutBy();
		// A read that failed after pages of it were served proved nothing: it failed too.
		const how = failed ? 'failed' : 'served';
		if (read.moved) this.next.forms[form.id] = progressed(cursor);
		else if (sharedPoll) this.next.forms[form.id] = servedUncounted(cursor);
		else this.noProgress(form, cursor, failure, how);
		return cut && this.budget.cutByItems();
	}

	/** Reads a form's newest existing responses for the choice; one that keeps failing leaves it. */
	private async choose(form: WatchedForm): Promise<void> {
		this.formsRead++;
		const choice = this.next.choice as NewestChoice;
		const cursor = this.cursorOf(form.id);
		const { activatedAtMs } = this.next;
		// Back to the look-back window's start: an update of one of those is known as one.
		const windowFromMs = activatedAtMs - this.settings.lookBackMs;
		let failure: unknown;
		const pagesBefore = this.budget.pages;
		const reading = readNewest(this.budget, form.id, choice.count, activatedAtMs, windowFromMs);
		const chosen = await reading.catch((error: unknown) => void (failure = error ?? NOT_WHOLE));
		if (chosen) {
			addChosen(choice, form.id, chosen);
			const inWindow = chosen.filter((version) => version.atMs >= windowFromMs);
			const seen = Object.fromEntries(inWindow.map(({ id, atMs }) => [id, atMs]));
			this.next.forms[form.id] = { ...progressed(cursor), seen: { ...cursor.seen, ...seen } };
			return;
		}
		if (this.settings.watch === 'form' && this.activating && isReadFailure(failure))
			throw asNodeError(this.context.getNode(), failure);
		const how = isReadFailure(failure) ? 'failed' : 'served';
		// A failed read had its turn, as in read(): the forms behind it are asked next.
		const failedForNow = this.keepsTurnFor(failure, cursor, pagesBefore);
		const hadTurn = how === 'failed' && !failedForNow && this.settings.watch !== 'form';
		const turned = hadTurn ? { ...cursor, readAtRev: this.next.rev } : cursor;
		this.noProgress(form, turned, failure ?? this.budget.cutBy(), how);
		const status = statusOf(failure);
		if (status === 403 || status === 404) leaveChoice(choice, form.id);
	}

	/**
	 * A poll in which the form made no progress: counted, a warning, and an error when 5 polls of
	 * the run have passed since the last (or its start), unless its pages were served on fewer
	 * than 5 polls since its last failed read (or the run's start): it is being read. A form whose
	 * newest are still to be chosen leaves the choice when a read of it makes no progress from the
	 * 5th poll of its run on, and is named then unless it was named in the run.
	 */
	private noProgress(form: WatchedForm, cursor: FormCursor, cause: unknown, how: NoProgress): void {
		const run = counted(cursor, how);
		const polls = run.failedPolls;
		const error = errorForStuckForm(this.context, this.settings, form, cause, polls);
		const others = this.settings.watch === 'form' ? '' : 'The other forms go on; ';
		warn(
			this.context,
			`${error.message} (${polls} polls in a row). ${others}it is read again on the next poll.`,
		);
		const { choice } = this.next;
		const pending = choice?.pending.includes(form.id) === true;
		const leaves = pending && how !== 'waited' && polls >= POLLS_BEFORE_ERROR;
		if (leaves) leaveChoice(choice, form.id);
		const readFine = (run.servedPolls ?? POLLS_BEFORE_ERROR) < POLLS_BEFORE_ERROR;
		const sinceNamed = polls - (cursor.namedAt ?? 0);
		const unnamed = leaves && cursor.namedAt === undefined;
		const due = unnamed || (!readFine && isErrorDue(polls, sinceNamed, form, cause));
		if (due) this.errors.push(error);
		const next: FormCursor = { ...cursor, ...run };
		if (run.servedPolls === undefined) delete next.servedPolls;
		if (due) next.namedAt = polls;
		this.next.forms[form.id] = next;
	}

	/**
	 * Whether a failed read that began at `pagesBefore` keeps its form's turn: it failed at its
	 * first request (isFailedForNow), and those that do fit in half a poll's pages: forms that fail
	 * at once must not take every page of the next poll.
	 */
	private keepsTurnFor(failure: unknown, before: FormCursor, pagesBefore: number): boolean {
		const oneRequest = this.budget.pages === pagesBefore + 1;
		const halfThePages = this.keptForFailure >= MAX_PAGES_PER_POLL / 2;
		if (!oneRequest || halfThePages || !isFailedForNow(failure, before)) return false;
		this.keptForFailure++;
		return true;
	}

	/** A form's cursor; a form listed after activation has no existing responses. */
	private cursorOf(formId: string): FormCursor {
		const { activatedAtMs, emitSinceMs, forms } = this.next;
		return (
			forms[formId] ??
			cursorFrom(emitSinceMs ?? activatedAtMs, activatedAtMs, this.settings.lookBackMs)
		);
	}

	/** The service's clock, a whole second (its Date header; the n8n host's when it sends none). */
	private async clock(): Promise<number> {
		const { client } = this.budget;
		if (this.nowMs === undefined) {
			// One Form has no list of forms to date the moment: one small read of its form does.
			if (client.firstAnswerAtMs === undefined && this.settings.watch === 'form')
				await this.budget.page(this.forms[0].id, 0, undefined, 1);
			this.nowMs = this.serviceNowMs();
		}
		return Math.floor(this.nowMs / 1000) * 1000;
	}

	/** The poll's first answer's Date, though it was a 429 waited out (the host's clock without one). */
	private serviceNowMs(): number {
		return this.budget.client.firstAnswerAtMs ?? this.startedAtMs;
	}

	/**
	 * Several forms: a form that keeps failing is reported through n8n's __emitError (see
	 * docs/design.md), so that the poll still emits the other forms' responses. One Form: the
	 * poll's error, unless the poll found responses: they are emitted, and the error reported so.
	 */
	report(): void {
		const { errors, found } = this;
		if (this.settings.watch === 'form' && errors.length && !found.size) throw errors[0];
		for (const error of errors)
			if (typeof this.context.__emitError === 'function') this.context.__emitError(error);
			else warn(this.context, error.message);
	}

	items(): INodeExecutionData[][] | null {
		const found = [...this.found.values()].sort((a, b) => compareVersions(a.version, b.version));
		return found.length
			? [found.map(({ version, form }) => toItem(version, form, this.settings))]
			: null;
	}
}

function progressed(cursor: FormCursor): FormCursor {
	const rest = { ...cursor };
	delete rest.failedPolls;
	delete rest.servedPolls;
	delete rest.namedAt;
	delete rest.keptTurn;
	return rest;
}

/**
 * A form's counts after one more poll without progress. A wait is not a poll its reads were
 * served on: a form held back by the others' failures, never asked, is not taken for failing.
 */
function counted(
	cursor: FormCursor,
	how: NoProgress,
): { failedPolls: number; servedPolls?: number } {
	const failedPolls = (cursor.failedPolls ?? 0) + 1;
	const failing = isFailing(cursor);
	if (how === 'failed' || (how === 'waited' && failing)) return { failedPolls };
	const servedBefore = failing ? 0 : (cursor.servedPolls ?? 0);
	return { failedPolls, servedPolls: servedBefore + (how === 'served' ? 1 : 0) };
}

/** After one more poll without progress, the count whose 5th first names the form in its run. */
function namingCount(cursor: FormCursor, how: NoProgress): number {
	const { failedPolls, servedPolls } = counted(cursor, how);
	return servedPolls ?? failedPolls;
}

/**
 * Whether a read's failure keeps its form's turn: one that failed for a moment (a 503, a network
 * error), until its form is named, so that it is asked first on the next poll. Not one that
 * ended the poll's reading (a rate limit): the forms behind it are asked next.
 */
function isFailedForNow(failure: unknown, before: FormCursor): boolean {
	return (
		isTransientError(failure) &&
		!endsPollReading(failure) &&
		namingCount(before, 'failed') < POLLS_BEFORE_ERROR
	);
}

/** Whether a form's last reads in its run of polls without progress failed. */
function isFailing(cursor: FormCursor): boolean {
	return (cursor.failedPolls ?? 0) > 0 && cursor.servedPolls === undefined;
}

/** A read the poll's other reads cut, not counted: a page served ends a run of failed reads. */
function servedUncounted(cursor: FormCursor): FormCursor {
	return isFailing(cursor) ? { ...cursor, servedPolls: 0 } : cursor;
}

/**
 * A poll of several forms does not retry a 5xx answer or a dropped connection: retries would
 * spend its time and requests on a struggling service, holding back the forms read after the
 * failing one, which is asked again on the next poll. One Form retries: its poll has nothing
 * else to do, and its activation fails on a failed read.
 */
function pollTransport(settings: TriggerSettings, transport: TransportSettings): TransportSettings {
	if (settings.watch === 'form') return transport;
	const policy = transport.retryPolicy ?? DEFAULT_RETRY_POLICY;
	return { ...transport, retryPolicy: { ...policy, maxServerErrorRetries: 0 } };
}

function pollBudgetMs(context: IPollFunctions): number | undefined {
	// getPollBudgetMs is new in n8n 2.41; older n8n gives no budget.
	const budget =
		typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : undefined;
	return typeof budget === 'number' && Number.isFinite(budget) && budget > 0 ? budget : undefined;
}
