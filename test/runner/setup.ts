/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/require-node-api-error
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { BinaryDataConfig, BinaryDataService, InstanceSettings } from 'n8n-core';
import { setSafeRegexEngine } from 'n8n-workflow';
import type { RegexEngine } from 'n8n-workflow';
import { createContext, Script } from 'vm';

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

/**
 * n8n-workflow runs each regular expression of n8n's own checks in a vm with 250 ms of
 * wall-clock time, against catastrophic backtracking. On a busy machine (two cores, n8n installs
 * beside the tests) a plain check can wait longer than that for the CPU, and the run fails before
 * any node runs. Runs here keep the guard, with more time: n8n's backend chooses its engine
 * through the same public `setSafeRegexEngine`.
 */
const REGEX_TIMEOUT_MS = 5_000;

function patientRegexEngine(): RegexEngine {
	const context = createContext({
		pattern: '',
		flags: '',
		input: '',
		replacement: '',
		result: null,
	});
	const compiled = (code: string) => new Script(`result = ${code}`);
	const scripts = {
		exec: compiled('new RegExp(pattern, flags).exec(input)'),
		test: compiled('new RegExp(pattern, flags).test(input)'),
		replace: compiled('input.replace(new RegExp(pattern, flags), replacement)'),
		matchAll: compiled('Array.from(input.matchAll(new RegExp(pattern, flags)))'),
		split: compiled('input.split(new RegExp(pattern, flags))'),
	};
	const run = <T>(script: Script, values: Record<string, string | undefined>): T => {
		Object.assign(context, { flags: '', replacement: '', ...values, result: null });
		try {
			script.runInContext(context, { timeout: REGEX_TIMEOUT_MS });
		} catch (error) {
			if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
				throw new Error('Regular expression execution timed out');
			throw error;
		}
		return context.result as T;
	};
	return {
		exec: (pattern, input, flags) => run(scripts.exec, { pattern, input, flags }),
		test: (pattern, input, flags) => run(scripts.test, { pattern, input, flags }),
		replace: (pattern, input, flags, replacement) =>
			run(scripts.replace, { pattern, input, flags, replacement }),
		matchAll: (pattern, input, flags = '') =>
			run(scripts.matchAll, { pattern, input, flags: flags.includes('g') ? flags : `${flags}g` }),
		split: (pattern, input, flags) => run(scripts.split, { pattern, input, flags }),
	};
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
 * Once per process: the n8n-core services that executions reach through the DI container, and
 * n8n's regular expression engine (above).
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
		setSafeRegexEngine(patientRegexEngine());
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
