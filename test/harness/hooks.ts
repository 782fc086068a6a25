/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Ordering and stream hooks: behaviours of a slow, busy or reordering server that tests ask
 * for through the control API, each acting on the next `times` (default 1) API requests whose
 * target (path plus query, as sent) contains `pathIncludes`. Kept apart from faults.ts, which
 * replaces an answer; a hook changes when or how much of the real answer is sent, or what
 * happens to the data between two answers.
 *
 *   hold          keep the request waiting, unanswered, until the next API request after it
 *                 has been answered; optionally insert responses into its form just before
 *                 it is answered (two pages in flight, answered in the opposite order, with
 *                 arrivals in between)
 *   insertAfter   once the request has been answered, insert responses into its form (a page's
 *                 worth of arrivals between two page requests: a busy form)
 *   stall         send the status line, headers and the first `afterBytes` bytes of the body,
 *                 then nothing more, keeping the connection open
 *   hang          accept the request and never answer it
 *
 * Held, stalled and hung requests end when the harness closes (close() drops every
 * connection) or when the client gives up and closes the connection.
 */
import type { IncomingMessage, ServerResponse } from 'http';
import { HarnessInputError } from './errors';
import { parseMatch } from './faults';
import type { HarnessForm } from './data';
import type { HookKind, HookSpec, PendingHook } from './types';

interface PendingHold {
	/** Released after the answer to the first API request that arrives after this one. */
	release: () => void;
	waitingForNext: boolean;
}

export class RequestHooks {
	private hooks: PendingHook[] = [];
	private nextId = 1;
	private holds: PendingHold[] = [];
	/** How many hooks have acted, so a test can await one having acted. */
	private fired = 0;

	add(spec: HookSpec): PendingHook {
		const { times, pathIncludes, ...kind } = spec;
		const hook: PendingHook = { ...(kind as HookKind), id: this.nextId++, remaining: times ?? 1 };
		if (pathIncludes !== undefined) hook.pathIncludes = pathIncludes;
		this.hooks.push(hook);
		return { ...hook };
	}

	list(): PendingHook[] {
		return this.hooks.map((h) => ({ ...h }));
	}

	firedCount(): number {
		return this.fired;
	}

	clear(): void {
		this.hooks = [];
		this.fired = 0;
		for (const hold of this.holds.splice(0)) hold.release();
	}

	/** Takes one use of every kind of hook matching the target (at most one hook per kind). */
	private take(target: string): HookKind[] {
		const taken: HookKind[] = [];
		const kinds = new Set<string>();
		for (const hook of [...this.hooks]) {
			if (kinds.has(hook.kind)) continue;
			if (hook.pathIncludes !== undefined && !target.includes(hook.pathIncludes)) continue;
			kinds.add(hook.kind);
			hook.remaining--;
			if (hook.remaining <= 0) this.hooks.splice(this.hooks.indexOf(hook), 1);
			// eslint-disable-next-line @typescript-eslint/no-unused-vars -- left out of the rest on purpose
			const { id: _id, remaining: _remaining, pathIncludes: _path, ...kind } = hook;
			taken.push(kind as HookKind);
		}
		if (taken.length) this.fired += taken.length;
		return taken;
	}

	/**
	 * Runs around the handling of one API request. `answer` builds and sends the real answer;
	 * `formOf` finds the form a request is about, for the hooks that insert responses.
	 */
	async around(
		req: IncomingMessage,
		res: ServerResponse,
		formOf: () => HarnessForm | undefined,
		insert: (form: HarnessForm, count: number) => void,
		answer: () => void,
	): Promise<void> {
		// Any request arriving releases, once it is answered, the holds that were waiting for it.
		const releasedByThis = this.holds.filter((hold) => hold.waitingForNext);
		for (const hold of releasedByThis) hold.waitingForNext = false;

		const taken = this.take(req.url ?? '/');
		const find = <K extends HookKind['kind']>(kind: K) =>
			taken.find((hook): hook is Extract<HookKind, { kind: K }> => hook.kind === kind);

		const hold = find('hold');
		if (hold !== undefined) {
			let pending: PendingHold | undefined;
			await new Promise<void>((resolve) => {
				pending = { release: resolve, waitingForNext: true };
				this.holds.push(pending);
				res.once('close', () => resolve());
			});
			this.holds = this.holds.filter((h) => h !== pending);
			if (res.destroyed) return this.releaseAll(releasedByThis);
			const form = formOf();
			if (hold.insertBeforeAnswer && form !== undefined) insert(form, hold.insertBeforeAnswer);
		}

		if (find('hang') !== undefined) return this.releaseAll(releasedByThis);

		const stall = find('stall');
		if (stall !== undefined) stallAfter(res, stall.afterBytes);

		answer();

		const insertAfter = find('insertAfter');
		if (insertAfter !== undefined) {
			const form = formOf();
			if (form !== undefined) insert(form, insertAfter.count);
		}
		// Released only now: the held request is answered after this one (and its inserts).
		this.releaseAll(releasedByThis);
	}

	private releaseAll(holds: PendingHold[]): void {
		for (const hold of holds) {
			this.holds = this.holds.filter((h) => h !== hold);
			hold.release();
		}
	}
}

/** Lets the first `afterBytes` bytes of the answer out, and holds the rest back for good. */
function stallAfter(res: ServerResponse, afterBytes: number): void {
	let sent = 0;
	const writeSome = (chunk: unknown): void => {
		if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
		const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
		const room = Math.max(0, afterBytes - sent);
		if (room > 0) {
			originalWrite(bytes.subarray(0, room));
			sent += Math.min(room, bytes.length);
		}
	};
	const originalWrite = res.write.bind(res) as (chunk: Buffer) => boolean;
	res.write = ((chunk: unknown) => {
		writeSome(chunk);
		return true;
	}) as ServerResponse['write'];
	res.end = ((chunk?: unknown) => {
		writeSome(chunk);
		// Headers go out even when afterBytes is 0.
		if (!res.headersSent) res.flushHeaders();
		return res;
	}) as ServerResponse['end'];
}

/** Checks a hook posted to the control API; throws HarnessInputError with a readable message. */
export function parseHookSpec(input: unknown): HookSpec {
	if (typeof input !== 'object' || input === null)
		throw new HarnessInputError('hook must be a JSON object');
	const o = input as Record<string, unknown>;
	const common = parseMatch(o);
	const count = (name: string, value: unknown): number => {
		if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 100_000) {
			throw new HarnessInputError(`${name} must be an integer from 0 to 100000`);
		}
		return value;
	};
	switch (o.kind) {
		case 'hold':
			return o.insertBeforeAnswer === undefined
				? { kind: 'hold', ...common }
				: {
						kind: 'hold',
						insertBeforeAnswer: count('insertBeforeAnswer', o.insertBeforeAnswer),
						...common,
					};
		case 'insertAfter':
			return { kind: 'insertAfter', count: count('count', o.count), ...common };
		case 'stall':
			if (typeof o.afterBytes !== 'number' || !Number.isInteger(o.afterBytes) || o.afterBytes < 0) {
				throw new HarnessInputError('afterBytes must be an integer >= 0');
			}
			return { kind: 'stall', afterBytes: o.afterBytes, ...common };
		case 'hang':
			return { kind: 'hang', ...common };
		default:
			throw new HarnessInputError('kind must be one of hold, insertAfter, stall, hang');
	}
}
