/**
 * In-process workflow runner for tests, the demo and benchmarks: runs nodes through
 * n8n-core's own execution machinery (WorkflowExecute, PollContext / PollTriggerExecutor,
 * BinaryDataService) with in-memory node types and credentials. See README.md.
 */
// First: sets N8N_USER_FOLDER before n8n-core is loaded.
import './env';

export { runWorkflow, runnerStartNode, DEFAULT_WORKFLOW_ID } from './run-workflow';
export type { RunWorkflowArgs, RunResult, RunnerWorkflow } from './run-workflow';
export { ActivePollTrigger, activatePollTrigger, runPoll } from './run-poll';
export type {
	HttpRequestWithAuthentication,
	PollTickResult,
	RunPollArgs,
	RunPollResult,
} from './run-poll';
export { runWebhook } from './run-webhook';
export type { RunWebhookArgs, RunWebhookResult, WebhookRequest } from './run-webhook';
export { RUNNER_START_NODE_TYPE, RunnerNodeTypeRegistry } from './node-types';
export type { RunnerNodeTypes } from './node-types';
export { RunnerCredentialsHelper } from './credentials';
export type { RunnerCredentials } from './credentials';
export { configureRunner, ensureRunnerReady } from './setup';
export type { BinaryDataMode, RunnerConfig } from './setup';
export { testCredential } from './credential-test';
export type { CredentialTestResult } from './credential-test';
export { activateWebhook, recordWebhookRequests, runWebhookMethod } from './webhook-methods';
export type {
	RecordingEndpoint,
	RunWebhookMethodArgs,
	WebhookMethodName,
	WebhookMethodResult,
} from './webhook-methods';
