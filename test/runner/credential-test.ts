import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IExecuteData,
	INode,
	INodeExecutionData,
	INodeType,
	ITaskDataConnections,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';
import { ExecuteContext, RoutingNode } from 'n8n-core';

import { buildAdditionalData, nextExecutionId } from './additional-data';
import { RunnerCredentialsHelper } from './credentials';
import { RunnerNodeTypeRegistry } from './node-types';
import { ensureRunnerReady } from './setup';

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

interface FailedRequest {
	message?: unknown;
	cause?: { response?: { status: number; statusText?: string }; code?: string };
}

/**
 * "Test" / Save of a credential, as n8n 2.41 runs it for a credential with a declarative `test`
 * (n8n's CredentialsTester.runRequestTest, packages/cli/src/services/credentials-tester.service.ts,
 * read in n8n 2.41.1's dist): a node type made of one property whose routing is the test's
 * request, run by n8n-core's RoutingNode through an ExecuteContext (so through
 * httpRequestWithAuthentication and the credential's `authenticate`), then the test's rules
 * applied in n8n's order and with n8n's messages.
 */
export async function testCredential(
	type: ICredentialType,
	data: ICredentialDataDecryptedObject,
): Promise<CredentialTestResult> {
	await ensureRunnerReady();
	const testRequest = type.test as ICredentialTestRequest;
	const nodeTypeCopy: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'n8n-runner.credentialTest',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: { name: 'Temp-Node' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: type.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: testRequest.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		parameters: {},
		name: 'Temp-Node',
		type: nodeTypeCopy.description.name,
		typeVersion: 1,
		position: [0, 0],
		credentials: { [type.name]: { id: 'credential', name: 'Credential' } },
	};
	const nodeTypes = new RunnerNodeTypeRegistry({ [node.type]: nodeTypeCopy });
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const credentialsHelper = new RunnerCredentialsHelper({ [type.name]: { type, data } }, nodeTypes);
	const additionalData = buildAdditionalData({
		credentialsHelper,
		executionId: nextExecutionId(),
		workflowId: 'credential-test',
	});
	const inputData: ITaskDataConnections = { main: [[{ json: {} }]] };
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData(),
		0,
		[],
		inputData,
		executeData,
		[],
	);
	const credentialsDecrypted = { id: 'credential', name: 'Credential', type: type.name, data };
	const routingNode = new RoutingNode(context, nodeTypeCopy, credentialsDecrypted);
	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await routingNode.runNode();
	} catch (caught) {
		const error = caught as FailedRequest;
		if (error.cause?.response) {
			const { status, statusText } = error.cause.response;
			for (const rule of testRequest.rules ?? []) {
				if (rule.type === 'responseCode' && status === rule.properties.value)
					return { status: 'Error', message: rule.properties.message };
			}
			if (status < 199 || status > 299)
				return {
					status: 'Error',
					message: statusText || `Received HTTP status code: ${status}`,
				};
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: String(error.message) };
	}
	for (const rule of testRequest.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		// n8n reads the first item as it is: an answer of an empty array fails there, in n8n too.
		const responseData = response?.[0][0].json;
		if (readPath(responseData, rule.properties.key) === rule.properties.value)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/** lodash's `get`, as n8n uses it: a dotted path read through own and inherited properties. */
function readPath(value: unknown, path: string): unknown {
	let current: unknown = value;
	for (const key of path.split('.')) {
		if (current === null || current === undefined) return undefined;
		current = (current as Record<string, unknown>)[key];
	}
	return current;
}
