/* eslint-disable
	@n8n/community-nodes/require-node-api-error
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialsExpressionResolveValues,
	ICredentialType,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	INodeTypes,
	IRequestOptionsSimplified,
	IWorkflowDataProxyAdditionalKeys,
	IWorkflowExecuteAdditionalData,
	Workflow,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	deepCopy,
	ICredentialsHelper,
	isExpression,
	NodeHelpers,
	UnexpectedError,
	UserError,
} from 'n8n-workflow';
import { Credentials, getAdditionalKeys } from 'n8n-core';

/**
 * Credentials a run may use, by credential type name (e.g. `formsWtfApi`). Nodes still
 * reference them the n8n way (`node.credentials = { formsWtfApi: { id: '1', name: '…' } }`);
 * the id is not checked, as a test has one credential per type.
 */
export interface RunnerCredentials {
	[credentialType: string]: { type: ICredentialType; data: ICredentialDataDecryptedObject };
}

/**
 * n8n-workflow's ICredentialsHelper over in-memory credentials. Mirrors n8n's own
 * CredentialsHelper (packages/cli/src/credentials-helper.ts in n8n-io/n8n), minus the
 * database, encryption, overwrites, external secrets and dynamic credentials:
 * - `authenticate`: a function is called; a generic object has each `={{$credentials.x}}`
 *   resolved with the workflow's expression engine and set on the request.
 * - `getDecrypted`: the stored data with the credential type's defaults applied and
 *   expressions in the data resolved, as n8n's `applyDefaultsAndOverwrites` does.
 * - `preAuthentication` (expirable tokens): called when the token is empty or expired, and
 *   the new token kept for the rest of the process, where n8n writes it to the database.
 */
export class RunnerCredentialsHelper extends ICredentialsHelper {
	private readonly stored: Map<string, ICredentialDataDecryptedObject>;

	constructor(
		private readonly credentials: RunnerCredentials,
		private readonly nodeTypes: INodeTypes,
	) {
		super();
		// Copies, so a token refresh or a node cannot change what the test passed in.
		this.stored = new Map(
			Object.entries(credentials).map(([name, { data }]) => [name, deepCopy(data)]),
		);
	}

	private getType(typeName: string): ICredentialType {
		const entry = this.credentials[typeName];
		if (entry === undefined) {
			throw new UnexpectedError(`Unknown credential type "${typeName}": pass it in credentials`);
		}
		return entry.type;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions;
		const { authenticate } = this.getType(typeName);
		if (authenticate === undefined) return requestOptions as IHttpRequestOptions;

		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}

		if (!workflow || !node) {
			throw new UnexpectedError(
				'Workflow and node are required for declarative credential authentication',
			);
		}
		if (requestOptions.headers === undefined) requestOptions.headers = {};
		if (authenticate.type !== 'generic') return requestOptions as IHttpRequestOptions;

		// Same walk as n8n: every `properties.<headers|qs|body|auth>.<key>` becomes
		// `requestOptions.<outer>[resolved key] = resolved value`. The outer keys are dynamic,
		// so the request is indexed as a record (n8n uses @ts-expect-error for the same).
		const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
		for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
			for (const [key, value] of Object.entries(outerValue as Record<string, unknown>)) {
				const keyResolved = this.resolveValue(key, { $credentials: credentials }, workflow, node);
				const valueResolved = this.resolveValue(
					value as string,
					{ $credentials: credentials },
					workflow,
					node,
				);
				target[outerKey] ??= {};
				target[outerKey][keyResolved] = valueResolved;
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	/** n8n's CredentialsHelper.resolveValue: the 'internal' mode and '' fallback are n8n's. */
	private resolveValue(
		parameterValue: string,
		additionalKeys: IWorkflowDataProxyAdditionalKeys,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(parameterValue)) return parameterValue;
		const returnValue = workflow.expression.getSimpleParameterValue(
			node,
			parameterValue,
			'internal',
			additionalKeys,
			undefined,
			'',
		);
		if (!returnValue) return '';
		return returnValue.toString();
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.getType(typeName);
		const expirableProperty = credentialType.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (expirableProperty === undefined || typeof credentialType.preAuthentication !== 'function') {
			return undefined;
		}
		if (credentials[expirableProperty.name] !== '' && !credentialsExpired) return undefined;

		// n8n casts the same way: preAuthentication is typed to return any IDataObject.
		const output = (await credentialType.preAuthentication.call(
			helpers,
			credentials,
		)) as ICredentialDataDecryptedObject;
		if (output[expirableProperty.name] === undefined) return undefined;
		if (node.credentials?.[typeName]) {
			await this.updateCredentials(node.credentials[typeName], typeName, {
				...(this.stored.get(typeName) ?? {}),
				...output,
			});
			return Object.assign(credentials, output);
		}
		return undefined;
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const { preAuthentication } = this.getType(typeName);
		if (typeof preAuthentication !== 'function') return undefined;
		return (await preAuthentication.call(helpers, credentials)) as ICredentialDataDecryptedObject;
	}

