/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The editor suite (`npm run test:editor`): what a no-code user sees and clicks in n8n's editor,
 * in headless Chromium, against n8n 2.41.1 with the packed package installed as the Community
 * Nodes panel installs it and the local Forms.wtf API behind it.
 *
 * One walk through the editor, as a person would take it: sign in, find the nodes in the node
 * creator (the trigger's actions named after what it fires on), create the credential (a revoked
 * key, a plan below Team and a wrong Base URL first), pick a form, fetch test events from the
 * trigger, set its options, switch it to Selected Forms (two forms ticked in the list loaded from
 * the API, every response since a date) and check what n8n saved, then add the action node and
 * execute its operations (Account → Get among them; a form created, updated, published,
 * unpublished and deleted, a webhook on it created, listed and deleted: editorManage.ts, each
 * checked against what the local API then holds), and add the Webhook Trigger: Registration
 * Automatic, then Manual with its secret, and "Listen for test event". Every screen is saved as a
 * PNG in .tmp/editor-screenshots/ (git-ignored), so a person can look at it after a run.
 *
 * Selectors are n8n's own `data-test-id` attributes (those its Playwright suite uses), so layout
 * changes do not break the test. The browser is Debian's `chromium`, driven by playwright-core;
 * it is installed with apt-get when missing (the machine runs as root).
 *
 * FORMSWTF_EDITOR_N8N picks another n8n 2.x version (default 2.41.1). The walk is written for
 * the 2.x editor: n8n 1.123's node creator shows no descriptions in its search results, its
 * Credential field has no "Connect to" button, and its credential dialog shows n8n's own messages
 * instead of ours, so on 1.x the suite reports that it does not apply and stops.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'fs';
import { join, resolve } from 'path';
import { chromium, selectors } from 'playwright-core';
import type { Browser, Locator, Page } from 'playwright-core';

// The ".js" keeps Node's resolver (under tsx) from picking the codex files `*.node.json`.
import { FormsWtf } from '../../nodes/FormsWtf/FormsWtf.node.js';
import { FormsWtfTrigger } from '../../nodes/FormsWtf/FormsWtfTrigger.node.js';
import type { RunningHarness } from '../harness';
import { manageFormsAndWebhooks } from './editorManage';
import { N8nInstance, OWNER } from './n8nInstance';
import { check, log, waitUntil } from './report';
import { ensureDebianPackages, freePort } from './services';
import { listenForWebhookTestEvent } from './webhookEditor';

const PACKAGE = 'n8n-nodes-formswtf';
const VERSION = process.env.FORMSWTF_EDITOR_N8N ?? '2.41.1';
const CHROMIUM = process.env.FORMSWTF_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = resolve(__dirname, '..', '..', '.tmp', 'editor-screenshots');

export interface EditorContext {
	tarball: string;
	harness: RunningHarness;
	/** Called after each screenshot with its name and the page as it is (scripts/docs-screenshots.ts). */
	onScreen?: (name: string, page: Page) => Promise<void>;
}

/** Numbered screenshots of the whole window, in the order they were taken. */
class Screenshots {
	private count = 0;

	constructor(
		private readonly page: Page,
		readonly dir: string,
		private readonly onScreen?: EditorContext['onScreen'],
	) {
		mkdirSync(dir, { recursive: true });
		for (const file of readdirSync(dir)) if (file.endsWith('.png')) rmSync(join(dir, file));
	}

	async take(name: string): Promise<void> {
		this.count++;
		const file = `${String(this.count).padStart(2, '0')}-${name}.png`;
		await this.page.screenshot({ path: join(this.dir, file), animations: 'disabled' });
		await this.onScreen?.(name, this.page);
	}
}

/** A check's name in the report. */
const label = (text: string) => `editor (n8n ${VERSION}): ${text}`;

function firstLine(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return message.split('\n').slice(0, 3).join(' ').slice(0, 400);
}

/** The forms' names as the picker lists them: the account's own forms, unpublished ones marked. */
function pickerName(form: { title: string; published: boolean }): string {
	return form.published ? form.title : `${form.title} (unpublished)`;
}

/** The export the node should produce, fetched straight from the local API. */
async function expectedExport(
	harness: RunningHarness,
	formId: string,
): Promise<{ fileName: string; bytes: number }> {
	const response = await fetch(
		`${harness.baseUrl}/forms/${encodeURIComponent(formId)}/export?format=csv`,
		{
			headers: { Authorization: `Bearer ${harness.keys.team}` },
		},
	);
	const disposition = response.headers.get('content-disposition') ?? '';
	const fileName = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? `${formId}-responses.csv`;
	return { fileName, bytes: (await response.arrayBuffer()).byteLength };
}

/** "715 kB" → bytes (n8n shows sizes in decimal units). */
function parseSize(text: string): number | undefined {
	const match = /([\d.]+)\s*(B|kB|KB|MB|GB)\b/.exec(text);
	if (!match) return undefined;
	const unit = { B: 1, kB: 1e3, KB: 1e3, MB: 1e6, GB: 1e9 }[
		match[2] as 'B' | 'kB' | 'KB' | 'MB' | 'GB'
	];
	return Number(match[1]) * unit;
}

/** A workflow as n8n stores it, as far as the checks read it. */
interface StoredWorkflow {
	id?: string;
	nodes?: Array<{ type?: string; typeVersion?: number; parameters?: Record<string, unknown> }>;
}

/** The trigger node of a stored workflow. */
function triggerOf(workflow: StoredWorkflow | undefined) {
	return workflow?.nodes?.find((node) => node.type === `${PACKAGE}.formsWtfTrigger`);
}

