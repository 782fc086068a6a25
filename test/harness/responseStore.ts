/**
 * The responses of one form, kept compact enough for a million of them.
 *
 * Per record we store only its submittedAt (Float64Array, ms since epoch; exact for any
 * date) and its place in the sort order (Uint32Array of record indices, ascending by
 * submittedAt then id). Record contents are regenerated from the index (generator.ts);
 * only responses created or changed through the control API are kept as objects.
 *
 * That gives: `total` in O(1), `since` in O(log n) by binary search, any page in
 * O(log n + limit), and an append in O(1) for the usual "submitted now" case.
 */
import { jsonText } from './globals';
import { HarnessInputError } from './errors';
import { ResponseGenerator, type RawResponse } from './generator';
import type {
	FormResponse,
	JsonValue,
	ResponseDraft,
	ResponseOrder,
	ResponseUpdate,
} from './types';

export interface PageQuery {
	offset: number;
	limit: number;
	/** Lower bound on submittedAt in ms, or null for no bound. */
	sinceMs: number | null;
	sinceInclusive: boolean;
	order: ResponseOrder;
}

export interface PageResult {
	/** Record indices of the page, in output order. */
	records: number[];
	total: number;
	hasMore: boolean;
}

/** Above this many new records at once, one O(n) merge beats repeated O(n) shifts. */
const MERGE_THRESHOLD = 32;

export class ResponseStore {
	private ts: Float64Array;
	private order: Uint32Array;
	private count: number;
	/** Records created or updated through the control API. */
	private readonly stored = new Map<number, FormResponse>();
	/** Ids chosen by a test (not harness-made), both ways. */
	private readonly explicitIds = new Map<string, number>();
	private readonly explicitIdOf = new Map<number, string>();
	private readonly updates = new Map<number, number>();
	/** Bumped on every change; export caches key on it. */
	version = 0;

	/** `timestamps` must be sorted ascending; record i gets timestamps[i] and id order = index order. */
	constructor(
		readonly generator: ResponseGenerator,
		timestamps: Float64Array,
	) {
		this.count = timestamps.length;
		const capacity = Math.max(64, this.count + 64);
		this.ts = new Float64Array(capacity);
		this.ts.set(timestamps);
		this.order = new Uint32Array(capacity);
		for (let i = 0; i < this.count; i++) this.order[i] = i;
	}

	get size(): number {
		return this.count;
	}

	record(index: number): FormResponse {
		return this.stored.get(index) ?? this.generator.generate(index, this.ts[index]);
	}

	walletOf(index: number): string {
		return this.stored.get(index)?.walletAddress ?? this.generator.respondent(index).walletAddress;
	}

	/** JSON text of a record; the fast path for seeded records (see generator.ts). */
	json(index: number): string {
		const stored = this.stored.get(index);
		return stored !== undefined
			? jsonText(stored)
			: this.generator.toJson(this.generator.raw(index, this.ts[index]));
	}

	/**
	 * A record as an export row: metadata plus one value slot per answerable question. Answers
	 * set through the control API are matched to questions by questionId; answers to ids the
	 * form does not have cannot be placed in a column and are left out of the row.
	 */
	row(index: number): RawResponse {
		const stored = this.stored.get(index);
		if (stored === undefined) return this.generator.raw(index, this.ts[index]);
		const values = new Array<JsonValue | undefined>(this.generator.answerable.length).fill(
			undefined,
		);
		for (const answer of stored.answers) {
			const slot = this.generator.answerable.findIndex((q) => q.id === answer.questionId);
			if (slot >= 0 && values[slot] === undefined) values[slot] = answer.value;
		}
		return {
			id: stored.id,
			walletAddress: stored.walletAddress,
			ensName: stored.ensName,
			submittedAtMs: this.ts[index],
			durationSeconds: stored.durationSeconds,
			values,
		};
	}

	idOf(index: number): string {
		return this.explicitIdOf.get(index) ?? this.generator.idOf(index);
	}

	findRecord(id: string): number {
		const explicit = this.explicitIds.get(id);
		if (explicit !== undefined) return explicit;
		const index = this.generator.recordOf(id);
		return index >= 0 && index < this.count && !this.explicitIdOf.has(index) ? index : -1;
	}

