/**
 * What one poll may read (pages, responses to emit, n8n's poll budget), and the read of one form
 * within it, proven whole page by page (Continuity).
 */
import { isDeadlineError } from '../shared/transport/errors';
import type { FormsWtfClient } from '../shared/transport';
import {
	Continuity,
	isAnchor,
	iterateResponses,
	sameAnchor,
	toAnchor,
} from '../shared/transport/paging';
import type { Anchor, ResponsesQuery } from '../shared/transport/paging';
import type { FormResponse } from '../shared/transport/types';
import { without } from './cursor';
import type { ReadOfForm } from './cursor';
import type { Checkpoint, ResumePoint } from './state';

/**
 * Pages of responses one poll reads at most (besides the list of forms), so that a poll every
 * minute leaves a third of the key's 60 requests per minute to other workflows, and a poll is
 * never held up by the rate limit beyond its budget. What a poll does not read keeps its place
 * (the form's cursor and its resume point) and comes first on the next poll: a busy
 * account or a large Emit Existing Responses is read over several polls, never skipped.
 */
export const MAX_PAGES_PER_POLL = 40;

/**
 * Responses one poll emits before it stops asking for further pages (the pages already asked
 * for, at most two, are emitted whole): a large backlog, such as every response since a date, reaches the workflow
 * in executions of a bounded size, one per poll, oldest first per form.
 */
export const MAX_ITEMS_PER_POLL = 2000;

/** How far before the end of the last page the next page of a trigger's read starts (see Continuity). */
export const PAGE_OVERLAP = 3;

/**
 * How far before where a cut read stopped the next poll resumes, at most: room for the updates
 * and deletions of a poll's interval, which pull what follows to earlier offsets. Never more
 * than half of the pages the server serves, so that a read that gets one page a poll (a tight
 * budget) still moves forward by half a page or more with each poll. More edits than that pull
 * the anchors further back: the read then looks for them from offset 0 (see resumeAfter).
 */
const RESUME_OVERLAP = 25;

/** How many responses read before its anchors a resume point keeps (ResumePoint.earlier). */
const CHECKPOINTS = 8;

function resumeOverlap(pageSize: number | undefined): number {
	if (pageSize === undefined) return RESUME_OVERLAP;
	return Math.max(0, Math.min(RESUME_OVERLAP, pageSize - 1, Math.ceil(pageSize / 2)));
}

/**
 * Where a resumed read asks for its first page: the overlap before where the read stopped, moved
 * on by the drift the last resumed read found (responses pushed on between polls). Not so far
 * that the page misses where the read stopped should nothing have moved since (the pushes stop:
 * a quiet service), except by one place on pages of 2, where that is the only way to read
 * something new while one response a poll is pushed in ahead (the read then looks a page back).
 */
function resumeAt(start: ResumePoint): number {
	// A search point already stands a page before where the last search read began: starting
	// its overlap earlier again would leave the places just before that read unsearched.
	if (start.searching) return start.offset;
	const overlap = resumeOverlap(start.pageSize);
	const ahead = overlap === 0 ? 0 : Math.min(start.drift ?? 0, Math.max(1, overlap - 1));
	return Math.max(0, start.offset + ahead - overlap);
}

/**
 * What one poll may still read: always one page, so that a tight budget still makes progress;
 * then pages while n8n's poll budget lasts, up to MAX_PAGES_PER_POLL and MAX_ITEMS_PER_POLL. Its deadline also bounds
 * every wait of the transport (a Retry-After longer than the budget ends the poll's reading).
 */
export class PollAllowance {
	private pages = 0;
	private spent = false;
	/** Responses this poll is going to emit. */
	private items = 0;

	constructor(
		readonly client: FormsWtfClient,
		readonly deadline: number,
	) {}

	mayRead(): boolean {
		if (this.pages === 0) return true;
		return (
			!this.spent &&
			this.pages < MAX_PAGES_PER_POLL &&
			this.items < MAX_ITEMS_PER_POLL &&
			Date.now() <= this.deadline
		);
	}

	readonly onItem = (): void => {
		this.items++;
	};

	readonly onPage = (): void => {
		this.pages++;
	};

