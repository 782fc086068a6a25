/**
 * Part 6 — how big an export gets: the file of a form of 40,000 responses in each format (CSV,
 * JSON, Merkle Tree), downloaded straight from the local API's /export, with its size and the
 * time the download took. Two forms: the short one (the large fixture, six short questions)
 * and the long one (the feedback survey, eleven questions with free-text comments), filled up
 * to the same number of responses. The figures the user guides quote for "is my export too big".
 */
import { startHarness } from '../../test/harness';
import type { BenchContext, PartResult } from '../lib/context';
import { fmtNum, fmtSummary, median, summarize, table } from '../lib/report';

const RESPONSES = 40_000;
const FORMATS = ['csv', 'json', 'merkle'] as const;
type Format = (typeof FORMATS)[number];
/** The harness's control API takes at most this many responses per call. */
const SUBMIT_CHUNK = 10_000;

interface Download {
	bytes: number;
	ms: number;
}

interface Measured {
	form: string;
	questions: number;
	responses: number;
	format: Format;
	bytes: number;
	msMedian: number;
	msMin: number;
	msMax: number;
}

async function download(url: string, apiKey: string): Promise<Download> {
	const started = performance.now();
	const response = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}` } });
	if (!response.ok) throw new Error(`${url}: HTTP ${response.status} ${await response.text()}`);
	let bytes = 0;
	// Count the body as it streams, as the node does, rather than hold it whole.
	for await (const chunk of response.body ?? []) bytes += (chunk as Uint8Array).byteLength;
	return { bytes, ms: performance.now() - started };
}

export async function exportSizePart(ctx: BenchContext): Promise<PartResult> {
	const harness = await startHarness({
		largeFormResponses: RESPONSES,
		rateLimit: false,
		// Every hex wallet of 40,000 responses is hashed (the harness stops at 20,000 by default).
		merkleMaxLeaves: RESPONSES,
	});
	const measured: Measured[] = [];
	try {
		const feedback = await harness.control.form('feedback');
		for (let have = feedback.responseCount; have < RESPONSES; have += SUBMIT_CHUNK)
			await harness.control.submitBurst(feedback.id, Math.min(SUBMIT_CHUNK, RESPONSES - have));
		const forms = (await harness.control.listForms()).filter(
			(form) => form.fixture === 'large' || form.fixture === 'feedback',
		);
		for (const form of forms) {
			for (const format of FORMATS) {
				ctx.log(`Export size: ${form.title}, ${format}`);
				const url = `${harness.baseUrl}/forms/${form.id}/export?format=${format}`;
				const runs: Download[] = [];
				// One unmeasured run first: the Merkle tree is built once, then cached by the API.
				await download(url, harness.keys.business);
				for (let r = 0; r < ctx.repeat; r++) runs.push(await download(url, harness.keys.business));
				const times = summarize(runs.map((run) => run.ms));
				measured.push({
					form: form.title,
					questions: form.questionIds.length,
					responses: form.responseCount,
					format,
					bytes: median(runs.map((run) => run.bytes)),
					msMedian: times.median,
					msMin: times.min,
					msMax: times.max,
				});
			}
		}
	} finally {
		await harness.close();
	}
	return report(measured, ctx.repeat);
}

function report(measured: Measured[], repeat: number): PartResult {
	const rows = measured.map((m) => [
		m.form,
		fmtNum(m.questions),
		fmtNum(m.responses),
		m.format,
		`${fmtNum(m.bytes / 1e6, 1)} MB`,
		fmtNum(m.bytes / m.responses),
		fmtSummary({
			median: m.msMedian,
			min: m.msMin,
			max: m.msMax,
			spread: 0,
			n: repeat,
		}),
	]);
	return {
		title: `Part 6 — Export size: a form of ${fmtNum(RESPONSES)} responses in each format`,
		tables: [
			table(
				['Form', 'Questions', 'Responses', 'Format', 'File', 'Bytes / response', 'Download'],
				rows,
			),
		],
		verdicts: [],
		notes: [
			'MB = 10^6 bytes. Download: the local API on 127.0.0.1, from request to last byte, median (min–max); the real service adds the network.',
			'Merkle Tree holds each distinct hex wallet once (anonymous wallets have no leaf), so its size follows the wallets, not the answers.',
			'Each file is downloaded once unmeasured first (the API builds a Merkle tree once and keeps it).',
		],
		data: measured,
	};
}