	/** Sort key comparison: submittedAt, then id (code-unit order). */
	private compare(a: number, b: number): number {
		const d = this.ts[a] - this.ts[b];
		if (d !== 0 || a === b) return d;
		if (!this.explicitIdOf.has(a) && !this.explicitIdOf.has(b)) return a - b; // harness ids sort like indices
		const ia = this.idOf(a);
		const ib = this.idOf(b);
		return ia < ib ? -1 : ia > ib ? 1 : 0;
	}

	/** First ascending position whose submittedAt is > sinceMs (or >= when inclusive). */
	lowerBound(sinceMs: number, inclusive: boolean): number {
		let lo = 0;
		let hi = this.count;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			const t = this.ts[this.order[mid]];
			if (inclusive ? t < sinceMs : t <= sinceMs) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}

	page(q: PageQuery): PageResult {
		const n = this.count;
		const first = q.sinceMs === null ? 0 : this.lowerBound(q.sinceMs, q.sinceInclusive);
		const total = n - first;
		const size = q.offset >= total ? 0 : Math.min(q.limit, total - q.offset);
		const records = new Array<number>(size);
		if (q.order === 'oldestFirst') {
			const start = first + q.offset;
			for (let i = 0; i < size; i++) records[i] = this.order[start + i];
		} else {
			const start = n - 1 - q.offset;
			for (let i = 0; i < size; i++) records[i] = this.order[start - i];
		}
		return { records, total, hasMore: q.offset + size < total };
	}

	/** Record indices of every response in output order, copied so later changes do not disturb a running export. */
	snapshot(order: ResponseOrder): Uint32Array {
		const copy = this.order.slice(0, this.count);
		return order === 'oldestFirst' ? copy : copy.reverse();
	}

	private ensureCapacity(extra: number): void {
		const needed = this.count + extra;
		if (needed <= this.ts.length) return;
		const capacity = Math.max(needed, Math.ceil(this.ts.length * 1.5));
		const ts = new Float64Array(capacity);
		ts.set(this.ts.subarray(0, this.count));
		const order = new Uint32Array(capacity);
		order.set(this.order.subarray(0, this.count));
		this.ts = ts;
		this.order = order;
	}

	/** Position of the first record that sorts after `index` (upper bound). */
	private insertionPoint(index: number): number {
		let lo = 0;
		let hi = this.count;
		while (lo < hi) {
			const mid = (lo + hi) >>> 1;
			if (this.compare(this.order[mid], index) <= 0) lo = mid + 1;
			else hi = mid;
		}
		return lo;
	}

	private positionOf(index: number): number {
		const pos = this.insertionPoint(index) - 1;
		if (pos < 0 || this.order[pos] !== index)
			throw new Error(`record ${index} is not in the order`);
		return pos;
	}

	/** Puts records (whose ts is already set, indices >= count) into the order. */
	private placeNew(indices: number[]): void {
		if (indices.length > MERGE_THRESHOLD) {
			this.mergeNew(indices);
			return;
		}
		for (const index of indices) this.placeOne(index);
	}

	/** Inserts one record into the order (its ts must be set); order[0..count) must be valid. */
	private placeOne(index: number): void {
		const pos = this.insertionPoint(index);
		this.order.copyWithin(pos + 1, pos, this.count);
		this.order[pos] = index;
		this.count++;
	}

	private mergeNew(indices: number[]): void {
		const added = indices.slice().sort((a, b) => this.compare(a, b));
		const merged = new Uint32Array(this.order.length);
		let i = 0;
		let j = 0;
		let k = 0;
		while (i < this.count && j < added.length) {
			merged[k++] = this.compare(this.order[i], added[j]) <= 0 ? this.order[i++] : added[j++];
		}
		while (i < this.count) merged[k++] = this.order[i++];
		while (j < added.length) merged[k++] = added[j++];
		this.order = merged;
		this.count = k;
	}