	/**
	 * Reads a form's responses from `start` (the beginning of `since` when absent) while the
	 * allowance lasts, handing each page to `handle`, and proving with a Continuity that nothing
	 * is skipped between pages, nor since the read `start` resumes. A wait of the transport that
	 * would pass the deadline ends the poll's reading like the budget does; any other failure is
	 * returned with what was read before it.
	 */
	async readForm(
		query: ResponsesQuery,
		start: ResumePoint | undefined,
		handle: (responses: FormResponse[]) => void,
	): Promise<FormRead> {
		const offset = start ? resumeAt(start) : 0;
		// A read from the start of `since` has nothing before it to miss: it proves itself page by
		// page, whether or not it comes upon where the pass it goes on from had got to.
		const place = start ? [...(start.earlier ?? []), ...start.anchors] : [];
		const continuity = new Continuity(PAGE_OVERLAP, offset === 0 ? [] : place);
		let foundPlace = false;
		const pageStarts: Checkpoint[] = [];
		let cut = false;
		let startedAtMs = start?.startedAtMs;
		// Without a Date header, the host's clock when the read was asked stands in for the service's.
		const askedAtMs = Date.now();
		let endOfPage = offset;
		// A read that gets no page (or only empty ones) keeps the page size it resumed with.
		let pageSize = start?.pageSize;
		let gotPage = false;
		let drift: number | undefined;
		// Until a page is handed over, a resumed read still stands where it was.
		let end = start?.offset ?? 0;
		const pages = iterateResponses(
			this.client,
			{ ...query, deadlineMs: this.deadline },
			{
				startOffset: offset,
				continuity,
				keepNewVersions: true,
				shouldStop: () => {
					if (this.mayRead()) return false;
					cut = true;
					return true;
				},
				onPage: (page, pageOffset) => {
					this.onPage();
					gotPage = true;
					startedAtMs ??= page.serviceTimeMs ?? askedAtMs;
					endOfPage = pageOffset + page.responses.length;
					if (page.responses.length) {
						pageSize = page.responses.length;
						pageStarts.push({ ...toAnchor(page.responses[0]), offset: pageOffset });
					}
					// From a point a search set (where the anchors are is not known), no drift is measured.
					if (start && !start.searching && drift === undefined)
						drift = driftOf(page.responses, pageOffset, start);
					foundPlace ||= page.responses.some((response) =>
						place.some((anchor) => isAnchor(response, anchor)),
					);
				},
			},
		);
		let failure: unknown;
		try {
			for await (const page of pages) {
				handle(page);
				// A resumed read that has not yet passed where it stopped still stands there.
				end = Math.max(end, endOfPage);
			}
		} catch (error) {
			failure = error ?? new Error('The read failed');
		}
		if (failure !== undefined) continuity.abandonBoundary();
		const stoppedBy = isDeadlineError(failure) ? failure : undefined;
		if (stoppedBy !== undefined) {
			this.spent = true;
			cut = true;
		}
		// Cut while a boundary's anchors were pushed on ahead of it: nothing skipped, it goes on.
		// So does a read whose place was pushed on ahead of where it resumed (arrivals above it in
		// a newest-first list), cut or failed: a search back from there would look the wrong way.
		// Not a search's read: it stands before the place on purpose, and a place deleted would
		// send it back and forth between the search and the chase.
		const chasing = !continuity.resumed && start !== undefined && !start.searching;
		const pushedOn =
			continuity.pushedOn && (continuity.resumed ? cut : chasing && (cut || failure !== undefined));
		// The resume point with the page size the read was served (a read that got no page keeps
		// the one it resumed with) and when the first of the cut reads began; the rest as
		// resumeAfter has it (a copy: `again` hands back the cursor's own resume point).
		const resume: ResumePoint = {
			...(gotPage
				? resumeAfter(start, continuity, end, pageSize, drift, pushedOn, foundPlace, pageStarts)
				: again(start)),
		};
		if (pageSize !== undefined) resume.pageSize = pageSize;
		if (startedAtMs !== undefined) resume.startedAtMs = startedAtMs;
		const movedUnder = gotPage && continuity.resumed && !continuity.proven && !pushedOn;
		return {
			end,
			cut,
			proven: continuity.proven,
			onTrust: continuity.tookOnTrust,
			movedUnder,
			seeking: gotPage && !continuity.proven && !movedUnder && resume.anchors.length > 0,
			lostPlace: (resume.restarts ?? 0) > 0 && resume.reached !== undefined,
			beganAgain: (resume.restarts ?? 0) > (start?.restarts ?? 0),
			resume,
			fromStart: offset === 0,
			startedAtMs,
			stoppedBy,
			failure: cut ? undefined : failure,
		};
	}
}

