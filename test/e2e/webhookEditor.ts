/**
 * The Webhook Trigger in n8n's editor (called from the editor suite's walk, editor.ts): added
 * from the node creator, its secret saved in its own credential, the test URL in its panel, and
 * "Listen for test event" receiving a response the local API sends to the test URL, signed.
 */
import type { Page } from 'playwright-core';

import type { RunningHarness } from '../harness';
import { check, waitUntil } from './report';

const SECRET = 'whsec_editor_7e2d';
const NODE_NAME = 'Forms.wtf Webhook Trigger';

export async function listenForWebhookTestEvent(
	page: Page,
	harness: RunningHarness,
	label: (text: string) => string,
	screenshot: (name: string) => Promise<void>,
): Promise<void> {
	const byId = (id: string) => page.getByTestId(id);
	await page.goto('/workflow/new');
	await byId('canvas-add-button').or(byId('node-creator-plus-button')).first().click();
	await byId('node-creator-search-bar').fill('forms.wtf webhook');
	const item = byId('node-creator')
		.getByTestId('item-iterator-item')
		.filter({ hasText: NODE_NAME });
	await item.first().click();
	// A trigger with one action may still show its panel of actions first.
	const parameters = byId('node-parameters');
	const credentialModal = byId('editCredential-modal');
	await parameters
		.or(credentialModal)
		.or(byId('node-creator').getByTestId('item-iterator-item'))
		.first()
		.waitFor();
	if (!(await parameters.isVisible()) && !(await credentialModal.isVisible()))
		await byId('node-creator').getByTestId('item-iterator-item').first().click();

	// The credential: a password field for the secret; n8n's Save runs the node's local test.
	const opened = await credentialModal.waitFor({ timeout: 5_000 }).then(
		() => true,
		() => false,
	);
	if (!opened) {
		const slot = byId('node-credentials-slot');
		const select = slot.getByTestId('node-credentials-select');
		if (await select.isVisible()) {
			await select.click();
			await byId('node-credentials-select-item-new').click();
		} else await slot.getByRole('button').first().click();
		await credentialModal.waitFor();
	}
	const secretInput = credentialModal.getByTestId('parameter-input-secret').locator('input');
	const secretType = await secretInput.getAttribute('type');
	await secretInput.fill(SECRET);
	await credentialModal.getByTestId('credential-save-button').click();
	await credentialModal
		.getByTestId('credentials-config-container-test-success')
		.or(credentialModal.getByText('Couldn’t connect with these settings'))
		.first()
		.waitFor({ timeout: 10_000 })
		.catch(() => undefined);
	const credentialText = (await credentialModal.isVisible())
		? await credentialModal.innerText()
		: '';
	await screenshot('webhook-trigger-credential');
	check(
		label(
			'webhook trigger: the signing secret is a password field, and saving it says it cannot be checked against Forms.wtf',
		),
		secretType === 'password' && !/Couldn’t connect/.test(credentialText),
		`type=${secretType}${credentialText ? `; ${credentialText.replace(/\s*\n\s*/g, ' ').slice(0, 200)}` : '; the dialog closed'}`,
	);
	if (await credentialModal.isVisible())
		await credentialModal.locator('.el-dialog__headerbtn, .el-dialog__close').first().click();

	// Listen for test event: n8n sends the workflow to run, with the node's webhook id in it.
	const runRequest = page.waitForRequest(
		(request) => request.method() === 'POST' && /\/rest\/workflows\/[^/]+\/run/.test(request.url()),
	);
	await byId('node-execute-button').first().click();
	const webhookId = /"webhookId"\s*:\s*"([^"]+)"/.exec((await runRequest).postData() ?? '')?.[1];
	if (!webhookId) throw new Error('the run request carried no webhookId');
	const origin = new URL(page.url()).origin;
	const testUrl = `${origin}/webhook-test/${webhookId}/formswtf`;
	const panelText = await page.locator('body').innerText();
	check(
		label('webhook trigger: its panel shows the setup steps and, while listening, the test URL'),
		/Settings → Webhooks → Add Webhook/.test(panelText) &&
			panelText.includes(`/webhook-test/${webhookId}/formswtf`),
		panelText.includes(testUrl) ? testUrl : `${testUrl} not shown`,
	);

	const form = await harness.control.form('feedback');
	await harness.control.addWebhook({ formId: form.id, url: testUrl, secret: SECRET });
	try {
		// The test webhook is registered once the run request was answered; a first delivery that
		// comes too early is lost, as Forms.wtf's would be.
		await page.waitForTimeout(1_000);
		const [response] = await harness.control.submitResponses(form.id, [{}]);
		const output = byId('output-panel');
		await waitUntil(
			async () => (await output.innerText().catch(() => '')).includes(response.id),
			20_000,
			'the response in the output panel',
		).catch(() => undefined);
		const shown = await output.innerText().catch(() => '');
		const deliveries = (await harness.control.webhooks()).deliveries;
		await screenshot('webhook-trigger-test-event');
		check(
			label(
				'webhook trigger: "Listen for test event" receives a response the API sends to the test URL',
			),
			shown.includes(response.id),
			`delivery answered ${deliveries.map((d) => d.status ?? d.error).join(', ')}; response ${response.id} ${shown.includes(response.id) ? 'shown' : 'not shown'}`,
		);
	} finally {
		await harness.control.clearWebhooks();
	}
}
