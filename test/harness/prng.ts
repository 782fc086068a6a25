/**
 * Small, fast, seedable randomness. Every generated value derives from (seed, salt, index)
 * through these functions, never from Math.random or the clock, so the same seed gives the
 * same data byte for byte, and one response can be rebuilt from its index alone.
 */
import { floor, imul } from './globals';

/** Mixes any number of 32-bit integers into one well-distributed 32-bit hash (murmur3 finaliser). */
export function hash32(...parts: number[]): number {
	let h = 0x811c9dc5;
	for (const part of parts) {
		h = imul(h ^ (part | 0), 0x01000193);
		h ^= h >>> 15;
		h = imul(h, 0x85ebca6b);
		h ^= h >>> 13;
		h = imul(h, 0xc2b2ae35);
		h ^= h >>> 16;
	}
	return h >>> 0;
}

/** FNV-1a of a string, so a seed may be given as text (`--seed demo`). */
export function hashString(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h = imul(h ^ text.charCodeAt(i), 0x01000193);
	}
	return h >>> 0;
}

export function normaliseSeed(seed: number | string | undefined): number {
	if (seed === undefined) return 1;
	if (typeof seed === 'number' && Number.isFinite(seed)) return seed >>> 0;
	const text = String(seed);
	return /^\d+$/.test(text) ? Number(text) >>> 0 : hashString(text);
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const HEX = '0123456789abcdef';
const BYTE_HEX: readonly string[] = Array.from(
	{ length: 256 },
	(_, b) => HEX[b >> 4] + HEX[b & 15],
);

/** mulberry32: one 32-bit word of state, good enough for test data and very cheap to create. */
export class Prng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** Next unsigned 32-bit integer. */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = imul(t ^ (t >>> 15), t | 1);
		t ^= t + imul(t ^ (t >>> 7), t | 61);
		return (t ^ (t >>> 14)) >>> 0;
	}

	/** Float in [0, 1). */
	float(): number {
		return this.next() / 4294967296;
	}

	/** Integer in [min, max], both inclusive. */
	int(min: number, max: number): number {
		return min + floor(this.float() * (max - min + 1));
	}

	chance(probability: number): boolean {
		return this.float() < probability;
	}

	pick<T>(items: readonly T[]): T {
		return items[floor(this.float() * items.length)];
	}

	/** Hex digits, eight per 32-bit draw (wallets and uuids are on the hot path of every page). */
	hex(length: number): string {
		let out = '';
		while (out.length < length) {
			const word = this.next();
			out +=
				BYTE_HEX[word >>> 24] +
				BYTE_HEX[(word >>> 16) & 255] +
				BYTE_HEX[(word >>> 8) & 255] +
				BYTE_HEX[word & 255];
		}
		return out.length === length ? out : out.slice(0, length);
	}

	/** Base-36 digits, six per 32-bit draw (36^6 < 2^32). */
	base36(length: number): string {
		let out = '';
		while (out.length < length) {
			let word = this.next();
			for (let i = 0; i < 6 && out.length < length; i++) {
				out += BASE36[word % 36];
				word = floor(word / 36);
			}
		}
		return out;
	}

	/** A version-4 UUID built from this generator. */
	uuid(): string {
		const variant = HEX[8 + (this.next() & 3)];
		return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${variant}${this.hex(3)}-${this.hex(12)}`;
	}
}

/** Fixed-width base-36 number, so ids built from it sort like the number. */
export function padBase36(value: number, width: number): string {
	return value.toString(36).padStart(width, '0');
}