/** A workflow read from n8n's database with `n8n export:workflow`, or undefined. */
async function storedWorkflow(
	instance: N8nInstance,
	id: string,
): Promise<StoredWorkflow | undefined> {
	const file = join(instance.userFolder, `export-${id}-${Date.now()}.json`);
	const result = await instance.cli(['export:workflow', `--id=${id}`, `--output=${file}`]);
	if (result.code !== 0 || !existsSync(file))
		throw new Error(`n8n export:workflow failed: ${(result.stderr || result.stdout).slice(-400)}`);
	const exported = JSON.parse(readFileSync(file, 'utf8')) as StoredWorkflow | StoredWorkflow[];
	rmSync(file, { force: true });
	return Array.isArray(exported) ? exported[0] : exported;
}

/** What the suite clicks: n8n's editor, found by its data-test-id attributes. */
export class Editor {
	/** What n8n answered to each save of the workflow (POST or PATCH /rest/workflows[/id]), in order. */
	private readonly saves: StoredWorkflow[] = [];

	constructor(
		readonly page: Page,
		private readonly readStored: (id: string) => Promise<StoredWorkflow | undefined>,
	) {
		page.on('response', (response) => {
			const { pathname } = new URL(response.url());
			if (
				!['POST', 'PATCH', 'PUT'].includes(response.request().method()) ||
				!/^\/rest\/workflows(\/[^/]+)?$/.test(pathname)
			)
				return;
			response.json().then(
				(body: { data?: StoredWorkflow }) => body.data && this.saves.push(body.data),
				() => undefined,
			);
		});
	}

