import type { IDataObject } from 'n8n-workflow';

import { readState, unlessAlreadyPolling, writeState } from '../../nodes/FormsWtfTrigger/state';
import type { TriggerState } from '../../nodes/FormsWtfTrigger/state';

const state: TriggerState = {
	version: 1,
	scope: 'all',
	rev: 4,
	activatedAtMs: 1_000,
	forms: { f1: { since: '2026-01-01T00:00:00.000Z', seen: { r1: 5 } } },
};

/** A promise and the function that settles it: an ordering hook, no timers. */
function gate(): { opened: Promise<void>; open: () => void } {
	let open!: () => void;
	const opened = new Promise<void>((resolve) => (open = resolve));
	return { opened, open };
}

describe('trigger state in static data', () => {
	it('reads a copy: changing it does not change what n8n stored until it is written', () => {
		const staticData: IDataObject = {};
		writeState(staticData, state);
		const read = readState(staticData, 'all') as TriggerState;
		read.forms.f1.seen.r2 = 9;
		read.rev = 99;
		expect(readState(staticData, 'all')).toEqual(state);
	});

	it('reads nothing for another scope, and writes only its own keys', () => {
		const staticData: IDataObject = { stale: true };
		writeState(staticData, { ...state, failures: 2 });
		expect(readState(staticData, 'form:x')).toBeUndefined();
		expect(Object.keys(staticData).sort()).toEqual(['activatedAtMs', 'failures', 'forms', 'rev', 'scope', 'version']);
		writeState(staticData, state);
		expect(staticData.failures).toBeUndefined();
	});
});

describe('overlapping polls of one trigger', () => {
	it('a poll that starts while another runs returns nothing and does not run', async () => {
		const first = gate();
		const running = unlessAlreadyPolling('wf:node', 60_000, async () => {
			await first.opened;
			return 'first';
		});
		let secondRan = false;
		const second = await unlessAlreadyPolling('wf:node', 60_000, async () => {
			secondRan = true;
			return 'second';
		});
		expect(second).toBeUndefined();
		expect(secondRan).toBe(false);
		first.open();
		expect(await running).toBe('first');
	});

	it('holds nothing once the poll ended, also when it failed: the next poll runs', async () => {
		await expect(
			unlessAlreadyPolling('wf:failing', 60_000, async () => {
				throw new Error('poll failed');
			}),
		).rejects.toThrow('poll failed');
		expect(await unlessAlreadyPolling('wf:failing', 60_000, async () => 'next')).toBe('next');
	});

	it('other triggers poll at the same time', async () => {
		const first = gate();
		const running = unlessAlreadyPolling('wf:a', 60_000, async () => await first.opened);
		expect(await unlessAlreadyPolling('wf:b', 60_000, async () => 'b')).toBe('b');
		first.open();
		await running;
	});

	it('a poll that hangs past the stale time no longer blocks the next', async () => {
		const hung = gate();
		const running = unlessAlreadyPolling('wf:hung', 0, async () => await hung.opened);
		expect(await unlessAlreadyPolling('wf:hung', 0, async () => 'next')).toBe('next');
		hung.open();
		await running;
	});
});
