/* eslint-disable
	@n8n/community-nodes/no-restricted-globals
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { BinaryDataConfig, BinaryDataService, InstanceSettings } from 'n8n-core';

/**
 * Where n8n-core keeps binary data written by `prepareBinaryData`:
 * - `default`: in the item itself, base64 (n8n's `N8N_DEFAULT_BINARY_DATA_MODE=default`).
 * - `filesystem`: streamed to files below `$N8N_USER_FOLDER/.n8n/storage`, the item holding
 *   only an id (n8n's default on a single instance). Use it to measure large exports.
 */
export type BinaryDataMode = 'default' | 'filesystem';

export interface RunnerConfig {
	binaryDataMode: BinaryDataMode;
}

function modeFromEnv(): BinaryDataMode {
	return process.env.N8N_DEFAULT_BINARY_DATA_MODE === 'filesystem' ? 'filesystem' : 'default';
}

const config: RunnerConfig = { binaryDataMode: modeFromEnv() };

/**
 * n8n's Logger writes through winston to the console. Runs here print nothing, and n8n-core
 * only calls these methods on it (and `scoped`, which returns a logger).
 */
function silentLogger(): Logger {
	const noop = () => {};
	const logger = Object.create(Logger.prototype) as Logger;
	return Object.assign(logger, {
		error: noop,
		warn: noop,
		info: noop,
		debug: noop,
		scoped: () => logger,
	});
}

let ready: Promise<void> | undefined;
/** The mode BinaryDataService was last initialised in, shared by concurrent runs. */
let binaryData: { mode: BinaryDataMode; init: Promise<void> } | undefined;

async function initBinaryData(): Promise<void> {
	const mode = config.binaryDataMode;
	if (binaryData?.mode !== mode) {
		// BinaryDataService.init() reads the mode from BinaryDataConfig: 'default' keeps data
		// inline, 'filesystem' creates the storage folder and stores files there.
		Container.get(BinaryDataConfig).mode = mode;
		binaryData = { mode, init: Container.get(BinaryDataService).init() };
	}
	await binaryData.init;
}

/**
 * Once per process: the n8n-core services that executions reach through the DI container.
 * - Logger: silent (above). Registered first, as InstanceSettings logs through it.
 * - InstanceSettings: reads or creates `$N8N_USER_FOLDER/.n8n/config` (encryption key).
 * - BinaryDataService: initialised in the configured mode.
 * Everything else n8n-core takes from the container (ErrorReporter, Tracing,
 * TriggersAndPollers, PollTriggerExecutor…) works as constructed by default.
 */
export async function ensureRunnerReady(): Promise<void> {
	ready ??= (async () => {
		// Unconditionally: Container.has() is true for any @Service class, built or not.
		Container.set(Logger, silentLogger());
		Container.get(InstanceSettings);
	})();
	await ready;
	await initBinaryData();
}

/**
 * Changes process-wide runner settings. A new binary data mode applies from the next run
 * on; don't change it while runs are in flight.
 */
export function configureRunner(options: Partial<RunnerConfig>): void {
	Object.assign(config, options);
}

export function getRunnerConfig(): Readonly<RunnerConfig> {
	return config;
}
