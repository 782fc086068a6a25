/**
 * The trigger's poll: reads the stored state n8n hands over, reads the forms, and writes the new
 * state back only when this poll is still the current one. The parts live beside this file:
 * settings, listing, activation, newResponses (later polls), formsToRead, existing, testEvent,
 * allowance, and state (the stored state and its lifecycle) with cursor.
 */
import type { INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import type { TransportSettings } from '../shared/transport';
import { FormsWtfClient } from '../shared/transport';
import { asNodeError, isTransientError } from '../shared/transport/errors';
import { without } from './cursor';
import type { TriggerState } from './state';
import { readState, startedAt, unlessAlreadyPolling, writeState } from './state';
import { activate, followSelection, serviceClock } from './activation';
import { PollAllowance } from './allowance';
import { listWatchedForms } from './listing';
import { warn } from './log';
import { errorForStuckForm, pollOnce } from './newResponses';
import { readSettings, scopeOf } from './settings';
import { sampleNewest } from './testEvent';

/** Share of n8n's poll budget we spend reading, leaving room to hand the items over. */
const BUDGET_SHARE = 0.8;

/** n8n's poll budget when it does not say (before 2.41): 5 minutes. */
const DEFAULT_POLL_BUDGET_MS = 5 * 60_000;

/**
 * Polls in a row that fail with a passing failure before the user is told: the last of them
 * throws, as a form of several is reported on its 5th poll without progress.
 */
const FAILURES_REPORTED = 5;

export async function pollResponses(
	context: IPollFunctions,
	transport: TransportSettings = {},
): Promise<INodeExecutionData[][] | null> {
	const settings = readSettings(context);
	// A client of its own for each poll: n8n keeps one poll context for every poll of an
	// activation, and each poll reads the credential again, so an edited key or base URL is
	// used from the next poll on.
	const client = new FormsWtfClient(context, transport);
	if (context.getMode() === 'manual') return await sampleNewest(context, settings, client);

	const triggerKey = `${context.getWorkflow().id ?? ''}:${context.getNode().id ?? context.getNode().name}`;
	const scope = scopeOf(settings);
	const budgetMs = pollBudgetMs(context) ?? DEFAULT_POLL_BUDGET_MS;
	const result = await unlessAlreadyPolling(triggerKey, 2 * budgetMs, async (stillCurrent) => {
		const staticData = context.getWorkflowStaticData('node');
		const { state, restartAtNow, repairs } = readState(staticData, scope, settings.lookBackMs);
		if (repairs.length) warn(context, `the stored state was repaired: ${repairs.join('; ')}`);
		const allowance = new PollAllowance(client, Date.now() + budgetMs * BUDGET_SHARE);
		/** Writes the state, unless this poll ran so long that another poll took over. */
		const commit = (next: TriggerState): boolean => {
			if (!stillCurrent()) return false;
			writeState(staticData, next);
			return true;
		};
		try {
			const listing = await listWatchedForms(settings, client, allowance);
			let learning = new Set<string>();
			let outcome: Awaited<ReturnType<typeof pollOnce>>;
			if (!state) outcome = await activate(context, settings, scope, listing, allowance);
			else {
				if (settings.watch === 'selectedForms')
					learning = followSelection(settings, state, listing, restartAtNow);
				if (restartAtNow.length) {
					const nowMs = listing.serviceNowMs ?? (await serviceClock(restartAtNow, allowance));
					// The Date header has whole seconds: the end of that second is after every response
					// that existed when the service answered, so none is emitted again.
					for (const formId of restartAtNow)
						state.forms[formId] = startedAt(nowMs + 999, settings.lookBackMs);
				}
				outcome = await pollOnce(context, settings, state, listing, allowance, learning);
			}
			const { items, next, failingForms } = outcome;
			delete next.failures;
			for (const { formId } of failingForms) {
				const cursor = next.forms[formId];
				next.forms[formId] = { ...cursor, failureReportedAt: cursor.failedPolls };
			}
			if (!commit(next)) return null;
			for (const { error } of failingForms) reportFailingForm(context, error);
			return items.length ? [items] : null;
		} catch (error) {
			if (!state || !isTransientError(error)) throw asNodeError(context.getNode(), error);
			// The cursors stay as n8n stored them: the next poll reads the same window again. One
			// Form: the polls before that could not move it (see pollOnce) count too, as one count.
			const kept: TriggerState = { ...state, forms: { ...state.forms } };
			const cursor = settings.watch === 'form' ? kept.forms[settings.formId ?? ''] : undefined;
			// A run of polls whose reads kept losing their place is of another kind: it ends here.
			const sameRun = cursor?.failedFor === undefined;
			const failures = (state.failures ?? 0) + (sameRun ? (cursor?.failedPolls ?? 0) : 0) + 1;
			if (cursor?.failedPolls !== undefined) {
				const ended = without(cursor, 'failedPolls', 'failedFor');
				if (!sameRun) delete ended.failureReportedAt;
				kept.forms[settings.formId as string] = ended;
			}
			if (!commit({ ...kept, failures })) return null;
			// One Form: the only form is what failed; the error names it, as for a form of several.
			if (failures >= FAILURES_REPORTED)
				throw asNodeError(
					context.getNode(),
					settings.watch === 'form'
						? errorForStuckForm(
								context,
								settings,
								{ id: settings.formId as string },
								error,
								failures,
							)
						: error,
				);
			warn(
				context,
				`poll failed (${failures} in a row), will retry on the next poll: ${(error as Error).message}`,
			);
			return null;
		}
	});
	return result ?? null;
}

/**
 * A form that keeps failing is reported as an error of the workflow (an error execution, and
 * the error workflow if one is set), through n8n's __emitError rather than thrown: the poll
 * still emits the other forms' responses, and on n8n's activation poll a thrown error would
 * fail the activation, which n8n tries again from the same stored state, again and again.
 */
function reportFailingForm(context: IPollFunctions, error: Error): void {
	if (typeof context.__emitError === 'function')
		context.__emitError(asNodeError(context.getNode(), error));
	else warn(context, error.message);
}

function pollBudgetMs(context: IPollFunctions): number | undefined {
	// getPollBudgetMs is new in n8n 2.41; older n8n gives no budget.
	const budget =
		typeof context.getPollBudgetMs === 'function' ? context.getPollBudgetMs() : undefined;
	return typeof budget === 'number' && Number.isFinite(budget) && budget > 0 ? budget : undefined;
}
