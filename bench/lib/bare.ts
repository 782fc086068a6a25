/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The floor: what a client does with nothing but Node's http and one keep-alive connection.
 * Return All reads pages of 1000 by offset until `hasMore` is false and keeps every response
 * (as any Return All must hand them all over); a download streams the body to a file.
 */
import { createWriteStream, statSync } from 'fs';
import { Agent, get, type IncomingMessage } from 'http';
import { pipeline } from 'stream/promises';

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** `newConnection`: a fresh agent per request (what n8n's HTTP helpers do), for diagnosis. */
function request(url: string, apiKey: string, newConnection = false): Promise<IncomingMessage> {
	return new Promise((resolve, reject) => {
		get(
			url,
			{
				agent: newConnection ? new Agent() : agent,
				headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
			},
			resolve,
		).on('error', reject);
	});
}

async function readText(response: IncomingMessage): Promise<string> {
	const chunks: Buffer[] = [];
	for await (const chunk of response) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString('utf8');
}

export async function bareReturnAll(
	baseUrl: string,
	apiKey: string,
	formId: string,
	newConnection = false,
): Promise<unknown[]> {
	const all: unknown[] = [];
	let offset = 0;
	for (;;) {
		const response = await request(
			`${baseUrl}/forms/${encodeURIComponent(formId)}/responses?limit=1000&offset=${offset}`,
			apiKey,
			newConnection,
		);
		const text = await readText(response);
		if (response.statusCode !== 200)
			throw new Error(`HTTP ${response.statusCode}: ${text.slice(0, 200)}`);
		const page = JSON.parse(text) as { responses: unknown[]; hasMore: boolean };
		for (const item of page.responses) all.push(item);
		if (!page.hasMore || page.responses.length === 0) return all;
		offset += page.responses.length;
	}
}

/** GET the export and stream it to `path`; returns the bytes written. */
export async function bareDownload(
	baseUrl: string,
	apiKey: string,
	formId: string,
	path: string,
): Promise<number> {
	const response = await request(
		`${baseUrl}/forms/${encodeURIComponent(formId)}/export?format=csv`,
		apiKey,
	);
	if (response.statusCode !== 200)
		throw new Error(`HTTP ${response.statusCode}: ${(await readText(response)).slice(0, 200)}`);
	await pipeline(response, createWriteStream(path));
	return statSync(path).size;
}

export function closeBareAgent(): void {
	agent.destroy();
}