/**
 * Where a read that goes on from this one starts: a proven read goes on from its end, and so
 * does one cut while looking for anchors pushed on ahead of it (see Continuity.pushedOn), still
 * looking for them. One that did not find the anchors it resumed from, nor a response read
 * before them (`earlier`), lost them to updates or deletions before them, which pull responses
 * to earlier offsets by any number of places: the next read looks for them, in every page, from
 * a page before where this one began (a few edits between two polls), then each time as many
 * places further back as the last search read, down to offset 0. A read from 0 needs no anchor before
 * it: it goes on from its end like any proven read, and when it did not come upon them either
 * (all of them were updated or deleted themselves) the pass began again, which it counts until
 * a read gets back to where the pass had been (`restarts`, `reached`). Looking from 0 at once outran a poll's reading on a long
 * read, which then began again for ever. One that found them but missed a later boundary
 * (edits while it read) reads again from where it began.
 */
function resumeAfter(
	start: ResumePoint | undefined,
	continuity: Continuity,
	end: number,
	pageSize: number | undefined,
	drift: number | undefined,
	pushedOn: boolean,
	foundPlace: boolean,
	pageStarts: Checkpoint[],
): ResumePoint {
	if (pushedOn && start && !continuity.resumed) {
		// Still looking for the same place, further on: the pass is where it was. The place is
		// past the end of this read and pushed on since: the next read starts as far ahead as it
		// may (drift), or a read that moves on by as much as arrivals push the place never
		// catches up with it.
		return { ...start, offset: end, drift: Math.max(1, end - start.offset) };
	}
	if (continuity.proven || pushedOn) {
		const point: ResumePoint = { offset: end, anchors: continuity.anchors };
		if (drift !== undefined && drift > 0) point.drift = drift;
		// Only a proven read's pages lie where the pass has read everything before them.
		const earlier = checkpoints(start, continuity.proven ? pageStarts : [], point, pageSize);
		if (earlier.length) point.earlier = earlier;
		if (!foundPlace && start?.anchors.length) {
			// Proven without finding its place, it read from the start: the pass began again.
			point.restarts = (start.restarts ?? 0) + 1;
			point.reached = placeReached(start);
		} else if (start?.restarts) {
			// The pass's count of beginnings again stays until it ends. Short of where the pass had
			// been, it read again what was read, whatever place it found.
			point.restarts = start.restarts;
			if (end < (start.reached ?? 0)) point.reached = start.reached;
		}
		return point;
	}
	if (continuity.resumed || !start) return again(start);
	// The first search starts a page back; each next one reads the places just before those the
	// last one read, as many as it read, so that a poll with time for many pages reaches the start
	// in a few polls.
	const from = resumeAt(start);
	const page = pageSize ?? RESUME_OVERLAP;
	const further: ResumePoint = {
		...start,
		offset: Math.max(0, from - (start.searching ? Math.max(page, end - from) : page)),
		searching: true,
		reached: placeReached(start),
	};
	return without(further, 'drift');
}

/** How far the pass had read when a read lost its place (a search point stands before it). */
function placeReached(start: ResumePoint): number {
	return start.searching
		? (start.reached ?? start.offset)
		: Math.max(start.reached ?? 0, start.offset);
}

