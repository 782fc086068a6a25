/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The action node's operations that change things in Forms.wtf, clicked through in n8n's editor
 * (called from the editor suite's walk, editor.ts, with the action node's panel open): a form
 * created, updated (a new title and its questions), published and unpublished; a webhook created
 * on it, listed and deleted; the form deleted. Each step is one `Editor.runOperation` (Resource,
 * Operation, the fields, Execute step), checked against what the local API holds afterwards.
 */
import type { RunningHarness } from '../harness';
import type { Editor } from './editor';
import { check, log } from './report';

export interface ManageWalk {
	ui: Editor;
	harness: RunningHarness;
	/** Runs one part of the walk; false when it stopped (editor.ts reports it). */
	part: (name: string, body: () => Promise<void>) => Promise<boolean>;
	screenshot: (name: string) => Promise<void>;
	label: (text: string) => string;
}

const TITLE = 'Team Retro';
const NEW_TITLE = 'Team Retro, Q4';
const QUESTIONS = [
	{ type: 'SHORT_TEXT', label: 'What went well?', required: true, order: 0 },
	{ type: 'LONG_TEXT', label: 'What should we change?', required: false, order: 1 },
];
/** Nothing listens there: no response is submitted to the form while the webhook exists. */
const HOOK_URL = 'http://127.0.0.1:9/editor-walk/hook';
const HOOK_SECRET = 'whsec_editor_walk_51f0';
const OTHER_URL = 'http://127.0.0.1:9/editor-walk/made-in-forms-wtf';
const OTHER_SECRET = 'whsec_made_elsewhere_93ab';

/** Output text, short enough for a report line. */
const shown = (output: string) => output.slice(0, 240);

/** A form as the local API answers GET /forms/:id, as far as the checks read it. */
interface ApiForm {
	title: string;
	published: boolean;
	questions: Array<{ type: string; label: string }>;
}

/** The form as the local API holds it, or undefined once it is gone. */
async function formInApi(harness: RunningHarness, id: string): Promise<ApiForm | undefined> {
	const response = await fetch(`${harness.baseUrl}/forms/${encodeURIComponent(id)}`, {
		headers: { Authorization: `Bearer ${harness.keys.team}` },
	});
	if (response.status === 404) return undefined;
	return (await response.json()) as ApiForm;
}

/** The webhooks the local API holds for a form, whoever made them. */
async function webhooksOf(harness: RunningHarness, formId: string) {
	return (await harness.control.webhooks()).webhooks.filter((hook) => hook.formId === formId);
}

/** Form → Create, then Update (By ID: a new title and the questions); resolves with the form's ID. */
async function createAndUpdate(walk: ManageWalk): Promise<string> {
	const { ui, harness, label } = walk;
	const created = await ui.runOperation(
		'Form',
		'Create',
		(output) => output.includes(TITLE),
		() => ui.fill('title', TITLE),
	);
	const form = (await harness.control.listForms()).find((candidate) => candidate.title === TITLE);
	await walk.screenshot('form-create-executed');
	check(
		label('Form → Create: a title typed, Execute step; the API holds the new form, unpublished'),
		form !== undefined && !form.published && created.includes(form.id),
		`${form ? `${form.id}, published ${form.published}` : 'no such form'}; ${shown(created)}`,
	);
	if (!form) throw new Error(`Form → Create made no form "${TITLE}"`);

	const updated = await ui.runOperation(
		'Form',
		'Update',
		(output) => output.includes(NEW_TITLE),
		async () => {
			await ui.formById(form.id);
			await ui.addField('Title');
			await ui.fill('title', NEW_TITLE);
			await ui.addField('Questions');
			await ui.fillJson('questions', JSON.stringify(QUESTIONS));
		},
	);
	const held = await formInApi(harness, form.id);
	await walk.screenshot('form-update-executed');
	check(
		label('Form → Update: the form By ID, a new title and a questions JSON; the API holds both'),
		held?.title === NEW_TITLE &&
			JSON.stringify(held.questions.map(({ type, label: text }) => [type, text])) ===
				JSON.stringify(QUESTIONS.map(({ type, label: text }) => [type, text])) &&
			updated.includes(QUESTIONS[1].label),
		`${JSON.stringify(held && { title: held.title, questions: held.questions.map((q) => q.label) })}; ${shown(updated)}`,
	);
	return form.id;
}

/** Form → Publish, then Unpublish: the form's published state in the API after each. */
async function publishAndUnpublish(walk: ManageWalk, formId: string): Promise<void> {
	const { ui, harness, label } = walk;
	const steps = [
		{ operation: 'Publish', published: true },
		{ operation: 'Unpublish', published: false },
	];
	const results: Array<{ operation: string; inApi?: boolean; shown: boolean }> = [];
	for (const { operation, published } of steps) {
		const state = `"published": ${published}`;
		const output = await ui.runOperation('Form', operation, (text) => text.includes(state));
		const held = await formInApi(harness, formId);
		results.push({
			operation,
			inApi: held?.published,
			shown: output.includes(state) && output.includes(formId),
		});
	}
	await walk.screenshot('form-unpublish-executed');
	check(
		label('Form → Publish, then Unpublish: the API holds the form published, then unpublished'),
		results.every((result, i) => result.inApi === steps[i].published && result.shown),
		JSON.stringify(results),
	);
}

