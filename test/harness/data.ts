/**
 * The seeded dataset: forms from fixtures.ts with seed-derived ids and timestamps, each
 * with a ResponseStore. Building it touches only timestamps (one pass per form), so even a
 * million-response form is ready in tens of milliseconds.
 */
import { floor, log } from './globals';
import { ResponseGenerator } from './generator';
import {
	DATA_ANCHOR_MS,
	DEMO_FIXTURES,
	FOREIGN_FIXTURE,
	largeFixture,
	type FormFixture,
} from './fixtures';
import { Prng, hash32, hashString } from './prng';
import { ResponseStore } from './responseStore';
import type {
	FormDetail,
	FormOwner,
	FormSummary,
	HarnessFormInfo,
	Question,
	Workspace,
} from './types';

const DAY_MS = 86_400_000;
const SALT_FORM_ID = 0x51;
const SALT_QUESTION_ID = 0x52;
const SALT_TIMES = 0x53;
const SALT_RESPONSES = 0x54;

/** Upper bound for `largeFormResponses`: record indices are Uint32 and memory is ~13 bytes each. */
export const MAX_FORM_RESPONSES = 50_000_000;

export interface HarnessForm {
	id: string;
	fixture: string;
	owner: FormOwner;
	workspace: Workspace;
	createdAt: string;
	updatedAt: string;
	detail: FormDetail;
	store: ResponseStore;
}

export interface Dataset {
	/** Every form, both accounts, in the order of the demo account's list (newest created first). */
	forms: HarnessForm[];
	byId: Map<string, HarnessForm>;
}

function cuid(rng: Prng): string {
	return `c${rng.base36(24)}`;
}

/**
 * Ascending submittedAt values spread over [startMs, endMs): exponential gaps (so some are
 * close), short runs sharing one millisecond (bursts), and for forms of 10+ responses one
 * guaranteed burst of three in the middle so tests always have one to aim at.
 */
export function generateTimestamps(
	count: number,
	startMs: number,
	endMs: number,
	rng: Prng,
): Float64Array {
	const ts = new Float64Array(count);
	let acc = 0;
	let burst = 0;
	for (let i = 0; i < count; i++) {
		if (burst > 0) {
			burst--;
		} else {
			acc += -log(1 - rng.float());
			if (rng.chance(0.01)) burst = rng.int(1, 4);
		}
		ts[i] = acc;
	}
	// One more gap so the last response lands before endMs, then scale onto the time span.
	const scale = (endMs - startMs) / (acc + 1);
	for (let i = 0; i < count; i++) ts[i] = startMs + floor(ts[i] * scale);
	if (count >= 10) {
		const mid = count >> 1;
		ts[mid + 1] = ts[mid];
		ts[mid + 2] = ts[mid];
	}
	return ts;
}

function buildForm(seed: number, fixture: FormFixture): HarnessForm {
	const salt = hash32(seed, hashString(fixture.fixture));
	const idRng = new Prng(hash32(salt, SALT_FORM_ID));
	const id = cuid(idRng);
	const createdMs = DATA_ANCHOR_MS - fixture.createdDaysAgo * DAY_MS + idRng.int(0, DAY_MS / 2);
	const updatedMs = Math.max(
		createdMs + 60_000,
		DATA_ANCHOR_MS - fixture.updatedDaysAgo * DAY_MS + idRng.int(0, DAY_MS / 2),
	);

	const questionRng = new Prng(hash32(salt, SALT_QUESTION_ID));
	// Fixed key order (description and options only when set) keeps serialisation identical per seed.
	const questions: Question[] = fixture.questions.map((t, order) => ({
		id: cuid(questionRng),
		type: t.type,
		label: t.label,
		...(t.description !== undefined ? { description: t.description } : {}),
		required: t.required,
		order,
		...(t.options !== undefined ? { options: [...t.options] } : {}),
	}));

	// Closed forms stopped collecting when they were last edited; open ones collect until the anchor.
	const endMs = fixture.published ? DATA_ANCHOR_MS - 60_000 : updatedMs;
	const timestamps = generateTimestamps(
		fixture.responses,
		createdMs + 3_600_000,
		endMs,
		new Prng(hash32(salt, SALT_TIMES)),
	);
	const store = new ResponseStore(
		new ResponseGenerator(hash32(salt, SALT_RESPONSES), questions),
		timestamps,
	);

	return {
		id,
		fixture: fixture.fixture,
		owner: fixture.owner,
		workspace: fixture.workspace,
		createdAt: new Date(createdMs).toISOString(),
		updatedAt: new Date(updatedMs).toISOString(),
		detail: {
			id,
			title: fixture.title,
			slug: fixture.slug,
			published: fixture.published,
			questions,
			gateRules: fixture.gateRules.map((rule) => ({ ...rule })),
		},
		store,
	};
}

export function buildDataset(seed: number, largeFormResponses: number): Dataset {
	if (
		!Number.isInteger(largeFormResponses) ||
		largeFormResponses < 0 ||
		largeFormResponses > MAX_FORM_RESPONSES
	) {
		throw new RangeError(`largeFormResponses must be an integer from 0 to ${MAX_FORM_RESPONSES}`);
	}
	const fixtures = [...DEMO_FIXTURES, FOREIGN_FIXTURE];
	if (largeFormResponses > 0) fixtures.push(largeFixture(largeFormResponses));
	const forms = fixtures.map((f) => buildForm(seed, f));
	forms.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
	return { forms, byId: new Map(forms.map((f) => [f.id, f])) };
}

export function toSummary(form: HarnessForm): FormSummary {
	return {
		id: form.id,
		title: form.detail.title,
		slug: form.detail.slug,
		published: form.detail.published,
		responseCount: form.store.size,
		createdAt: form.createdAt,
		updatedAt: form.updatedAt,
	};
}

export function toFormInfo(form: HarnessForm): HarnessFormInfo {
	return {
		id: form.id,
		fixture: form.fixture,
		title: form.detail.title,
		slug: form.detail.slug,
		owner: form.owner,
		workspace: form.workspace,
		published: form.detail.published,
		responseCount: form.store.size,
		questionIds: form.detail.questions.map((q) => q.id),
	};
}
