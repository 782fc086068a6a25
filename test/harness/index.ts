/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * Entry point for tests: `startHarness(options)` starts a faithful fake of the forms.wtf API
 * on 127.0.0.1 and returns its base URL, the demo keys, a control client and close().
 */
import type { AddressInfo } from 'net';
import { HarnessControl } from './client';
import { API_PREFIX } from './api';
import { CONTROL_PREFIX } from './control';
import { HARNESS_KEYS } from './keys';
import { createHarnessServer } from './server';
import { HarnessState } from './state';
import type { HarnessKeys, HarnessOptions } from './types';

export interface RunningHarness {
	/** `http://127.0.0.1:PORT/api/v1`, what the credential's base URL would be. */
	baseUrl: string;
	/** `http://127.0.0.1:PORT` */
	origin: string;
	port: number;
	keys: HarnessKeys;
	control: HarnessControl;
	/** Stops listening, drops open connections (including keep-alive ones) and stops merkle workers. */
	close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<RunningHarness> {
	const state = new HarnessState(options);
	let origin = '';
	const server = createHarnessServer(state, () => ({
		baseUrl: `${origin}${API_PREFIX}`,
		controlUrl: `${origin}${CONTROL_PREFIX}`,
	}));
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	const { port } = server.address() as AddressInfo;
	origin = `http://127.0.0.1:${port}`;
	let closing: Promise<void> | null = null;
	return {
		baseUrl: `${origin}${API_PREFIX}`,
		origin,
		port,
		keys: { ...HARNESS_KEYS },
		control: new HarnessControl(origin),
		close: () => {
			closing ??= (async () => {
				const closed = new Promise<void>((resolve) => server.close(() => resolve()));
				server.closeAllConnections();
				state.webhooks.clear();
				await Promise.all([closed, state.merkle.close()]);
			})();
			return closing;
		},
	};
}

export { HarnessControl, HarnessControlError } from './client';
export { HARNESS_KEYS } from './keys';
export { CSV_META_COLUMNS } from './exports';
export * from './types';
export { webhookRequest, WEBHOOK_FORMATS, WEBHOOK_TIMEOUT_MS } from './webhooks';
export type { HarnessWebhook, WebhookDelivery, WebhookFormat, WebhookSpec } from './webhooks';
