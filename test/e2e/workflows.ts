/**
 * What the end-to-end suites import into n8n and check afterwards: the local credentials, the
 * workflow that runs every operation of the action node, and the checks of its run data.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import type { RawRunData } from './n8nInstance';
import { check } from './report';

export const PACKAGE = 'n8n-nodes-formswtf';

export type Items = Array<{ json: IDataObject; binary?: Record<string, IDataObject> }>;

export function outputOf(run: RawRunData | undefined, node: string): Items {
	const runs = run?.data?.resultData?.runData?.[node];
	return (runs?.[runs.length - 1]?.data?.main?.[0] ?? []) as Items;
}

export const CRED_TEAM = { id: 'fwtfE2eCredTeam01', name: 'Forms.wtf (local, Team)' };
export const CRED_BUSINESS = { id: 'fwtfE2eCredBiz001', name: 'Forms.wtf (local, Business)' };

/** The credentials for `n8n import:credentials`: a Team key and a Business key of the local API. */
export function localCredentials(harness: RunningHarness): IDataObject[] {
	return [
		{
			...CRED_TEAM,
			type: 'formsWtfApi',
			data: { apiKey: harness.keys.team, baseUrl: harness.baseUrl },
		},
		{
			...CRED_BUSINESS,
			type: 'formsWtfApi',
			data: { apiKey: harness.keys.business, baseUrl: `${harness.baseUrl}/` },
		},
	];
}

export function actionWorkflow(formId: string, largeId: string): IDataObject {
	const node = (name: string, y: number, parameters: IDataObject, extra: IDataObject = {}) => ({
		id: `node-${name.replace(/\W+/g, '-').toLowerCase()}`,
		name,
		type: `${PACKAGE}.formsWtf`,
		typeVersion: 1,
		position: [300, y],
		parameters,
		credentials: { formsWtfApi: CRED_TEAM },
		...extra,
	});
	const byId = (id: string) => ({ __rl: true, mode: 'id', value: id });
	const nodes = [
		{
			id: 'node-start',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		node('List forms', 0, { resource: 'form', operation: 'getAll' }),
		node('Get form', 150, { resource: 'form', operation: 'get', formId: byId(formId) }),
		node('All responses', 300, {
			resource: 'response',
			operation: 'getAll',
			formId: byId(largeId),
			returnAll: true,
		}),
		node('Export CSV', 450, { resource: 'response', operation: 'export', formId: byId(formId) }),
		node(
			'Export Merkle',
			600,
			{ resource: 'response', operation: 'export', formId: byId(formId), format: 'merkle' },
			{
				credentials: { formsWtfApi: CRED_BUSINESS },
			},
		),
		node(
			'Missing form',
			750,
			{ resource: 'form', operation: 'get', formId: byId('no-such-form') },
			{ onError: 'continueRegularOutput' },
		),
	];
	const targets = nodes.slice(1).map((n) => ({ node: n.name, type: 'main', index: 0 }));
	return {
		id: 'fwtfE2eActions01',
		name: 'Forms.wtf e2e: every operation',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes,
		connections: { Start: { main: [targets] } },
	};
}

/**
 * Checks the run data of `actionWorkflow(form.id, large.id)`, each check named after `label`:
 * every operation's output as the local API's data says it must be.
 */
export async function checkActionRun(
	label: string,
	run: RawRunData | undefined,
	harness: RunningHarness,
	form: { title: string },
	large: { responseCount: number },
): Promise<void> {
	const own = (await harness.control.listForms()).filter((candidate) => candidate.owner === 'demo');
	check(
		`${label}: List Forms`,
		outputOf(run, 'List forms').length === own.length,
		`${outputOf(run, 'List forms').length} forms`,
	);
	check(`${label}: Get Form`, outputOf(run, 'Get form')[0]?.json.title === form.title);
	const all = outputOf(run, 'All responses');
	check(
		`${label}: Get Responses, Return All`,
		all.length === large.responseCount &&
			new Set(all.map((item) => item.json.id)).size === large.responseCount,
		`${all.length} responses`,
	);
	const csv = outputOf(run, 'Export CSV')[0];
	check(
		`${label}: Export CSV to binary`,
		csv?.binary?.data?.mimeType === 'text/csv' &&
			/-responses\.csv$/.test(String(csv?.json.fileName)),
		String(csv?.json.fileName),
	);
	const merkle = outputOf(run, 'Export Merkle')[0];
	check(
		`${label}: Export Merkle (Business key)`,
		merkle?.binary?.data !== undefined,
		String(merkle?.json.fileName),
	);
	const missing = outputOf(run, 'Missing form')[0];
	check(
		`${label}: Continue On Fail error item`,
		missing?.json.error === 'Form "no-such-form" was not found',
		String(missing?.json.error),
	);
	check(
		`${label}: the API key appears in no output`,
		!JSON.stringify(run).includes(harness.keys.team),
	);
}
