/**
 * Fixed-window rate limit per API key, as the contract states it: N requests per window.
 *
 * Choices the contract leaves open, made here and documented in README.md:
 * - A key's window opens with its first counted request and lasts `windowMs`; the next
 *   request after that opens a new window (no sliding, no bursts carried over).
 * - Refused requests (429) do not count, so a client that backs off until the reset gets
 *   its full quota back. Every other request of a valid key counts, whatever its status.
 * - Time is the host's monotonic clock, not the (possibly skewed) service clock.
 */
import type { RateLimitSettings } from './types';

export type RateDecision =
	{ allowed: true } | { allowed: false; retryAfterMs: number; limit: RateLimitSettings };

interface Window {
	startedAt: number;
	count: number;
}

export class FixedWindowRateLimiter {
	private readonly windows = new Map<string, Window>();

	/** Time added to the clock by advanceClock, so tests end a window without waiting for it. */
	private advancedMs = 0;

	constructor(
		private settings: RateLimitSettings | false,
		private readonly clock: () => number = () => performance.now(),
	) {}

	private now(): number {
		return this.clock() + this.advancedMs;
	}

	/** Moves the limiter's clock forward: windows end as if `ms` had passed. */
	advanceClock(ms: number): void {
		this.advancedMs += ms;
	}

	/** New limits start from empty windows. */
	configure(settings: RateLimitSettings | false): void {
		this.settings = settings;
		this.windows.clear();
	}

	reset(): void {
		this.windows.clear();
	}

	check(key: string): RateDecision {
		if (this.settings === false) return { allowed: true };
		const { requests, windowMs } = this.settings;
		const now = this.now();
		let window = this.windows.get(key);
		if (window === undefined || now >= window.startedAt + windowMs) {
			window = { startedAt: now, count: 0 };
			this.windows.set(key, window);
		}
		if (window.count >= requests) {
			return {
				allowed: false,
				retryAfterMs: window.startedAt + windowMs - now,
				limit: this.settings,
			};
		}
		window.count++;
		return { allowed: true };
	}
}

/**
 * Retry-After in whole seconds, rounded up, never 0 (a 0 would invite an immediate retry into
 * the same window). With a time scale the seconds are the service's: the window a benchmark
 * shrinks 20-fold still answers as the one-minute window it stands for.
 */
export function retryAfterSeconds(retryAfterMs: number, timeScale = 1): number {
	return Math.max(1, Math.ceil(retryAfterMs / (1000 * timeScale)));
}

export function validateRateLimit(value: unknown): RateLimitSettings | false {
	if (value === false) return false;
	if (typeof value === 'object' && value !== null) {
		const { requests, windowMs, timeScale } = value as Record<string, unknown>;
		const scaleOk =
			timeScale === undefined || (typeof timeScale === 'number' && timeScale > 0 && timeScale <= 1);
		if (
			typeof requests === 'number' &&
			Number.isInteger(requests) &&
			requests >= 1 &&
			typeof windowMs === 'number' &&
			Number.isFinite(windowMs) &&
			windowMs > 0 &&
			scaleOk
		) {
			return timeScale === undefined
				? { requests, windowMs }
				: { requests, windowMs, timeScale: timeScale as number };
		}
	}
	throw new TypeError(
		'rateLimit must be false or { requests: integer >= 1, windowMs: number > 0, timeScale?: number in (0, 1] }',
	);
}
