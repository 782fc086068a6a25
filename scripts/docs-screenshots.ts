/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	no-console
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * `npm run docs:screenshots`: the pictures in the README, taken from the editor suite's walk
 * through n8n 2.41.1's editor (test/e2e/editor.ts), so they show the nodes as they are today.
 *
 * The suite runs as `npm run test:editor` runs it (the packed package, the local Forms.wtf API,
 * headless Chromium) and calls back after each of its screenshots; for the screens listed in
 * SHOTS this crops the part a reader needs (the node's panel, the credential dialog) into
 * .tmp/docs-images/<file>.png. A picture over MAX_BYTES is drawn again smaller, down to
 * MIN_SCALE and no further, so the text in it stays readable. Only when every check of the
 * suite passed and every picture was taken are they copied over docs/images/; otherwise
 * docs/images/ is left as it was, and the run fails (exit 1) naming what went wrong.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'fs';
import { join, relative, resolve } from 'path';
import type { Locator, Page } from 'playwright-core';

import { startHarness } from '../test/harness';
import { editorSuite } from '../test/e2e/editor';
import { packPackage } from '../test/e2e/pack';
import { check, log, report } from '../test/e2e/report';
import { ensureDebianPackages } from '../test/e2e/services';

const ROOT = resolve(__dirname, '..');
const IMAGES = join(ROOT, 'docs', 'images');
/** Where a run draws its pictures; docs/images/ gets them only from a run that took them all. */
const STAGING = join(ROOT, '.tmp', 'docs-images');
const MAX_BYTES = 200 * 1024;
const MIN_SCALE = 0.7;
const PAD = 8;

interface Shot {
	/** The picture's file in docs/images/. */
	file: string;
	/** What it shows, for the log. */
	what: string;
	/** The part of the window to keep: the union of these (those visible). */
	crop: (page: Page) => Locator[];
	/** Done before the picture is taken, and undone after, so the walk goes on as before. */
	before?: (page: Page) => Promise<void>;
	after?: (page: Page) => Promise<void>;
}

const byId = (page: Page, id: string) => page.locator(`[data-test-id="${id}"]`);
const panel = (page: Page) => [byId(page, 'ndv')];
const openLists = (page: Page) => [page.locator('.el-popper:visible, [role="listbox"]:visible')];

/** The editor suite's screen names (Screenshots.take) → the pictures made of them. */
const SHOTS: Record<string, Shot> = {
	'node-creator-search': {
		file: 'node-creator-search.png',
		what: 'the node creator: "forms" finds the Forms.wtf node and the Forms.wtf Webhook Trigger',
		crop: (page) => [byId(page, 'node-creator')],
	},
	'credential-revoked-key': {
		file: 'credential-error.png',
		what: 'the credential dialog saying what is wrong with a revoked key',
		crop: (page) => [byId(page, 'editCredential-modal')],
	},
	'credential-valid-key': {
		file: 'credential.png',
		what: 'the credential dialog with a key that works',
		crop: (page) => [byId(page, 'editCredential-modal')],
		// The Retry button of the message before is still fading out.
		before: async (page) => await page.waitForTimeout(700),
	},
	'form-picker-list': {
		file: 'form-picker.png',
		what: 'a form picked from the list',
		crop: (page) => [...panel(page), ...openLists(page)],
	},
	'selected-forms-set': {
		file: 'trigger-panel.png',
		what: "the trigger's panel: Selected Forms, every response since a date",
		crop: panel,
	},
	'get-many-responses-executed': {
		file: 'simplified-output.png',
		what: 'Get Many responses, executed: Simplified output, answers keyed by question',
		crop: panel,
		before: async (page) => {
			await byId(page, 'output-panel').locator('[data-test-id="radio-button-json"]').click();
			await page.waitForTimeout(500);
		},
		after: async (page) => {
			await byId(page, 'output-panel').locator('[data-test-id="radio-button-table"]').click();
		},
	},
	'webhook-trigger-automatic': {
		file: 'webhook-trigger-registration.png',
		what: "the Webhook Trigger's panel: Registration Automatic, the forms to watch, the API credential",
		crop: panel,
	},
	'webhook-trigger-test-event': {
		file: 'webhook-trigger.png',
		what: "the Webhook Trigger's panel: its URLs, the setup steps, a response received",
		crop: panel,
	},
	'export-executed': {
		file: 'node-panel.png',
		what: "the node's panel: Export, executed, the file in the output",
		crop: panel,
		// The Execute step button is still fading back in when the suite takes its screenshot.
		before: async (page) => await page.waitForTimeout(700),
	},
};

/** The box around the visible locators, padded and kept inside the window. */
async function box(page: Page, locators: Locator[]) {
	const boxes = [];
	for (const locator of locators) {
		for (const element of await locator.all()) {
			const found = (await element.isVisible()) ? await element.boundingBox() : null;
			if (found && found.width > 0 && found.height > 0) boxes.push(found);
		}
	}
	if (boxes.length === 0) return undefined;
	const viewport = page.viewportSize() ?? { width: 1440, height: 900 };
	const x = Math.max(0, Math.min(...boxes.map((b) => b.x)) - PAD);
	const y = Math.max(0, Math.min(...boxes.map((b) => b.y)) - PAD);
	const right = Math.min(viewport.width, Math.max(...boxes.map((b) => b.x + b.width)) + PAD);
	const bottom = Math.min(viewport.height, Math.max(...boxes.map((b) => b.y + b.height)) + PAD);
	return { x, y, width: right - x, height: bottom - y };
}

/**
 * Draws a PNG again at `scale` in a page of its own and saves that: Chromium does the
 * resampling, so no image library is needed.
 */
async function redraw(page: Page, png: Buffer, scale: number, path: string): Promise<void> {
	const scratch = await page.context().newPage();
	try {
		const src = `data:image/png;base64,${png.toString('base64')}`;
		await scratch.setContent(
			`<body style="margin:0"><img id="shot" style="display:block" src="${src}"></body>`,
		);
		const size = await scratch.locator('#shot').evaluate((element) => {
			const image = element as unknown as { naturalWidth: number; naturalHeight: number };
			return { width: image.naturalWidth, height: image.naturalHeight };
		});
		const width = Math.round(size.width * scale);
		await scratch
			.locator('#shot')
			.evaluate((element, w) => element.setAttribute('style', `display:block;width:${w}px`), width);
		await scratch.locator('#shot').screenshot({ path });
	} finally {
		await scratch.close();
	}
}

async function take(name: string, page: Page): Promise<void> {
	const shot = SHOTS[name];
	if (!shot) return;
	const path = join(STAGING, shot.file);
	try {
		await shot.before?.(page);
		const clip = await box(page, shot.crop(page));
		// n8n's toasts ("Credential saved", "Node executed successfully") stack over the panel.
		const hideToasts = await page.addStyleTag({
			content: '.el-notification, .el-message { visibility: hidden !important; }',
		});
		const png = await page.screenshot({ clip, animations: 'disabled' });
		await hideToasts.evaluate((element) => element.remove());
		await shot.after?.(page);
		let scale = 1;
		await redraw(page, png, scale, path);
		while (statSync(path).size > MAX_BYTES && scale > MIN_SCALE) {
			scale = Math.round((scale - 0.1) * 10) / 10;
			await redraw(page, png, scale, path);
		}
		log(
			`${relative(ROOT, path)}: ${shot.what} (${Math.round(statSync(path).size / 1024)} KB${scale < 1 ? `, drawn at ${scale}×` : ''})`,
		);
	} catch (error) {
		check(`picture ${shot.file}`, false, (error as Error).message.split('\n')[0]);
	}
}

/** The seeded responses have emoji in their answers: without this font they show as boxes. */
const EMOJI_FONT = '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf';

async function main(): Promise<void> {
	await ensureDebianPackages(
		[{ name: 'fonts-noto-color-emoji', present: () => existsSync(EMOJI_FONT) }],
		log,
	);
	rmSync(STAGING, { recursive: true, force: true });
	mkdirSync(STAGING, { recursive: true });
	log('building and packing the package');
	const tarball = packPackage();
	const harness = await startHarness({ rateLimit: false });
	try {
		await editorSuite({ tarball, harness, onScreen: take });
	} finally {
		await harness.close();
		rmSync(join(tarball, '..'), { recursive: true, force: true });
	}
	for (const shot of Object.values(SHOTS)) {
		const path = join(STAGING, shot.file);
		const bytes = existsSync(path) ? readFileSync(path).length : 0;
		check(
			`docs/images/${shot.file}: ${shot.what}`,
			bytes > 0 && bytes <= MAX_BYTES,
			bytes === 0 ? 'not taken' : `${Math.round(bytes / 1024)} KB`,
		);
	}
	const passed = report();
	if (passed) {
		mkdirSync(IMAGES, { recursive: true });
		for (const shot of Object.values(SHOTS))
			copyFileSync(join(STAGING, shot.file), join(IMAGES, shot.file));
		log(`${Object.keys(SHOTS).length} pictures copied to ${relative(ROOT, IMAGES)}/`);
	} else
		log(
			`${relative(ROOT, IMAGES)}/ left as it was; what this run drew is in ${relative(ROOT, STAGING)}/`,
		);
	process.exit(passed ? 0 : 1);
}

main().catch((error: unknown) => {
	console.error(error);
	check('docs screenshots', false, String(error));
	report();
	process.exit(1);
});
