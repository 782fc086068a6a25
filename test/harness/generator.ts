/**
 * Builds one response of a form from its record index alone. Nothing per response is stored
 * for seeded data: a million-response form costs only its timestamp and order arrays
 * (responseStore.ts), and any page can be rebuilt on demand in the same bytes every time.
 *
 * A generated response is first a RawResponse (answer values aligned with the form's
 * answerable questions). From it we build either the API object or, on the hot path, its
 * JSON text directly with pre-serialised question fragments: that is about twice as fast as
 * building objects and calling JSON.stringify, and gives exactly the same bytes (tested).
 */
import { isoString, jsonText } from './globals';
import { Prng, hash32, padBase36 } from './prng';
import {
	DISPLAY_ONLY_TYPES,
	type Answer,
	type FormResponse,
	type JsonValue,
	type Question,
} from './types';
import { anonWallet, answerValue, ensName, hexWallet } from './values';

/** Salts keep the independent streams of one record apart. */
const SALT_ID = 0x1d;
const SALT_RESPONDENT = 0x2e;
const SALT_ANSWERS = 0x3f;

export const RESPONSE_ID_LENGTH = 25;
const INDEX_WIDTH = 7;

export interface RawResponse {
	id: string;
	walletAddress: string;
	ensName: string | null;
	submittedAtMs: number;
	durationSeconds: number;
	/** One slot per answerable question, in form order; undefined = not answered. */
	values: (JsonValue | undefined)[];
}

/** Characters JSON.stringify would escape (quotes, backslash, controls, any surrogate to be safe). */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify, with a shortcut for the common plain string (about a third faster per page). */
function jsonValue(value: JsonValue): string {
	return typeof value === 'string' && !NEEDS_ESCAPE.test(value)
		? '"' + value + '"'
		: jsonText(value);
}

export class ResponseGenerator {
	/** Questions that collect an answer, in form order (display-only types never do). */
	readonly answerable: Question[];
	/** `{"questionId":…,"questionLabel":…,"value":` per answerable question. */
	private readonly answerPrefix: string[];

	constructor(
		private readonly salt: number,
		questions: Question[],
	) {
		this.answerable = questions.filter((q) => !DISPLAY_ONLY_TYPES.has(q.type));
		this.answerPrefix = this.answerable.map(
			(q) =>
				`{"questionId":${JSON.stringify(q.id)},"questionLabel":${JSON.stringify(q.label)},"value":`,
		);
	}

	/**
	 * cuid-like id: "c", the record index in fixed-width base 36, then seeded noise. The index
	 * prefix makes id order equal record order, which is the documented tie-break.
	 */
	idOf(record: number): string {
		const rng = new Prng(hash32(this.salt, record, SALT_ID));
		return `c${padBase36(record, INDEX_WIDTH)}${rng.base36(RESPONSE_ID_LENGTH - 1 - INDEX_WIDTH)}`;
	}

	/** The record index encoded in a harness-made id, or -1 if the id is not one of ours. */
	recordOf(id: string): number {
		if (id.length !== RESPONSE_ID_LENGTH || id[0] !== 'c') return -1;
		const record = parseInt(id.slice(1, 1 + INDEX_WIDTH), 36);
		return Number.isInteger(record) && this.idOf(record) === id ? record : -1;
	}

	/** Wallet and ENS name depend only on the record, so an update keeps the respondent. */
	respondent(record: number): { walletAddress: string; ensName: string | null } {
		const rng = new Prng(hash32(this.salt, record, SALT_RESPONDENT));
		if (rng.chance(0.22)) return { walletAddress: anonWallet(rng), ensName: null };
		const walletAddress = hexWallet(rng);
		return { walletAddress, ensName: rng.chance(0.35) ? ensName(rng) : null };
	}

	/** Duration and answer values; `variant` > 0 gives the "edited" answers of an update. */
	content(
		record: number,
		variant: number,
	): { durationSeconds: number; values: (JsonValue | undefined)[] } {
		const rng = new Prng(hash32(this.salt, record, SALT_ANSWERS + variant * 0x100));
		const durationSeconds = rng.int(8, 900);
		const values = this.answerable.map((q) =>
			// Optional questions are skipped now and then, so answers arrays differ in length.
			!q.required && rng.chance(0.25) ? undefined : answerValue(q, rng),
		);
		return { durationSeconds, values };
	}

	answers(values: (JsonValue | undefined)[]): Answer[] {
		const answers: Answer[] = [];
		values.forEach((value, i) => {
			if (value === undefined) return;
			const q = this.answerable[i];
			answers.push({ questionId: q.id, questionLabel: q.label, value });
		});
		return answers;
	}

	raw(record: number, submittedAtMs: number, variant = 0): RawResponse {
		const { walletAddress, ensName: ens } = this.respondent(record);
		const { durationSeconds, values } = this.content(record, variant);
		return {
			id: this.idOf(record),
			walletAddress,
			ensName: ens,
			submittedAtMs,
			durationSeconds,
			values,
		};
	}

	toObject(raw: RawResponse): FormResponse {
		return {
			id: raw.id,
			walletAddress: raw.walletAddress,
			ensName: raw.ensName,
			submittedAt: isoString(raw.submittedAtMs),
			durationSeconds: raw.durationSeconds,
			answers: this.answers(raw.values),
		};
	}

	/** Same bytes as JSON.stringify(toObject(raw)). Ids, wallets and ENS names never need escaping. */
	toJson(raw: RawResponse): string {
		let out =
			'{"id":"' +
			raw.id +
			'","walletAddress":"' +
			raw.walletAddress +
			'","ensName":' +
			(raw.ensName === null ? 'null' : '"' + raw.ensName + '"') +
			',"submittedAt":"' +
			isoString(raw.submittedAtMs) +
			'","durationSeconds":' +
			raw.durationSeconds +
			',"answers":[';
		let first = true;
		for (let i = 0; i < raw.values.length; i++) {
			const value = raw.values[i];
			if (value === undefined) continue;
			out += (first ? this.answerPrefix[i] : ',' + this.answerPrefix[i]) + jsonValue(value) + '}';
			first = false;
		}
		return out + ']}';
	}

	generate(record: number, submittedAtMs: number, variant = 0): FormResponse {
		return this.toObject(this.raw(record, submittedAtMs, variant));
	}
}