	/** Creates responses; fields left out are generated, submittedAt defaults to `nowMs`. */
	insert(drafts: ResponseDraft[], nowMs: number): FormResponse[] {
		const seenIds = new Set<string>();
		for (const draft of drafts) {
			if (draft.id === undefined) continue;
			if (typeof draft.id !== 'string' || draft.id === '')
				throw new HarnessInputError('id must be a non-empty string');
			if (seenIds.has(draft.id) || this.findRecord(draft.id) >= 0) {
				throw new HarnessInputError(`a response with id ${draft.id} already exists`);
			}
			// An id the harness would make for a later record would collide with it.
			if (this.generator.recordOf(draft.id) >= 0)
				throw new HarnessInputError(`id ${draft.id} is reserved for a generated response`);
			seenIds.add(draft.id);
		}
		const parsed = drafts.map((d) =>
			d.submittedAt === undefined ? nowMs : parseTimestamp(d.submittedAt, 'submittedAt'),
		);
		this.ensureCapacity(drafts.length);
		const created: FormResponse[] = [];
		const indices: number[] = [];
		drafts.forEach((draft, i) => {
			const index = this.count + i;
			this.ts[index] = parsed[i];
			const base = this.generator.generate(index, parsed[i]);
			const response: FormResponse = {
				id: draft.id ?? base.id,
				walletAddress: draft.walletAddress ?? base.walletAddress,
				ensName: draft.ensName !== undefined ? draft.ensName : base.ensName,
				submittedAt: base.submittedAt,
				durationSeconds: draft.durationSeconds ?? base.durationSeconds,
				answers: draft.answers ?? base.answers,
			};
			if (draft.id !== undefined) {
				this.explicitIds.set(draft.id, index);
				this.explicitIdOf.set(index, draft.id);
			}
			this.stored.set(index, response);
			created.push(response);
			indices.push(index);
		});
		// New records sit past `count` until placed. The usual case (submitted now, in order)
		// is a plain append; anything else is placed by binary search or merged.
		const sortedAmongThemselves = indices.every(
			(index, i) => i === 0 || this.compare(indices[i - 1], index) < 0,
		);
		const afterAllExisting =
			this.count === 0 || this.compare(this.order[this.count - 1], indices[0]) < 0;
		const appendOnly = indices.length > 0 && sortedAmongThemselves && afterAllExisting;
		if (appendOnly) {
			for (const index of indices) this.order[this.count++] = index;
		} else {
			this.placeNew(indices);
		}
		this.version++;
		return created;
	}

	/**
	 * Changes a response in place, as the live service does when a wallet edits its submission:
	 * same id, submittedAt moved to `nowMs` (or later than the old one) unless given, new answers
	 * unless given. The record moves to its new place in the order.
	 */
	update(id: string, patch: ResponseUpdate, nowMs: number): FormResponse | null {
		const index = this.findRecord(id);
		if (index < 0) return null;
		const current = this.record(index);
		const oldMs = this.ts[index];
		const newMs =
			patch.submittedAt !== undefined
				? parseTimestamp(patch.submittedAt, 'submittedAt')
				: Math.max(nowMs, oldMs + 1);
		const variant = (this.updates.get(index) ?? 0) + 1;
		this.updates.set(index, variant);
		const regenerated = this.generator.content(index, variant);
		const updated: FormResponse = {
			id: current.id,
			walletAddress: patch.walletAddress ?? current.walletAddress,
			ensName: patch.ensName !== undefined ? patch.ensName : current.ensName,
			submittedAt: new Date(newMs).toISOString(),
			durationSeconds: patch.durationSeconds ?? regenerated.durationSeconds,
			answers: patch.answers ?? this.generator.answers(regenerated.values),
		};
		const pos = this.positionOf(index);
		this.order.copyWithin(pos, pos + 1, this.count);
		this.count--;
		this.ts[index] = newMs;
		this.stored.set(index, updated);
		this.placeOne(index);
		this.version++;
		return updated;
	}
}

export function parseTimestamp(value: unknown, field: string): number {
	const ms = typeof value === 'string' ? Date.parse(value) : NaN;
	if (Number.isNaN(ms)) throw new HarnessInputError(`${field} must be an ISO 8601 date string`);
	return ms;
}