/** Webhook → Create on the form: a URL and a secret; the API holds it, signed, the output shows no secret. */
async function createWebhook(walk: ManageWalk, formId: string): Promise<string> {
	const { ui, harness, label } = walk;
	const output = await ui.runOperation(
		'Webhook',
		'Create',
		(text) => text.includes(HOOK_URL),
		async () => {
			await ui.formById(formId);
			await ui.fill('url', HOOK_URL);
			await ui.fill('secret', HOOK_SECRET);
		},
	);
	const hooks = await webhooksOf(harness, formId);
	await walk.screenshot('webhook-create-executed');
	check(
		label(
			'Webhook → Create: a URL on 127.0.0.1 and a secret; the API holds one signed webhook there',
		),
		hooks.length === 1 &&
			hooks[0].url === HOOK_URL &&
			hooks[0].signed &&
			hooks[0].enabled &&
			output.includes(hooks[0].apiId) &&
			!output.includes(HOOK_SECRET),
		`${JSON.stringify(hooks.map(({ apiId, url, signed, enabled }) => ({ apiId, url, signed, enabled })))}; ${shown(output)}`,
	);
	if (hooks.length !== 1) throw new Error(`Webhook → Create left ${hooks.length} webhooks`);
	return hooks[0].apiId;
}

/**
 * Webhook → Get Many, then Delete ours. A second webhook, made in Forms.wtf (the control API
 * stands for its form builder), makes the list differ from Create's output, and has to stay.
 */
async function listAndDeleteWebhook(walk: ManageWalk, formId: string, ours: string): Promise<void> {
	const { ui, harness, label } = walk;
	const other = await harness.control.addWebhook({ formId, url: OTHER_URL, secret: OTHER_SECRET });
	const listed = await ui.runOperation('Webhook', 'Get Many', (text) => text.includes(OTHER_URL));
	const count = await ui.itemCount();
	await walk.screenshot('webhook-get-many-executed');
	check(
		label(
			'Webhook → Get Many: both webhooks of the form listed (2 items), no secret in the output',
		),
		count === '2 items' &&
			[ours, other.apiId, HOOK_URL, OTHER_URL].every((text) => listed.includes(text)) &&
			![HOOK_SECRET, OTHER_SECRET].some((secret) => listed.includes(secret)),
		`${count}; ${shown(listed)}`,
	);

	const deleted = await ui.runOperation(
		'Webhook',
		'Delete',
		(text) => text.includes('"deleted": true'),
		() => ui.fill('webhookId', ours),
	);
	const left = (await webhooksOf(harness, formId)).map((hook) => hook.apiId);
	await walk.screenshot('webhook-delete-executed');
	check(
		label('Webhook → Delete: ours is gone from the API, the one made in Forms.wtf stays'),
		JSON.stringify(left) === JSON.stringify([other.apiId]) && deleted.includes(ours),
		`left ${left.join(', ') || 'none'}; ${shown(deleted)}`,
	);
}

/** Form → Delete: the panel says the responses go with the form; the form is gone from the API. */
async function deleteForm(walk: ManageWalk, formId: string, webhookId: string): Promise<void> {
	const { ui, harness, label } = walk;
	let notice = false;
	const output = await ui.runOperation(
		'Form',
		'Delete',
		// Webhook → Delete's output names the webhook; this one does not.
		(text) => text.includes('"deleted": true') && !text.includes(webhookId),
		async () => {
			notice = await ui
				.byId('node-parameters')
				.getByText('Deleting a form deletes all its responses with it')
				.isVisible();
			await ui.formById(formId);
		},
	);
	const gone = (await formInApi(harness, formId)) === undefined;
	const hooksLeft = (await webhooksOf(harness, formId)).length;
	await walk.screenshot('form-delete-executed');
	check(
		label(
			'Form → Delete: the panel says its responses go with it; the form (and its webhook) is gone from the API',
		),
		notice && gone && hooksLeft === 0 && output.includes(formId),
		`notice ${notice ? 'shown' : 'not shown'}; form ${gone ? 'gone' : 'still there'}, ${hooksLeft} webhook(s) left; ${shown(output)}`,
	);
}

/** The walk's parts for Form → Create … Delete and Webhook → Create, Get Many, Delete, in order. */
export async function manageFormsAndWebhooks(walk: ManageWalk): Promise<void> {
	const started = Date.now();
	let formId = '';
	let webhookId = '';
	if (
		!(await walk.part('action node, Form → Create and Update', async () => {
			formId = await createAndUpdate(walk);
		}))
	)
		return;
	await walk.part('action node, Form → Publish and Unpublish', () =>
		publishAndUnpublish(walk, formId),
	);
	if (
		await walk.part('action node, Webhook → Create', async () => {
			webhookId = await createWebhook(walk, formId);
		})
	)
		await walk.part('action node, Webhook → Get Many and Delete', () =>
			listAndDeleteWebhook(walk, formId, webhookId),
		);
	await walk.part('action node, Form → Delete', () => deleteForm(walk, formId, webhookId || '-'));
	log(`the Form and Webhook operations took ${Math.round((Date.now() - started) / 1000)} s`);
}