	/**
	 * The workflow as n8n stored it. n8n 2.41 saves a workflow by itself a moment after each change
	 * (autosave; N8N_WORKFLOWS_AUTOSAVE_DISABLED turns it off); without autosave the editor shows a
	 * Save button, which this clicks. Waits (20 s at most) for a save that n8n answered with
	 * `ready` true, then reads the workflow from n8n's database (`n8n export:workflow`), so the
	 * checks see what was stored rather than what the editor shows.
	 */
	async savedWorkflow(
		ready: (workflow: StoredWorkflow) => boolean,
	): Promise<{ workflow?: StoredWorkflow; detail: string }> {
		const save = this.byId('workflow-save-button');
		if ((await save.isVisible()) && (await save.isEnabled())) await save.click();
		const answered = () => [...this.saves].reverse().find(ready);
		await waitUntil(async () => answered() !== undefined, 10_000, 'an autosave').catch(async () => {
			// Neither an autosave nor a Save button: the keyboard shortcut.
			await this.page.keyboard.press('Control+s');
			await waitUntil(async () => answered() !== undefined, 10_000, 'a save').catch(
				() => undefined,
			);
		});
		const fromUrl = /\/workflow\/([^/?#]+)/.exec(this.page.url())?.[1];
		const id = answered()?.id ?? this.saves.at(-1)?.id ?? (fromUrl === 'new' ? undefined : fromUrl);
		if (!id)
			return { detail: `not saved (${this.saves.length} saves seen, at ${this.page.url()})` };
		return {
			workflow: await this.readStored(id),
			detail: `workflow ${id} as stored, after ${this.saves.length} save(s) in the editor`,
		};
	}

	byId(id: string): Locator {
		return this.page.getByTestId(id);
	}

	get creator(): Locator {
		return this.byId('node-creator');
	}

	creatorItem(text: string): Locator {
		return this.creator.getByTestId('item-iterator-item').filter({ hasText: text }).first();
	}

	get credentialModal(): Locator {
		return this.byId('editCredential-modal');
	}

	parameter(name: string): Locator {
		return this.byId(`parameter-input-${name}`);
	}

	get formPicker(): Locator {
		return this.byId('resource-locator-formId');
	}

	get output(): Locator {
		return this.byId('output-panel');
	}

	async signIn(): Promise<void> {
		await this.page.goto('/signin');
		await this.byId('emailOrLdapLoginId').locator('input').fill(OWNER.email);
		await this.byId('password').locator('input').fill(OWNER.password);
		await this.byId('form-submit-button').click();
		await this.page.waitForURL(/\/(home|workflows?)\b/);
	}

	async searchNodes(text: string): Promise<void> {
		if (!(await this.creator.isVisible())) {
			await this.byId('canvas-add-button')
				.or(this.byId('node-creator-plus-button'))
				.first()
				.click();
		}
		await this.byId('node-creator-search-bar').fill(text);
	}

	/** Text of the items the node creator lists now (names and descriptions). */
	async creatorItems(): Promise<string[]> {
		return await this.creator.getByTestId('item-iterator-item').allInnerTexts();
	}

	/** The icons in the node creator: their sources, and whether each one loaded. */
	async creatorIcons(): Promise<Array<{ src: string; loaded: boolean }>> {
		return await this.creator.locator('img').evaluateAll((images) =>
			images.map((element) => {
				// No DOM types in this project: an <img> is read through the two properties used.
				const image = element as unknown as { complete: boolean; naturalWidth: number };
				return {
					src: element.getAttribute('src') ?? '',
					loaded: image.complete && image.naturalWidth > 0,
				};
			}),
		);
	}

	/** The options of the open dropdown, each with its description when it shows one. */
	async openOptionTexts(): Promise<string[]> {
		const options = this.page.getByRole('option').filter({ visible: true });
		await options.first().waitFor();
		return await options.allInnerTexts();
	}

	/** The names of the options of the open dropdown (their first lines). */
	async openOptions(): Promise<string[]> {
		return (await this.openOptionTexts()).map((text) => text.split('\n')[0].trim());
	}

	async chooseOption(parameter: string, option: string): Promise<void> {
		await this.parameter(parameter).click();
		await this.page
			.getByRole('option')
			.filter({ visible: true })
			.filter({ has: this.page.getByText(option, { exact: true }) })
			.first()
			.click();
	}

	async inputValue(parameter: string): Promise<string> {
		return await this.parameter(parameter).locator('input').first().inputValue();
	}

	async switchOn(parameter: string): Promise<boolean> {
		return (
			(await this.parameter(parameter).locator('[role="switch"]').getAttribute('aria-checked')) ===
			'true'
		);
	}

	/**
	 * Leaves the focused field, so n8n takes its value. n8n hands a typed value on to the workflow
	 * a moment later (debounced); a click on "Execute step" right away can run the old value.
	 */
	async blur(): Promise<void> {
		await this.byId('node-parameters').click({ position: { x: 4, y: 4 } });
		await this.page.waitForTimeout(500);
	}

	async pickerMode(mode: 'list' | 'id'): Promise<void> {
		await this.formPicker.getByTestId('rlc-mode-selector').click();
		await this.byId(`mode-${mode}`).filter({ visible: true }).click();
	}

	async openPickerList(): Promise<string[]> {
		await this.formPicker.getByTestId('rlc-input').click();
		await this.byId('rlc-item').first().waitFor();
		return await this.byId('rlc-item').allInnerTexts();
	}

	async formById(id: string): Promise<void> {
		await this.pickerMode('id');
		await this.formPicker.getByTestId('rlc-input').fill(id);
		await this.blur();
	}

	/**
	 * Execute step / Fetch Test Event, then waits (30 s at most) until the output panel shows
	 * `until`, what this run should show and the one before did not; the checks then read what
	 * is there, so a run that shows something else fails its check with what it showed.
	 */
	async executeNode(until: Locator): Promise<void> {
		await this.byId('node-execute-button').click();
		await until
			.first()
			.waitFor({ timeout: 30_000 })
			.catch(() => undefined);
	}

	/** Types into a text field of the panel (an input, or a textarea for longer text). */
	async fill(parameter: string, value: string): Promise<void> {
		await this.parameter(parameter).locator('input, textarea').first().fill(value);
	}

	/**
	 * Types into a JSON field: n8n shows it in a code editor (CodeMirror), so the text is inserted
	 * as one input over what is there; typed key by key, the editor would add closing brackets.
	 */
	async fillJson(parameter: string, value: string): Promise<void> {
		await this.parameter(parameter).locator('.cm-content').click();
		await this.page.keyboard.press('ControlOrMeta+a');
		await this.page.keyboard.insertText(value);
	}

	/** Adds a field to the first collection of the panel ("Add field" / "Add option"). */
	async addField(option: string): Promise<void> {
		// A field just typed in shows a tip below it, over the add button: leave the field first.
		await this.blur();
		await this.byId('collection-parameter-add').first().click();
		await this.byId('collection-parameter-option')
			.filter({ visible: true })
			.filter({ hasText: option })
			.first()
			.click();
	}

	/**
	 * What a user does for each of the action node's operations: picks Resource and Operation in
	 * the panel, sets the operation's fields (`fill`), presses Execute step and reads the output
	 * as JSON. Waits (30 s at most) until the output passes `fresh` (what this run shows and the
	 * one before did not: the panel keeps showing the last run until the new one is in) or shows
	 * an error; returns the output panel's text on one line, for the checks to read.
	 */
	async runOperation(
		resource: string,
		operation: string,
		fresh: (output: string) => boolean,
		fill: () => Promise<void> = async () => undefined,
	): Promise<string> {
		if ((await this.inputValue('resource')) !== resource)
			await this.chooseOption('resource', resource);
		await this.parameter('operation').waitFor();
		if ((await this.inputValue('operation')) !== operation)
			await this.chooseOption('operation', operation);
		await fill();
		await this.blur();
		await this.byId('node-execute-button').click();
		const json = this.output.getByTestId('radio-button-json');
		const error = this.output.getByTestId('node-error-message');
		// The JSON view spaces and breaks its lines its own way (no-break spaces among them).
		const output = async () => (await this.output.innerText()).replace(/\s+/g, ' ');
		await waitUntil(
			async () => {
				if (await error.isVisible()) return true;
				if (fresh(await output())) return true;
				if (await json.isVisible()) await json.click();
				return false;
			},
			30_000,
			`the output of ${resource} → ${operation}`,
		).catch(() => undefined);
		return await output();
	}

	async itemCount(): Promise<string> {
		return (await this.output.getByTestId('ndv-items-count').innerText()).trim();
	}

	/**
	 * Save in the credential dialog; resolves with what the dialog says after n8n tested the
	 * credential (the message behind "More details" included), or `closed` when n8n closed the
	 * dialog itself, as it does once a new credential's test passes. n8n 2.41 runs every regular
	 * expression (here the Base URL's plain-http warning, a display condition) in a vm with a
	 * 250 ms wall-clock limit: on a busy machine one run can miss it, and the test answers with
	 * n8n's own message. A person would click Retry; so does this, once.
	 */
	async saveCredential(): Promise<{ closed: boolean; text: string }> {
		const result = await this.saveCredentialOnce();
		if (!result.text.includes('Regular expression execution timed out')) return result;
		return await this.saveCredentialOnce();
	}

	private async saveCredentialOnce(): Promise<{ closed: boolean; text: string }> {
		const modal = this.credentialModal;
		const save = modal.getByTestId('credential-save-button');
		// On a busy machine the editor can let a click go by while it is still working: one more
		// click, then stop with what the dialog shows.
		for (let attempt = 1; ; attempt++) {
			const tested = this.page.waitForResponse(
				(response) => response.url().includes('/rest/credentials/test'),
				{ timeout: 30_000 },
			);
			await save.click();
			const error = await tested.then(
				() => undefined,
				(failure: unknown) => failure ?? new Error('no answer'),
			);
			if (error === undefined) break;
			if (attempt === 2) {
				const shown = (await modal.innerText().catch(() => '')).replace(/\s+/g, ' ');
				throw new Error(
					`n8n did not test the credential (${firstLine(error)}); the dialog: ${shown.slice(0, 300)}`,
				);
			}
		}
		const settled = modal
			.getByTestId('credentials-config-container-test-success')
			.or(modal.getByText('Couldn’t connect with these settings'));
		await Promise.race([
			settled.first().waitFor({ state: 'visible' }),
			modal.waitFor({ state: 'detached' }),
		]);
		if (!(await modal.isVisible())) return { closed: true, text: '' };
		const more = modal.getByText('More details');
		if (await more.isVisible()) await more.click();
		return { closed: false, text: await modal.innerText() };
	}

	async fillCredential(apiKey: string, baseUrl: string): Promise<void> {
		await this.credentialModal.getByTestId('parameter-input-apiKey').locator('input').fill(apiKey);
		await this.credentialModal
			.getByTestId('parameter-input-baseUrl')
			.locator('input')
			.fill(baseUrl);
	}

	async closeCredentialModal(): Promise<void> {
		if (!(await this.credentialModal.isVisible())) return;
		await this.credentialModal.locator('.el-dialog__headerbtn, .el-dialog__close').first().click();
		await this.credentialModal.waitFor({ state: 'hidden' });
	}
}

/**
 * Runs one part of the walk; a part that throws is reported as a failed check (with a screenshot
 * of where it stopped) and the walk goes on with the next part, unless `needed` says it cannot.
 */
async function part(shots: Screenshots, name: string, body: () => Promise<void>): Promise<boolean> {
	try {
		await body();
		return true;
	} catch (error) {
		await shots.take(`failed-${name.replace(/\W+/g, '-').toLowerCase()}`).catch(() => undefined);
		check(label(`${name} (stopped)`), false, firstLine(error));
		return false;
	}
}

export async function editorSuite({ tarball, harness, onScreen }: EditorContext): Promise<void> {
	const started = Date.now();
	console.log(`\neditor, n8n ${VERSION}`);
	if (Number(VERSION.split('.')[0]) < 2) {
		check(
			label('the editor suite is written for the n8n 2.x editor'),
			false,
			'set FORMSWTF_EDITOR_N8N to a 2.x version',
		);
		return;
	}
	await ensureDebianPackages([{ name: 'chromium', present: () => existsSync(CHROMIUM) }], log);
	const executablePath = CHROMIUM;
	const instance = await N8nInstance.prepare(VERSION);
	let browser: Browser | undefined;
	try {
		await instance.installPackage(tarball, PACKAGE);
		// Other suites (and other checkouts) run n8n on this machine at the same time: ports that
		// are free now, rather than ports derived from the process id.
		const port = await freePort();
		instance.env.N8N_RUNNERS_BROKER_PORT = String(await freePort());
		const base = `http://127.0.0.1:${port}`;
		const recent: string[] = [];
		instance.start(port, (line) => {
			recent.push(line.slice(0, 300));
			if (recent.length > 30) recent.shift();
			if (/formswtf|forms\.wtf/i.test(line)) log(`n8n: ${line.slice(0, 300)}`);
		});
		await instance.ownerSession(port).catch((error: unknown) => {
			throw new Error(
				`n8n did not come up on port ${port} (${firstLine(error)}); its last lines:\n${recent.join('\n')}`,
			);
		});
		const signin = await fetch(`${base}/signin`);
		const html = await signin.text();
		check(
			label('the editor is served (GET /signin is the editor page, not the REST API alone)'),
			signin.ok &&
				(signin.headers.get('content-type') ?? '').includes('text/html') &&
				/<script[^>]+src=/.test(html),
			`${signin.status} ${signin.headers.get('content-type')}`,
		);

		selectors.setTestIdAttribute('data-test-id');
		browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
		const context = await browser.newContext({
			baseURL: base,
			viewport: { width: 1440, height: 900 },
		});
		const page = await context.newPage();
		page.setDefaultTimeout(20_000);
		const ui = new Editor(page, async (id) => await storedWorkflow(instance, id));
		const shots = new Screenshots(page, SCREENSHOT_DIR, onScreen);
		log(`screenshots: ${SCREENSHOT_DIR}`);
		await walk(ui, shots, harness);
	} finally {
		await browser?.close().catch(() => undefined);
		await instance.dispose();
		log(`editor suite took ${Math.round((Date.now() - started) / 1000)} s`);
	}
}

async function walk(ui: Editor, shots: Screenshots, harness: RunningHarness): Promise<void> {
	const { page } = ui;
	const signedIn = await part(shots, 'sign in', async () => {
		await ui.signIn();
		check(label('a person can sign in to the editor'), true, page.url());
	});
	if (!signedIn) return;

	const forms = await harness.control.listForms();
	const own = forms.filter((form) => form.owner === 'demo');
	const feedback = await harness.control.form('feedback');
	const empty = await harness.control.form('rsvp');

	// The node creator: typing "forms" finds the package; its panel shows the trigger and actions.
	const found = await part(shots, 'node creator', async () => {
		await page.goto('/workflow/new');
		await ui.searchNodes('forms');
		await ui.creatorItem('Forms.wtf').waitFor();
		const items = await ui.creatorItems();
		const ours = items.find((item) => item.startsWith('Forms.wtf'));
		const icons = await ui.creatorIcons();
		const descriptions = [
			new FormsWtfTrigger().description.description,
			new FormsWtf().description.description,
		];
		const ownIcons = icons.filter((icon) => icon.src.includes(`/${PACKAGE}/`));
		await shots.take('node-creator-search');
		check(
			label('typing "forms" in the node creator finds Forms.wtf, with its icon and description'),
			ours !== undefined &&
				ownIcons.length > 0 &&
				ownIcons.every((icon) => icon.loaded) &&
				descriptions.some((text) => ours.includes(text)),
			`${JSON.stringify(ours)}; icons ${ownIcons.map((icon) => `${icon.src.split('/').slice(-2).join('/')}${icon.loaded ? '' : ' (not loaded)'}`).join(', ')}`,
		);
		await ui.creatorItem('Forms.wtf').click();
		const actions = ui.creator
			.getByTestId('node-creator-category-item')
			.filter({ hasText: 'Actions' });
		await actions.waitFor();
		if (!(await ui.creatorItem('Get many responses').isVisible())) await actions.click();
		await ui.creatorItem('Get many responses').waitFor();
		const listed = await ui.creatorItems();
		const panelIcons = await ui.creatorIcons();
		await shots.take('node-creator-actions');
		// n8n names a trigger's actions after the options of its "Trigger On" parameter (their
		// `action` texts), and falls back to "On new <node> event" without one.
		const triggers = ['On new response', 'On new or updated response'];
		const wanted = [
			...triggers,
			'Get a form',
			'Get many forms',
			'Export responses',
			'Get many responses',
		];
		check(
			label(
				'its panel shows the trigger\'s 2 actions ("On new response", "On new or updated response") and the 4 actions, each with the icon',
			),
			wanted.every((name) => listed.includes(name)) &&
				!listed.includes('On new Forms.wtf event') &&
				panelIcons.filter((icon) => icon.src.includes(`/${PACKAGE}/`) && icon.loaded).length >=
					wanted.length,
			listed.join(' | '),
		);
		await ui.creatorItem('On new response').click();
	});
	if (!found) return;

	// The credential dialog, opened from the trigger's Credential field.
	const credentialed = await part(shots, 'credential dialog', async () => {
		const modal = ui.credentialModal;
		const opened = await modal.waitFor({ timeout: 5_000 }).then(
			() => true,
			() => false,
		);
		if (!opened) {
			// n8n 2.x shows a "Connect to Forms.wtf" button while no credential of the type exists;
			// with one, a select whose last item creates a new one.
			const slot = ui.byId('node-credentials-slot');
			const select = slot.getByTestId('node-credentials-select');
			if (await select.isVisible()) {
				await select.click();
				await ui.byId('node-credentials-select-item-new').click();
			} else {
				await slot
					.getByRole('button', { name: /Forms\.wtf|credential/i })
					.first()
					.click();
			}
			await modal.waitFor();
		}
		const keyType = await modal
			.getByTestId('parameter-input-apiKey')
			.locator('input')
			.getAttribute('type');
		check(
			label('the API Key field is a password field'),
			keyType === 'password',
			`type=${keyType}`,
		);
		const cases = [
			['revoked key', harness.keys.revoked, harness.baseUrl, /invalid or has been revoked/],
			['plan below Team', harness.keys.pro, harness.baseUrl, /needs the Team plan/],
			['Base URL without /api/v1', harness.keys.team, harness.origin, /should end in \/api\/v1/],
		] as const;
		for (const [name, key, baseUrl, message] of cases) {
			await ui.fillCredential(key, baseUrl);
			const result = await ui.saveCredential();
			await shots.take(`credential-${name.replace(/\W+/g, '-')}`);
			const failed = result.text.includes('Couldn’t connect with these settings');
			check(
				label(`credential dialog, ${name}: says what is wrong`),
				!result.closed && failed && message.test(result.text),
				result.closed
					? 'the dialog closed'
					: (result.text.split('Couldn’t connect with these settings')[1] ?? '')
							.split('\n')
							.filter(Boolean)
							.slice(0, 3)
							.join(' / '),
			);
		}
		await ui.fillCredential(harness.keys.team, harness.baseUrl);
		const saved = await ui.saveCredential();
		const toast = await page.getByText('Credential saved').first().isVisible();
		if (saved.closed) {
			// n8n closes the dialog of a new credential once its test passes: open it again.
			await ui.byId('credential-edit-button').click();
			await modal.waitFor();
		}
		const success = modal.getByTestId('credentials-config-container-test-success');
		await success.waitFor();
		const text = await success.innerText();
		await shots.take('credential-valid-key');
		check(
			label('credential dialog, valid key: saved, and n8n says "Connection tested successfully"'),
			/Connection tested successfully/.test(text) && (toast || !saved.closed),
			`${text.trim().split('\n')[0].trim()}${toast ? '; toast "Credential saved"' : ''}`,
		);
		await ui.closeCredentialModal();
	});
	// A dialog left open would cover the parts that follow and fail them all.
	if (!credentialed) await ui.closeCredentialModal().catch(() => undefined);

	// The form picker and the trigger's Fetch Test Event.
	await part(shots, 'form picker', async () => {
		const listed = await ui.openPickerList();
		await shots.take('form-picker-list');
		const expected = own.map(pickerName).sort((a, b) => a.localeCompare(b));
		const foreign = forms.filter((form) => form.owner !== 'demo').map((form) => form.title);
		check(
			label("form picker, From List: lists the account's forms"),
			JSON.stringify(listed) === JSON.stringify(expected) &&
				!listed.some((name) => foreign.some((title) => name.includes(title))),
			listed.join(' | '),
		);
		await ui.byId('rlc-search').fill('feedback');
		// While it searches, the list shows placeholders; then the forms that match.
		await waitUntil(
			async () => {
				const count = await ui.byId('rlc-item').count();
				return count > 0 && count < listed.length;
			},
			10_000,
			'the list to narrow',
		).catch(() => undefined);
		const narrowed = await ui.byId('rlc-item').allInnerTexts();
		await shots.take('form-picker-search');
		check(
			label('form picker: search narrows the list'),
			JSON.stringify(narrowed) === JSON.stringify([feedback.title]),
			narrowed.join(' | '),
		);
		await ui.byId('rlc-item').filter({ hasText: feedback.title }).click();
		const value = await ui.formPicker.getByTestId('rlc-input').inputValue();
		check(label('form picker: picking a form shows its title'), value === feedback.title, value);
	});

	await part(shots, 'trigger, form without responses', async () => {
		await ui.formById(empty.id);
		await ui.executeNode(ui.output.getByTestId('node-error-message'));
		const error = await ui.output.getByTestId('node-error-message').innerText();
		await shots.take('trigger-no-responses');
		check(
			label('trigger: By ID takes an id; Fetch Test Event on a form without responses says so'),
			/has no responses yet/.test(error),
			error,
		);
	});

	/** The response Fetch Test Event should show: the newest, submitted to "feedback" just before. */
	let newestId = '';
	await part(shots, 'trigger, test event', async () => {
		const [newest] = await harness.control.submitResponses(feedback.id, [{}]);
		newestId = newest.id;
		await ui.formById(feedback.id);
		await ui.executeNode(ui.output.getByTestId('node-run-status-success'));
		const count = await ui.itemCount();
		await ui.output.getByTestId('radio-button-table').click();
		const data = ui.output.getByTestId('ndv-data-container');
		await waitUntil(
			async () => (await data.innerText()).includes(newest.id),
			10_000,
			'the response in the table',
		).catch(() => undefined);
		const shown = await data.innerText();
		await shots.take('trigger-test-event');
		check(
			label('trigger: Fetch Test Event shows one response, the newest'),
			count === '1 item' && shown.includes(newest.id),
			`${count}; newest ${newest.id} ${shown.includes(newest.id) ? 'shown' : 'not shown'}`,
		);
	});

	await part(shots, 'trigger, options', async () => {
		await ui.parameter('output').click();
		const outputs = await ui.openOptionTexts();
		await shots.take('trigger-output-options');
		await page.keyboard.press('Escape');
		check(
			label(
				'trigger: Output says that Simplified keys answers by label, and a rename changes the key',
			),
			outputs.some((text) => text.startsWith('Simplified') && /Renaming a question/.test(text)),
			outputs.map((text) => text.replace(/\s*\n\s*/g, ': ')).join(' | '),
		);
		// Trigger On, as the node creator's action set it.
		const triggerOn = await ui.inputValue('event');
		await ui.parameter('event').click();
		const events = await ui.openOptions();
		await page.keyboard.press('Escape');
		check(
			label(
				'trigger: "On new response" in the node creator gives Trigger On = New Response (or New or Updated Response)',
			),
			triggerOn === 'New Response' &&
				JSON.stringify(events) === JSON.stringify(['New Response', 'New or Updated Response']),
			`${triggerOn}; choices ${events.join(', ')}`,
		);
		// On Activation, Emit: three choices; the newest N asks for a number.
		const emitDefault = await ui.inputValue('onActivation');
		await ui.parameter('onActivation').click();
		const emits = await ui.openOptions();
		await page.keyboard.press('Escape');
		await ui.chooseOption('onActivation', 'The Newest Existing Responses, Then New Ones');
		const count = ui.parameter('existingCount');
		await count.waitFor();
		const input = {
			value: await count.locator('input').first().inputValue(),
			numeric: await count
				.getByTestId('input-number')
				.or(count.locator('.el-input-number'))
				.count(),
		};
		// Options: the look-back window alone. n8n adds a collection's only option at once, and
		// lists the options to pick from when there are several.
		await ui.byId('collection-parameter-add').click();
		const lookBack = ui.parameter('lookBackMinutes');
		const listedOptions = page.getByRole('option').filter({ visible: true });
		await lookBack.or(listedOptions.first()).first().waitFor();
		let options = ['Look-Back Window (Minutes)'];
		if (!(await lookBack.isVisible())) {
			options = await ui.openOptions();
			await listedOptions.filter({ hasText: 'Look-Back Window' }).first().click();
		}
		const lookBackShown = {
			label: await ui
				.byId('node-parameters')
				.getByText('Look-Back Window (Minutes)')
				.first()
				.isVisible(),
			value: await lookBack.locator('input').first().inputValue(),
		};
		await shots.take('trigger-options');
		check(
			label(
				'trigger: On Activation, Emit offers only new / the newest N (a number, 10) / every response since a date; Options has the look-back window (10 minutes)',
			),
			emitDefault === 'Only New Responses' &&
				JSON.stringify(emits) ===
					JSON.stringify([
						'Only New Responses',
						'The Newest Existing Responses, Then New Ones',
						'Every Response Since a Date, Then New Ones',
					]) &&
				input.value === '10' &&
				input.numeric > 0 &&
				JSON.stringify(options) === JSON.stringify(['Look-Back Window (Minutes)']) &&
				lookBackShown.label &&
				lookBackShown.value === '10',
			`${emitDefault}; choices ${emits.join(', ')}; ${JSON.stringify(input)}; options ${options.join(', ')}, ${JSON.stringify(lookBackShown)}`,
		);
	});

	// Selected Forms: two forms ticked in the list loaded from the API, every response since a
	// date; then what n8n saved.
	const sinceTyped = '2026-01-02 03:04:05';
	await part(shots, 'trigger, Selected Forms', async () => {
		const bugs = await harness.control.form('bugs');
		await ui.chooseOption('watch', 'Selected Forms');
		const picker = ui.parameter('formIds');
		await picker.waitFor();
		// The list loads from the API when the field appears; the field takes clicks once it has.
		// (Until then the options still showing may be Watch's, closing.)
		const options = page.getByRole('option').filter({ visible: true });
		const openList = async () => {
			await picker.click();
			if (
				await options
					.filter({ hasText: feedback.title })
					.first()
					.waitFor({ timeout: 3_000 })
					.then(
						() => true,
						() => false,
					)
			)
				return true;
			await page.keyboard.press('Escape');
			return false;
		};
		await waitUntil(openList, 20_000, 'the list of forms');
		const listed = await ui.openOptions();
		await shots.take('selected-forms-list');
		const expected = own.map(pickerName).sort((a, b) => a.localeCompare(b));
		check(
			label("trigger, Selected Forms: the list shows the account's forms, loaded from the API"),
			JSON.stringify(listed) === JSON.stringify(expected),
			listed.join(' | '),
		);
		for (const form of [feedback, bugs]) {
			const option = options.filter({ has: page.getByText(form.title, { exact: true }) }).first();
			if (!(await option.isVisible())) await openList();
			await option.click();
		}
		await page.keyboard.press('Escape');
		const chips = await picker.innerText();
		await ui.chooseOption('onActivation', 'Every Response Since a Date, Then New Ones');
		const date = ui.parameter('submittedSince');
		await date.waitFor();
		await date.locator('input').first().fill(sinceTyped);
		await date.locator('input').first().press('Enter');
		await ui.blur();
		const shown = await ui.inputValue('submittedSince');
		await shots.take('selected-forms-set');
		check(
			label('trigger, Selected Forms: two forms ticked, a date in Submitted Since'),
			[feedback.title, bugs.title].every((title) => chips.includes(title)) && shown === sinceTyped,
			`${chips.replace(/\s*\n\s*/g, ', ')}; Submitted Since ${shown}`,
		);
		// Fetch Test Event: the newest response of the selected forms, naming its form.
		await ui.executeNode(ui.output.getByTestId('node-run-status-success'));
		const count = await ui.itemCount();
		await ui.output.getByTestId('radio-button-table').click();
		const data = ui.output.getByTestId('ndv-data-container');
		await waitUntil(
			async () => (await data.innerText()).includes(newestId),
			10_000,
			'the response in the table',
		).catch(() => undefined);
		const table = await data.innerText();
		await shots.take('selected-forms-test-event');
		check(
			label(
				'trigger, Selected Forms: Fetch Test Event shows the newest response of the selected forms, with formTitle',
			),
			count === '1 item' &&
				newestId !== '' &&
				table.includes(newestId) &&
				table.includes(feedback.title),
			`${count}; newest ${newestId} ${table.includes(newestId) ? 'shown' : 'not shown'}`,
		);
		await ui.byId('ndv-close-button').click();
		const saved = await ui.savedWorkflow(
			(workflow) => triggerOf(workflow)?.parameters?.submittedSince !== undefined,
		);
		await shots.take('selected-forms-saved');
		const trigger = triggerOf(saved.workflow);
		const parameters = trigger?.parameters ?? {};
		const wantedIds = [feedback.id, bugs.id];
		check(
			label(
				'trigger, Selected Forms: the saved workflow holds version 2, watch selectedForms, the two form IDs, On Activation "since" and the date',
			),
			trigger?.typeVersion === 2 &&
				parameters.event === 'newResponse' &&
				parameters.watch === 'selectedForms' &&
				Array.isArray(parameters.formIds) &&
				JSON.stringify([...parameters.formIds].sort()) === JSON.stringify([...wantedIds].sort()) &&
				parameters.onActivation === 'since' &&
				typeof parameters.submittedSince === 'string' &&
				parameters.submittedSince.startsWith(sinceTyped.replace(' ', 'T')),
			`${saved.detail}: ${JSON.stringify({ typeVersion: trigger?.typeVersion, ...parameters })}`,
		);
	});

	// The action node, added after the trigger as a user adds it.
	const added = await part(shots, 'action node, Get Many responses', async () => {
		if (await ui.byId('ndv-close-button').isVisible()) await ui.byId('ndv-close-button').click();
		await ui.byId('canvas-handle-plus').first().click();
		await ui.searchNodes('forms');
		await ui.creatorItem('Forms.wtf').click();
		await ui.creatorItem('Get many responses').click();
		await ui.formPicker.waitFor();
		const panel = {
			resource: await ui.inputValue('resource'),
			operation: await ui.inputValue('operation'),
			returnAll: await ui.switchOn('returnAll'),
			limit: await ui.inputValue('limit'),
			output: await ui.inputValue('output'),
		};
		await ui.byId('collection-parameter-add').click();
		const options = await ui.openOptions();
		await page.keyboard.press('Escape');
		await shots.take('get-many-responses-panel');
		check(
			label(
				'Get Many responses: Form, Return All off, Limit 50, Output Simplified, options Offset and Since',
			),
			panel.resource === 'Response' &&
				panel.operation === 'Get Many' &&
				!panel.returnAll &&
				panel.limit === '50' &&
				panel.output === 'Simplified' &&
				options.includes('Offset') &&
				options.includes('Since'),
			`${JSON.stringify(panel)}; options ${options.join(', ')}`,
		);
		await ui.openPickerList();
		await ui.byId('rlc-item').filter({ hasText: feedback.title }).click();
		await ui.parameter('limit').locator('input').fill('5');
		await ui.blur();
		await ui.executeNode(
			ui.output.getByTestId('ndv-items-count').filter({ hasText: /^\s*5 items\s*$/ }),
		);
		const count = await ui.itemCount();
		await ui.output.getByTestId('radio-button-table').click();
		const rows = ui.output.locator('table tbody tr');
		await waitUntil(async () => (await rows.count()) > 0, 10_000, 'the table').catch(
			() => undefined,
		);
		await shots.take('get-many-responses-executed');
		check(
			label('Get Many responses with Limit 5: Execute step shows 5 items'),
			count === '5 items' && (await rows.count()) === 5,
			`${count}, ${await rows.count()} rows in the table`,
		);
	});
	if (!added) return;

	await part(shots, 'action node, Export', async () => {
		await ui.chooseOption('operation', 'Export');
		await ui.parameter('format').waitFor();
		await ui.parameter('format').click();
		const formats = await ui.openOptions();
		await page.keyboard.press('Escape');
		const field = ui.byId('parameter-item').filter({ has: ui.parameter('binaryPropertyName') });
		const panel = {
			format: await ui.inputValue('format'),
			field: await ui.inputValue('binaryPropertyName'),
			hint: await field
				.getByText('The name of the output binary field to put the file in')
				.isVisible(),
			formats,
		};
		await shots.take('export-panel');
		check(
			label('Export: Format CSV (or JSON, Merkle Tree), file in field "data", with its hint'),
			panel.format === 'CSV' &&
				panel.field === 'data' &&
				panel.hint &&
				['CSV', 'JSON', 'Merkle Tree'].every((name) => panel.formats.includes(name)),
			JSON.stringify(panel),
		);
		const expected = await expectedExport(harness, feedback.id);
		await ui.executeNode(
			ui.output.getByTestId('ndv-binary-data_0').or(ui.output.getByTestId('radio-button-binary')),
		);
		const binary = ui.output.getByTestId('ndv-binary-data_0');
		if (!(await binary.isVisible())) await ui.output.getByTestId('radio-button-binary').click();
		const text = await binary.innerText();
		const size = parseSize(/File Size:\s*(.+)/.exec(text)?.[1] ?? '');
		await shots.take('export-executed');
		check(
			label('Export: Execute step shows the binary file with its name and size'),
			text.includes(expected.fileName) &&
				size !== undefined &&
				Math.abs(size - expected.bytes) <= expected.bytes * 0.01,
			`${text.replace(/\s*\n\s*/g, ' ')}; API sent ${expected.fileName}, ${expected.bytes} bytes`,
		);
	});

	await part(shots, 'action node, Form operations', async () => {
		await ui.chooseOption('resource', 'Form');
		await ui.parameter('operation').waitFor();
		const getMany = {
			operation: await ui.inputValue('operation'),
			picker: await ui.formPicker.isVisible(),
		};
		await ui.chooseOption('operation', 'Get');
		await ui.formPicker.waitFor();
		await shots.take('form-get-panel');
		check(
			label('Form: Get Many asks for nothing more, Get asks for the form'),
			getMany.operation === 'Get Many' && !getMany.picker,
			JSON.stringify(getMany),
		);
	});

	await part(shots, 'action node, Account → Get', async () => {
		await ui.chooseOption('resource', 'Account');
		await ui.parameter('operation').waitFor();
		const panel = {
			operation: await ui.inputValue('operation'),
			picker: await ui.formPicker.isVisible(),
		};
		await ui.executeNode(ui.output.getByTestId('ndv-items-count'));
		const json = ui.output.getByTestId('radio-button-json');
		if (await json.isVisible()) await json.click();
		// The JSON view renders a moment after the click.
		await waitUntil(
			async () => (await ui.output.innerText()).includes('usage'),
			10_000,
			'the account in the JSON view',
		).catch(() => undefined);
		const shown = await ui.output.innerText();
		await shots.take('account-get-executed');
		check(
			label(
				'Account → Get: asks for no form; Execute step shows the plan, its limits and the usage',
			),
			panel.operation === 'Get' &&
				!panel.picker &&
				['plan', 'limits', 'usage'].every((key) => shown.includes(key)),
			`${JSON.stringify(panel)}; ${shown.replace(/\s+/g, ' ').slice(0, 200)}`,
		);
	});

	await manageFormsAndWebhooks({
		ui,
		harness,
		part: (name, body) => part(shots, name, body),
		screenshot: (name) => shots.take(name),
		label,
	});

	await part(shots, 'webhook trigger', () =>
		listenForWebhookTestEvent(page, harness, label, (name) => shots.take(name)),
	);
}
