/** Lengths of time the trigger reasons in. */

export const HOUR_MS = 3_600_000;

export const DAY_MS = 24 * HOUR_MS;

/**
 * The Newest Existing Responses: growing windows of time before activation in which the newest
 * ones are looked for (undefined: all), so that a large form is not read whole for a few.
 */
const EXISTING_WINDOWS_MS = [HOUR_MS, DAY_MS, 7 * DAY_MS, 31 * DAY_MS, 366 * DAY_MS, undefined];

export const LAST_EXISTING_WINDOW = EXISTING_WINDOWS_MS.length - 1;

/** The `since` of a window of existing responses: from its start, or from the beginning. */
export function existingWindowSince(activatedAtMs: number, window: number): string {
	const windowMs = EXISTING_WINDOWS_MS[Math.min(window, LAST_EXISTING_WINDOW)];
	return new Date(windowMs === undefined ? 0 : activatedAtMs - windowMs - 1).toISOString();
}