	getParentTypes(typeName: string): string[] {
		const parents = this.getType(typeName).extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		const type = this.credentials[credentialType]?.type;
		if (!type?.restrictToSupportedNodes) return true;
		// n8n's supported nodes are the node types that list the credential.
		const description = this.nodeTypes.getByNameAndVersion(nodeType).description;
		return (description.credentials ?? []).some((c) => c.name === credentialType);
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentials> {
		// n8n returns the encrypted database row; encrypt the stored data the same way
		// (n8n-core's Credentials uses the instance's encryption key).
		const credentials = new Credentials(nodeCredentials, type);
		await credentials.setData(this.getStored(nodeCredentials, type));
		return credentials;
	}

	private getStored(nodeCredentials: INodeCredentialsDetails, type: string) {
		const data = this.stored.get(type);
		if (data === undefined) {
			// n8n's CredentialNotFoundError message.
			throw new UserError(
				`Credential with ID "${nodeCredentials.id}" does not exist for type "${type}".`,
			);
		}
		return data;
	}

	async getDecrypted(
		additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const original = deepCopy(this.getStored(nodeCredentials, type));
		if (raw === true) return original;

		// n8n's applyDefaultsAndOverwrites, without overwrites.
		let decrypted = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			original as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		if (original.oauthTokenData !== undefined) decrypted.oauthTokenData = original.oauthTokenData;

		// Expressions in credential data (`={{ $json.token }}`) resolve against the item being
		// processed. Without a run (poll, trigger) n8n resolves them against an empty mock
		// workflow; that case is left out here, as none of our credentials uses expressions.
		if (expressionResolveValues) {
			const additionalKeys = getAdditionalKeys(additionalData, mode, null, { isCredential: true });
			try {
				decrypted = expressionResolveValues.workflow.expression.getParameterValue(
					decrypted as INodeParameters,
					expressionResolveValues.runExecutionData,
					expressionResolveValues.runIndex,
					expressionResolveValues.itemIndex,
					expressionResolveValues.node.name,
					expressionResolveValues.connectionInputData,
					mode,
					additionalKeys,
					executeData,
					false,
					decrypted,
				) as ICredentialDataDecryptedObject;
			} catch (error) {
				if (error instanceof Error) error.message += ' [Error resolving credentials]';
				throw error;
			}
		}
		return decrypted;
	}

	async updateCredentials(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.stored.set(type, deepCopy(data));
	}

	async updateCredentialsOauthTokenData(
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.stored.set(type, {
			...(this.stored.get(type) ?? {}),
			oauthTokenData: data.oauthTokenData,
		});
	}

	/** n8n's getCredentialsProperties: a type's own properties over those of the types it extends. */
	getCredentialsProperties(type: string): INodeProperties[] {
		const credentialType = this.getType(type);
		if (credentialType.extends === undefined) {
			if (['oAuth1Api', 'oAuth2Api'].includes(type)) {
				return [
					...credentialType.properties,
					{
						displayName: 'oauthTokenData',
						name: 'oauthTokenData',
						type: 'json',
						required: false,
						default: {},
					},
				];
			}
			return credentialType.properties;
		}
		const combined: INodeProperties[] = [];
		for (const parent of credentialType.extends) {
			NodeHelpers.mergeNodeProperties(combined, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(combined, credentialType.properties);
		return combined;
	}
}
