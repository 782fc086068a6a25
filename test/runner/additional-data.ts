import { randomInt } from 'node:crypto';
import type { ICredentialsHelper, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { UnexpectedError } from 'n8n-workflow';
import { ExternalSecretsProxy, type ExecutionLifecycleHooks } from 'n8n-core';

/** A base URL nothing listens on: n8n nodes only format URLs from these (webhooks, forms). */
const INSTANCE_BASE_URL = 'http://127.0.0.1:5678';

/**
 * Execution ids, unique in the process. Filesystem binary data lives in a folder per
 * workflow and execution id; the random start keeps jest test files that share a worker
 * (and so an N8N_USER_FOLDER) but reload this module from reusing each other's ids.
 */
let lastExecutionId = randomInt(1_000_000) * 1_000;
export function nextExecutionId(): string {
	return String(++lastExecutionId);
}

function unsupported(feature: string): () => never {
	return () => {
		throw new UnexpectedError(`${feature} is not available in the test runner`);
	};
}

/**
 * The per-execution services n8n hands to node contexts, as n8n's
 * WorkflowExecuteAdditionalData.getBase (packages/cli) builds them, with what needs a
 * server (sub-workflows, task runners, agents) replaced by functions that throw.
 */
export function buildAdditionalData(args: {
	credentialsHelper: ICredentialsHelper;
	executionId: string | undefined;
	workflowId: string;
	hooks?: ExecutionLifecycleHooks;
}): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: args.credentialsHelper,
		executionId: args.executionId,
		workflowId: args.workflowId,
		hooks: args.hooks,
		// Property, not a getter: n8n-core reads and writes it while executing nodes.
		currentNodeExecutionIndex: 0,
		variables: {},
		externalSecretsProxy: new ExternalSecretsProxy(),
		restApiUrl: `${INSTANCE_BASE_URL}/rest`,
		instanceBaseUrl: INSTANCE_BASE_URL,
		formBaseUrl: `${INSTANCE_BASE_URL}/form`,
		formWaitingBaseUrl: `${INSTANCE_BASE_URL}/form-waiting`,
		formTestBaseUrl: `${INSTANCE_BASE_URL}/form-test`,
		webhookBaseUrl: `${INSTANCE_BASE_URL}/webhook`,
		webhookWaitingBaseUrl: `${INSTANCE_BASE_URL}/webhook-waiting`,
		webhookTestBaseUrl: `${INSTANCE_BASE_URL}/webhook-test`,
		mcpBaseUrl: `${INSTANCE_BASE_URL}/mcp`,
		mcpTestBaseUrl: `${INSTANCE_BASE_URL}/mcp-test`,
		logAiEvent: () => {},
		executeWorkflow: unsupported('Executing a sub-workflow'),
		getRunExecutionData: unsupported('Reading another execution'),
		getRuntimeCredential: unsupported('Runtime credentials'),
		startRunnerTask: unsupported('The task runner (Code node)'),
	};
}
