/**
 * What the Webhook Trigger's panel shows in n8n's editor: Registration stays in the parameter
 * list, and each mode asks for the one credential it needs (none with Manual and no signature).
 */
import type {
	INode,
	INodeCredentialDescription,
	INodeParameters,
	INodeProperties,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { FormsWtfWebhookTrigger } from '../../nodes/FormsWtf/FormsWtfWebhookTrigger.node';

const description = new FormsWtfWebhookTrigger().description;

function optionValues(property: INodeProperties): unknown[] {
	return (property.options ?? []).map((option) => ('value' in option ? option.value : undefined));
}

/**
 * The parameters n8n's editor (1.85 to 2.41) leaves out of a node's panel. It looks at the
 * parameters the credentials' display depends on; one of them is the node's "authentication"
 * when it is called `authentication` and has no `none` option, or when each of its values shows
 * a credential. If there is one, the editor asks for it in the credential dialog instead, and
 * hides it, and every parameter those parameters' own display depends on, from the panel.
 */
function parametersTheEditorHides(node: INodeTypeDescription): string[] {
	const credentials: INodeCredentialDescription[] = node.credentials ?? [];
	const valuesShowingACredential = new Map<string, unknown[]>();
	for (const credential of credentials)
		for (const [name, values] of Object.entries(credential.displayOptions?.show ?? {}))
			valuesShowingACredential.set(name, [
				...(valuesShowingACredential.get(name) ?? []),
				...(values ?? []),
			]);
	const credentialFields = node.properties.filter((property) =>
		valuesShowingACredential.has(property.name),
	);
	const named = credentialFields.find(
		(field) => field.name === 'authentication' && !optionValues(field).includes('none'),
	);
	const main =
		named ??
		credentialFields.find((field) =>
			optionValues(field).every((value) =>
				(valuesShowingACredential.get(field.name) ?? []).includes(value),
			),
		);
	if (!main) return [];
	const dependedOn = new Set(
		credentialFields.flatMap((field) => Object.keys(field.displayOptions?.show ?? {})),
	);
	const hidden = node.properties
		.filter((property) => property.name === main.name || dependedOn.has(property.name))
		.map((property) => property.name);
	return [...new Set(hidden)];
}

function nodeAt(typeVersion: number, parameters: INodeParameters): INode {
	return {
		id: 'layout',
		name: 'Forms.wtf Webhook Trigger',
		type: 'n8n-nodes-formswtf.formsWtfWebhookTrigger',
		typeVersion,
		position: [0, 0],
		parameters,
	};
}

/** The parameters as n8n keeps them: defaults filled in, hidden ones dropped. */
function resolvedParameters(typeVersion: number, set: INodeParameters): INodeParameters {
	const resolved = NodeHelpers.getNodeParameters(
		description.properties,
		set,
		true,
		false,
		nodeAt(typeVersion, set),
		description,
	);
	if (!resolved) throw new Error('n8n resolved no parameters');
	return resolved;
}

function credentialsAskedFor(typeVersion: number, set: INodeParameters): string[] {
	const parameters = resolvedParameters(typeVersion, set);
	const node = nodeAt(typeVersion, parameters);
	return (description.credentials ?? [])
		.filter((credential) =>
			NodeHelpers.displayParameter(parameters, credential, node, description, parameters),
		)
		.map((credential) => credential.name);
}

function shownParameters(typeVersion: number, set: INodeParameters): string[] {
	const parameters = resolvedParameters(typeVersion, set);
	const node = nodeAt(typeVersion, parameters);
	return description.properties
		.filter((property) =>
			NodeHelpers.displayParameter(parameters, property, node, description, parameters),
		)
		.map((property) => property.name);
}

describe('Webhook Trigger in n8n’s editor', () => {
	it('keeps Registration and Signature Verification in the panel: neither is moved into the credential dialog', () => {
		expect(parametersTheEditorHides(description)).toEqual([]);
	});

	it('a signing-secret credential shown only for Registration Manual would hide Registration (the layout it replaces)', () => {
		const hiding: INodeTypeDescription = {
			...description,
			credentials: (description.credentials ?? []).map((credential) =>
				credential.name === 'formsWtfWebhookApi'
					? {
							...credential,
							displayOptions: {
								show: { registration: ['manual'], authentication: ['signingSecret'] },
							},
						}
					: credential,
			),
		};
		expect(parametersTheEditorHides(hiding)).toEqual(['registration']);
	});

	it.each([
		[2, {}, ['formsWtfApi']],
		[2, { registration: 'manual' }, ['formsWtfWebhookApi']],
		[2, { registration: 'manual', authentication: 'none' }, []],
		[2, { registration: 'automatic', authentication: 'signingSecret' }, ['formsWtfApi']],
		[1, {}, ['formsWtfWebhookApi']],
		[1, { authentication: 'none' }, []],
		[1, { registration: 'automatic' }, ['formsWtfApi']],
	] as Array<[number, INodeParameters, string[]]>)(
		'version %i with %j asks only for %j',
		(typeVersion, set, expected) => {
			expect(credentialsAskedFor(typeVersion, set)).toEqual(expected);
		},
	);

	it('a new node (version 2) is Automatic, with Registration, the forms and the output in its panel', () => {
		expect(resolvedParameters(2, {}).registration).toBe('automatic');
		expect(shownParameters(2, {})).toEqual(
			expect.arrayContaining(['registration', 'automaticNotice', 'forms', 'output']),
		);
		expect(shownParameters(2, {})).not.toContain('authentication');
	});

	it('a saved version 1 node stays Manual, with its setup steps and Signature Verification', () => {
		expect(resolvedParameters(1, {}).registration).toBe('manual');
		expect(shownParameters(1, {})).toEqual(
			expect.arrayContaining(['registration', 'setupNotice', 'authentication', 'options']),
		);
		expect(shownParameters(1, {})).not.toContain('forms');
	});
});
