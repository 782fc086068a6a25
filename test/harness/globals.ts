/**
 * Module-level bindings of the built-ins used on hot paths (per response, per hash).
 *
 * Jest runs test code in a vm context, where every lookup of a global name (Math, JSON,
 * Date, String…) goes through the context's global-object interceptor: measured ~20x
 * slower than in a plain process (1M Math.log calls: 230 ms vs 12 ms). A binding held by a
 * module is an ordinary variable load, so with these the harness runs about as fast inside
 * a jest test as from the command line.
 */
export const { imul, floor, log } = Math;
export const jsonText: (value: unknown) => string = JSON.stringify;
const DateClass = Date;

/** ISO 8601 with milliseconds, UTC. */
export function isoString(ms: number): string {
	return new DateClass(ms).toISOString();
}
