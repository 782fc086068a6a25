/* eslint-disable
	@n8n/community-nodes/no-hardcoded-secrets
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The Webhook Trigger in n8n's editor (called from the editor suite's walk, editor.ts): added
 * from the node creator (version 2: Registration Automatic, with the API credential), switched to
 * Registration Manual in its panel, its secret saved in its own credential, the test URL in its
 * panel, and "Listen for test event" receiving a response the local API sends to the test URL,
 * signed.
 */
import type { Page } from 'playwright-core';

import type { RunningHarness } from '../harness';
import { check, waitUntil } from './report';

const SECRET = 'whsec_editor_7e2d';
const NODE_NAME = 'Forms.wtf Webhook Trigger';

/** The credential fields in the node's panel, with what each shows. */
async function credentialSlots(page: Page): Promise<{ count: number; text: string }> {
	const slots = page.getByTestId('node-credentials-select').filter({ visible: true });
	const texts = await page.getByTestId('node-credentials-slot').allInnerTexts();
	return { count: await slots.count(), text: texts.join(' | ').replace(/\s+/g, ' ') };
}

/**
 * Registration in the panel: Automatic by default (the forms to watch, the API credential),
 * switched to Manual (the setup steps and Signature Verification; the forms list and the API
 * credential gone, the secret's credential asked for).
 */
async function checkRegistration(
	page: Page,
	label: (text: string) => string,
	screenshot: (name: string) => Promise<void>,
): Promise<void> {
	const parameters = page.getByTestId('node-parameters');
	const registration = page.getByTestId('parameter-input-registration');
	await registration.waitFor({ timeout: 10_000 });
	const automatic = {
		registration: await registration.locator('input').first().inputValue(),
		forms: await page.getByTestId('parameter-input-forms').isVisible(),
		credentials: await credentialSlots(page),
	};
	await screenshot('webhook-trigger-automatic');
	check(
		label(
			'webhook trigger: the panel shows Registration, Automatic for a new node, with the forms to watch and the API credential',
		),
		automatic.registration === 'Automatic' &&
			automatic.forms &&
			automatic.credentials.count === 1 &&
			/for Forms\.wtf API\b/.test(automatic.credentials.text),
		JSON.stringify(automatic),
	);
	await registration.click();
	await page
		.getByRole('option')
		.filter({ visible: true })
		.filter({ has: page.getByText('Manual', { exact: true }) })
		.first()
		.click();
	await parameters.getByText('Settings → Webhooks → Add Webhook', { exact: false }).waitFor();
	const manual = {
		registration: await registration.locator('input').first().inputValue(),
		verification: await page
			.getByTestId('parameter-input-authentication')
			.locator('input')
			.first()
			.inputValue(),
		forms: await page.getByTestId('parameter-input-forms').isVisible(),
	};
	check(
		label(
			'webhook trigger: switched to Manual, the panel shows the setup steps and Signature Verification (Signing Secret), not the forms list',
		),
		manual.registration === 'Manual' && manual.verification === 'Signing Secret' && !manual.forms,
		JSON.stringify(manual),
	);
}

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
	// A community trigger without actions opens its details in the node creator first.
	const parameters = byId('node-parameters');
	const credentialModal = byId('editCredential-modal');
	const addToWorkflow = byId('node-creator').getByRole('button', { name: 'Add to workflow' });
	await parameters.or(credentialModal).or(addToWorkflow).first().waitFor();
	if (await addToWorkflow.isVisible()) await addToWorkflow.click();

	// A new node is version 2, Registration Automatic, which asks for the API credential: n8n
	// picks the walk's existing one, or opens its dialog, closed here.
	await credentialModal.waitFor({ timeout: 3_000 }).catch(() => undefined);
	if (await credentialModal.getByTestId('parameter-input-apiKey').isVisible())
		await credentialModal.locator('.el-dialog__headerbtn, .el-dialog__close').first().click();
	await parameters.waitFor();
	await checkRegistration(page, label, screenshot);

	// The secret's credential: n8n opens its dialog for a new node, or it is made from the slot.
	// A password field for the secret; n8n's Save runs the node's local test.
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
			'webhook trigger: the signing secret is a password field, and the credential saves (its test runs locally)',
		),
		secretType === 'password' && !/Couldn’t connect/.test(credentialText),
		`type=${secretType}${credentialText ? `; ${credentialText.replace(/\s*\n\s*/g, ' ').slice(0, 200)}` : '; the dialog closed'}`,
	);
	if (await credentialModal.isVisible())
		await credentialModal.locator('.el-dialog__headerbtn, .el-dialog__close').first().click();
	await credentialModal.waitFor({ state: 'hidden' });
	const slots = await credentialSlots(page);
	check(
		label('webhook trigger: with Manual the node has one credential, the secret’s, and no API key'),
		slots.count === 1 &&
			/for Forms\.wtf Webhook API/.test(slots.text) &&
			!/for Forms\.wtf API\b/.test(slots.text),
		JSON.stringify(slots),
	);

	// The URLs n8n shows for the node (Test URL first; Production URL behind a toggle).
	const parametersText = async () => await parameters.innerText();
	await parameters.getByText('Webhook URLs', { exact: true }).click();
	await waitUntil(
		async () => (await parametersText()).includes('/webhook-test/'),
		10_000,
		'the test URL in the panel',
	).catch(() => undefined);
	const shownTest = /\/webhook-test\/\S+\/formswtf/.exec(await parametersText())?.[0];
	const production = parameters.getByText('Production URL', { exact: true });
	if (await production.isVisible()) await production.click();
	const shownProduction = /\/webhook\/\S+\/formswtf/.exec(await parametersText())?.[0];
	await screenshot('webhook-trigger-urls');
	check(
		label('webhook trigger: its panel shows the setup steps, the Test URL and the Production URL'),
		/Settings → Webhooks → Add Webhook/.test(await parametersText()) &&
			shownTest !== undefined &&
			shownProduction !== undefined &&
			shownTest.replace('/webhook-test/', '/webhook/') === shownProduction,
		`${shownTest ?? 'no test URL'}; ${shownProduction ?? 'no production URL'}`,
	);
	if (!shownTest) throw new Error('no test URL shown');
	// n8n names the host it was told of; the harness posts to the address n8n listens on.
	const testUrl = `${new URL(page.url()).origin}${shownTest}`;
	await byId('node-execute-button').first().click();

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