/**
 * The responses read before the new anchors that the next read may also find its place by
 * (ResumePoint.earlier), chosen from those the last point kept, its anchors (where they were
 * read: not a search point's), and the first response of each page this read got: the ones
 * nearest a page, two, four ... back from where it ends, so that a few edits near where the
 * pass stands leave one a short search away, and many leave one further back. Only dated ones:
 * an undated response updated and still undated would look unchanged where its update moved it.
 * None for places before the start, or the first responses of the pass would stay for ever and
 * make a read that began again look as if it had found its place.
 */
function checkpoints(
	start: ResumePoint | undefined,
	pageStarts: Checkpoint[],
	point: ResumePoint,
	pageSize: number | undefined,
): Checkpoint[] {
	const before = point.offset - point.anchors.length;
	const lastAnchors =
		start && !start.searching
			? start.anchors.map((anchor, i, all) => ({
					...anchor,
					offset: Math.max(0, start.offset - all.length + i),
				}))
			: [];
	const candidates: Checkpoint[] = [];
	for (const candidate of [...(start?.earlier ?? []), ...lastAnchors, ...pageStarts]) {
		const same = (other: Anchor) => sameAnchor(other, candidate);
		if (
			candidate.offset < before &&
			!Number.isNaN(Date.parse(candidate.submittedAt)) &&
			!point.anchors.some(same) &&
			!candidates.some(same)
		)
			candidates.push(candidate);
	}
	const chosen: Checkpoint[] = [];
	for (let k = 0; k < CHECKPOINTS && candidates.length; k++) {
		const target = point.offset - Math.max(1, pageSize ?? 1) * 2 ** k;
		if (target < 0) break;
		let nearest = 0;
		for (let i = 1; i < candidates.length; i++)
			if (Math.abs(candidates[i].offset - target) < Math.abs(candidates[nearest].offset - target))
				nearest = i;
		chosen.push(...candidates.splice(nearest, 1));
	}
	return chosen.sort((a, b) => a.offset - b.offset);
}

/**
 * How many places later than where the read it resumes had left it the last response of that
 * read is served now (responses added or updated before it since); undefined while this page
 * does not hold it in the same version.
 */
function driftOf(page: FormResponse[], pageOffset: number, start: ResumePoint): number | undefined {
	const last = start.anchors.at(-1);
	if (last === undefined) return undefined;
	const at = page.findIndex((response) => isAnchor(response, last));
	return at < 0 ? undefined : pageOffset + at - (start.offset - 1);
}

/** A read that got no page, or that must be read again from where it began. */
function again(start: ResumePoint | undefined): ResumePoint {
	return start ?? { offset: 0, anchors: [] };
}

/**
 * How one read of a form ended (see PollAllowance.readForm); with ReadOfForm's fromStart (the
 * read began at the start of `since`, so it saw every response the API returns) and startedAtMs
 * (the service's clock when it, or the first of the cut reads it goes on from, began).
 */
interface FormRead extends Pick<ReadOfForm, 'fromStart' | 'startedAtMs'> {
	/** The offset after the last page handed over. */
	end: number;
	/** Stopped by the poll's page cap, budget or deadline before the end. */
	cut: boolean;
	/** Every page boundary found its anchor (see Continuity). */
	proven: boolean;
	/** A boundary after two pages of one response was taken on trust: a response may be skipped. */
	onTrust: boolean;
	/**
	 * It found where it went on from, but a later page boundary lost its anchors: responses were
	 * edited or deleted while it read, and it is read again from where it began.
	 */
	movedUnder: boolean;
	/**
	 * Answered but not proven, and still looking for where it goes on from (its anchors pulled
	 * back before where it began, or pushed on past where it was cut; see resumeAfter): it hands
	 * over what it reads, and ends in a proven read within a bounded number of polls.
	 */
	seeking: boolean;
	/**
	 * Its pass has begun again since a read of it last found its place (ResumePoint.restarts):
	 * what it reads is read again, not progress, until it finds its place or completes the pass.
	 */
	lostPlace: boolean;
	/** This read did not find its place and its pass began again from the start (lostPlace). */
	beganAgain: boolean;
	/** Where the next read of the form goes on from, proven or not (see resumeAfter). */
	resume: ResumePoint;
	/** Why a read was cut before the end by a wait the poll had no time for (a deadline error). */
	stoppedBy?: unknown;
	failure?: unknown;
}
