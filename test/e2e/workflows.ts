/**
 * What the end-to-end suites import into n8n and check afterwards: the local credentials, the
 * workflow that runs every operation of the action node, and the checks of its run data.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunningHarness } from '../harness';
import type { RawRunData } from './n8nInstance';
import { check } from './report';

/** The large form of the local API every suite runs against: its responses, read beside the others. */
export const LARGE_FORM = 3_000;
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
	// A form's life, one step after the other: each step works on what the one before made.
	const made = `={{ $('${MANAGE.create}').item.json.id }}`;
	const chain = [
		node(MANAGE.create, 900, { resource: 'form', operation: 'create', title: E2E_FORM_TITLE }),
		node(MANAGE.update, 1050, {
			resource: 'form',
			operation: 'update',
			formId: byId(made),
			updateFields: {
				title: `${E2E_FORM_TITLE} (renamed)`,
				questions: '[{ "type": "SHORT_TEXT", "label": "Your name?", "required": true }]',
			},
		}),
		node(MANAGE.publish, 1200, { resource: 'form', operation: 'publish', formId: byId(made) }),
		node(MANAGE.unpublish, 1350, { resource: 'form', operation: 'unpublish', formId: byId(made) }),
		node(MANAGE.createWebhook, 1500, {
			resource: 'webhook',
			operation: 'create',
			formId: byId(made),
			url: E2E_WEBHOOK_URL,
			secret: E2E_RECEIVER_WORDS,
		}),
		node(MANAGE.webhooks, 1650, { resource: 'webhook', operation: 'getAll', formId: byId(made) }),
		node(MANAGE.deleteWebhook, 1800, {
			resource: 'webhook',
			operation: 'delete',
			formId: byId(made),
			webhookId: `={{ $('${MANAGE.createWebhook}').item.json.id }}`,
		}),
		node(MANAGE.delete, 1950, { resource: 'form', operation: 'delete', formId: byId(made) }),
	];
	const connections: IDataObject = {
		Start: { main: [[...targets, { node: MANAGE.account, type: 'main', index: 0 }]] },
		[MANAGE.account]: { main: [[{ node: chain[0].name, type: 'main', index: 0 }]] },
	};
	for (const [i, step] of chain.slice(0, -1).entries())
		connections[step.name] = { main: [[{ node: chain[i + 1].name, type: 'main', index: 0 }]] };
	return {
		id: 'fwtfE2eActions01',
		name: 'Forms.wtf e2e: every operation',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			...nodes,
			node(MANAGE.account, 850, { resource: 'account', operation: 'get' }),
			...chain,
		],
		connections,
	};
}

/** The nodes of the action workflow that manage a form and its webhook. */
const MANAGE = {
	account: 'Account',
	create: 'Create form',
	update: 'Update form',
	publish: 'Publish form',
	unpublish: 'Unpublish form',
	createWebhook: 'Create webhook',
	webhooks: 'Webhooks of the form',
	deleteWebhook: 'Delete webhook',
	delete: 'Delete form',
} as const;
const E2E_FORM_TITLE = 'Made by the e2e workflow';
/** Nothing is submitted to the form the webhook is made for: it never calls this address. */
const E2E_WEBHOOK_URL = 'http://127.0.0.1:9/never-called';
const E2E_RECEIVER_WORDS = 'words-the-receiver-checks-e2e';

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
	await checkManageRun(label, run, harness);
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

/** A form made, changed, published and unpublished, given a webhook and deleted, all in n8n. */
async function checkManageRun(
	label: string,
	run: RawRunData | undefined,
	harness: RunningHarness,
): Promise<void> {
	const json = (node: string) => outputOf(run, node)[0]?.json ?? {};
	const created = json(MANAGE.create);
	check(
		`${label}: Account → Get`,
		json(MANAGE.account).plan === 'team',
		String(json(MANAGE.account).plan),
	);
	check(
		`${label}: Form → Create`,
		created.title === E2E_FORM_TITLE && created.published === false,
		String(created.id),
	);
	const updated = json(MANAGE.update);
	check(
		`${label}: Form → Update (title, questions)`,
		updated.title === `${E2E_FORM_TITLE} (renamed)` &&
			(updated.questions as IDataObject[] | undefined)?.[0]?.label === 'Your name?',
	);
	check(
		`${label}: Form → Publish, then Unpublish`,
		json(MANAGE.publish).published === true && json(MANAGE.unpublish).published === false,
	);
	const webhook = json(MANAGE.createWebhook);
	const listed = outputOf(run, MANAGE.webhooks).map((item) => item.json.id);
	check(
		`${label}: Webhook → Create, Get Many, Delete`,
		webhook.url === E2E_WEBHOOK_URL &&
			listed.length === 1 &&
			listed[0] === webhook.id &&
			json(MANAGE.deleteWebhook).deleted === true,
		`${listed.length} listed`,
	);
	const forms = await harness.control.listForms();
	check(
		`${label}: Form → Delete (Forms.wtf no longer has it)`,
		json(MANAGE.delete).deleted === true && !forms.some((form) => form.id === created.id),
	);
	check(
		`${label}: no webhook secret in any output`,
		!JSON.stringify(outputOf(run, MANAGE.webhooks)).includes(E2E_RECEIVER_WORDS),
	);
}
