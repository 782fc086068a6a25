import type { Activity, Scenario, StrategyName } from './readScenario';
import { runScenario } from './readScenario';
import type { Served } from './readStrategies';
import { pollAnchored, pollStableEnd, simReader } from './readStrategies';
import type { ResponseOrder, SinceMode } from './server';
import { SimServer } from './server';

// Small backlogs read over several polls (pages of 20, at most 4 a poll), so that reads are
// cut and go on at the next poll; three responses share each millisecond of the backlog, so
// that pages end inside a millisecond; the busy form also gets bursts of three.
const BUSY: Activity = {
	arrival: 0.5,
	update: 0.15,
	deletion: 0.15,
	burst: 0.05,
	requestsBetweenPolls: 2,
};

function small(
	strategy: StrategyName,
	order: ResponseOrder,
	since: SinceMode,
	activity?: Activity,
): Scenario {
	return {
		strategy,
		order,
		since,
		activity,
		pageCap: 20,
		backlog: 300,
		spacingMs: 400,
		backlogPerMs: 3,
		maxPages: 4,
		maxPolls: 60,
		seed: 7,
	};
}

const cases: Array<[StrategyName, ResponseOrder, SinceMode]> = [];
for (const strategy of ['stableEnd', 'anchored'] as const)
	for (const order of ['oldestFirst', 'newestFirst'] as const)
		for (const since of ['exclusive', 'inclusive', 'wholeSeconds'] as const)
			cases.push([strategy, order, since]);

describe('reading responses since a cursor', () => {
	it.each(cases)(
		'%s on a quiet %s form (since %s) emits every response exactly once',
		async (strategy, order, since) => {
			const figures = await runScenario(small(strategy, order, since));
			expect(figures).toMatchObject({
				drained: true,
				settled: true,
				emittedTwice: 0,
				missed: 0,
				stuckPolls: 0,
				emittedToDrain: 300,
			});
			expect(figures.pollsToDrain).toBeGreaterThan(1);
		},
	);

	it.each(cases)(
		'%s on a busy %s form (since %s) emits every version exactly once',
		async (strategy, order, since) => {
			const figures = await runScenario(small(strategy, order, since, BUSY));
			expect(figures).toMatchObject({
				drained: true,
				settled: true,
				emittedTwice: 0,
				missed: 0,
				stuckPolls: 0,
			});
			expect(figures.pollsToDrain).toBeGreaterThan(1);
		},
	);
});

const START_MS = Date.parse('2026-03-02T12:00:00.000Z');

/** A form of 100 responses a second apart, pages of 20; `since` before all of them. */
function hundred(order: ResponseOrder): { server: SimServer; sinceMs: number } {
	const server = new SimServer(
		{ since: 'exclusive', order, pageCap: 20, totalAbsent: false, requestMs: 200 },
		START_MS,
		1,
	);
	server.seed(0, 100, 60_000, 1000);
	return { server, sinceMs: START_MS - 60_000 - 100_000 };
}

/** Every response alive now was emitted, and no version twice. */
function expectEachAliveOnce(server: SimServer, emitted: Served[]): void {
	const keys = emitted.map((r) => `${r.id}@${r.atMs}`);
	expect(new Set(keys).size).toBe(keys.length);
	const ids = new Set(emitted.map((r) => r.id));
	const alive = server.responses.filter((r) => r.deletedAtMs === undefined).map((r) => r.id);
	expect(alive.filter((id) => !ids.has(id))).toEqual([]);
}

describe('head-first with anchors', () => {
	it('begins the pass again when deletions move its anchor out of the next page', async () => {
		const { server, sinceMs } = hundred('oldestFirst');
		// Before the second page, five responses of the first are deleted: more than the overlap.
		server.arm(2, (s) => {
			for (let i = 0; i < 5; i++) s.apply({ kind: 'delete', form: 0, pick: 0 });
		});
		const { outcome } = await pollAnchored(
			simReader(server),
			{ sinceMs, seen: new Map() },
			{ maxPages: 40 },
		);
		expect(outcome).toMatchObject({ complete: true, passesBegunAgain: 1 });
		expectEachAliveOnce(server, outcome.emitted);
	});
});

describe('stable end', () => {
	it('asks again when arrivals beyond the slack keep a newest-first page from ending the list', async () => {
		const { server, sinceMs } = hundred('newestFirst');
		// Before the first read from the oldest end, ten responses arrive: the page asked at
		// total − page + slack then does not reach the end of the list.
		server.arm(2, { kind: 'submit', form: 0, count: 10 });
		const { outcome } = await pollStableEnd(
			simReader(server),
			{ sinceMs, seen: new Map() },
			{ maxPages: 40 },
		);
		expect(outcome.complete).toBe(true);
		expect(server.log[1].hasMore).toBe(true);
		expectEachAliveOnce(server, outcome.emitted);
	});

	it('asks again when deletions leave a newest-first read past the end of the list', async () => {
		const { server, sinceMs } = hundred('newestFirst');
		server.arm(2, (s) => {
			for (let i = 0; i < 20; i++) s.apply({ kind: 'delete', form: 0, pick: 0 });
		});
		const { outcome } = await pollStableEnd(
			simReader(server),
			{ sinceMs, seen: new Map() },
			{ maxPages: 40 },
		);
		expect(outcome.complete).toBe(true);
		expect(server.log[1].ids).toEqual([]);
		expectEachAliveOnce(server, outcome.emitted);
	});
});
