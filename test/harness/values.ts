/**
 * Answer values and respondent fields, drawn from a Prng. Values follow the formats the
 * live service documents (strings; CHECKBOX comma-separated; RATING "1".."5"; NPS "0".."10";
 * YES_NO "Yes"/"No"; LEGAL "accepted"), with deliberate rough edges clients must survive:
 * text with commas, quotes, newlines and emoji; NUMBER sometimes a JSON number; FILE_UPLOAD
 * sometimes an array.
 */
import type { Prng } from './prng';
import type { JsonValue, Question } from './types';

const FIRST_NAMES = [
	'Alice',
	'Bob',
	'Chidi',
	'Dana',
	'Eun-ji',
	'Farah',
	'Gustavo',
	'Hana',
	'Ivan',
	'José',
	'Kai',
	'Léa',
	'Mateo',
	'Nia',
	'Omar',
	'Priya',
];
const WORDS = [
	'great',
	'fast',
	'wallet',
	'gas',
	'mint',
	'export',
	'clean',
	'confusing',
	'love',
	'docs',
	'onboarding',
	'support',
	'bridge',
	'token',
	'gate',
	'community',
];
const ENS_WORDS = [
	'vitalik',
	'punk',
	'degen',
	'builder',
	'anon',
	'frens',
	'moon',
	'satoshi',
	'gm',
	'based',
];
/** Text that breaks naive CSV writers and JSON handling; used for a small share of text answers. */
const TRICKY_TEXT = [
	'Love it, but "export" needs work',
	'Line one\nLine two',
	'Emoji test 🚀🔥 — ok',
	'Comma, separated, thoughts',
	'  leading and trailing spaces  ',
	'Semicolon; tab\there',
	'=SUM(1,2) should stay text',
	'Quote at end"',
];
const DOMAINS = ['example.com', 'mail.test', 'proton.me', 'forms.wtf'];

export function hexWallet(rng: Prng): string {
	return `0x${rng.hex(40)}`;
}

export function anonWallet(rng: Prng): string {
	return `anon_${rng.uuid()}`;
}

export function ensName(rng: Prng): string {
	return `${rng.pick(ENS_WORDS)}${rng.int(0, 9999)}.eth`;
}

function sentence(rng: Prng, words: number): string {
	const parts: string[] = [];
	for (let i = 0; i < words; i++) parts.push(rng.pick(WORDS));
	const text = parts.join(' ');
	return text[0].toUpperCase() + text.slice(1) + '.';
}

function shortText(rng: Prng): string {
	if (rng.chance(0.06)) return rng.pick(TRICKY_TEXT);
	return rng.chance(0.5) ? rng.pick(FIRST_NAMES) : sentence(rng, rng.int(2, 6));
}

function longText(rng: Prng): string {
	if (rng.chance(0.08)) return rng.pick(TRICKY_TEXT);
	const sentences: string[] = [];
	const count = rng.int(1, 4);
	for (let i = 0; i < count; i++) sentences.push(sentence(rng, rng.int(4, 12)));
	return sentences.join(rng.chance(0.3) ? '\n\n' : ' ');
}

function pad2(n: number): string {
	return n < 10 ? `0${n}` : `${n}`;
}

function fileUrl(rng: Prng): string {
	return `https://files.forms.wtf/uploads/${rng.uuid()}/${rng.pick(['screenshot.png', 'report.pdf', 'log.txt', 'photo.jpg'])}`;
}

/** One answer value for a question; the caller decides whether the question is answered at all. */
export function answerValue(question: Question, rng: Prng): JsonValue {
	switch (question.type) {
		case 'SHORT_TEXT':
			return shortText(rng);
		case 'LONG_TEXT':
			return longText(rng);
		case 'EMAIL':
			return `${rng
				.pick(FIRST_NAMES)
				.toLowerCase()
				.replace(/[^a-z]/g, '')}${rng.int(1, 999)}@${rng.pick(DOMAINS)}`;
		case 'PHONE':
			return `+1${rng.int(200, 989)}555${`${rng.int(0, 9999)}`.padStart(4, '0')}`;
		case 'URL':
			return `https://${rng.pick(['mirror.xyz', 'github.com', 'paragraph.xyz', 'example.org'])}/${rng.base36(8)}`;
		case 'NUMBER': {
			const n = rng.int(0, 500);
			// The documented type is string; some records carry a JSON number instead.
			return rng.chance(0.15) ? n : `${n}`;
		}
		case 'DATE':
			return `${rng.int(2023, 2025)}-${pad2(rng.int(1, 12))}-${pad2(rng.int(1, 28))}`;
		case 'YES_NO':
			return rng.chance(0.6) ? 'Yes' : 'No';
		case 'MULTIPLE_CHOICE':
		case 'DROPDOWN':
			return rng.pick(question.options ?? ['Option A', 'Option B']);
		case 'CHECKBOX': {
			const options = question.options ?? ['Option A', 'Option B'];
			const chosen = options.filter(() => rng.chance(0.4));
			return (chosen.length > 0 ? chosen : [options[0]]).join(', ');
		}
		case 'RATING':
			return `${rng.int(1, 5)}`;
		case 'OPINION_SCALE':
			return `${rng.int(1, 10)}`;
		case 'NPS':
			return `${rng.int(0, 10)}`;
		case 'LEGAL':
			return 'accepted';
		case 'WALLET_ADDRESS':
			return hexWallet(rng);
		case 'ENS_NAME':
			return ensName(rng);
		case 'FILE_UPLOAD':
			// Usually one URL; sometimes an array of URLs (a non-string value clients must pass through).
			return rng.chance(0.2) ? [fileUrl(rng), fileUrl(rng)] : fileUrl(rng);
		case 'STATEMENT':
		case 'WELCOME_SCREEN':
		case 'END_SCREEN':
			return '';
	}
}
