/* eslint-disable
	@n8n/community-nodes/no-restricted-imports
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * An account with many forms, for the All Forms trigger figures: a small HTTP front on
 * 127.0.0.1 that answers `GET /forms` with the harness's own listing repeated to `count` forms
 * (form k is the harness form k mod m, with the id `<harness id>.<k>`), and passes every other
 * request, the responses of `<id>.<k>` included, on to the harness unchanged. The harness's
 * request log sees every request the trigger sends, the listings too.
 */
import { createServer, request as httpRequest, type Server } from 'http';
import type { AddressInfo } from 'net';

export interface ManyFormsApi {
	baseUrl: string;
	close(): Promise<void>;
}

export async function startManyFormsApi(
	harnessBaseUrl: string,
	count: number,
): Promise<ManyFormsApi> {
	const upstream = new URL(harnessBaseUrl);
	const server: Server = createServer((req, res) => {
		// `<harness id>.<k>` → `<harness id>`: every copy of a form is that form.
		const path = (req.url ?? '/').replace(/(\/forms\/[^/.?]+)\.\d+/, '$1');
		const forward = httpRequest(
			{
				host: upstream.hostname,
				port: upstream.port,
				path,
				method: req.method,
				headers: req.headers,
			},
			(answer) => {
				const isListing =
					path.split('?')[0] === `${upstream.pathname}/forms` && answer.statusCode === 200;
				if (!isListing) {
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(res);
					return;
				}
				const chunks: Buffer[] = [];
				answer.on('data', (chunk: Buffer) => chunks.push(chunk));
				answer.on('end', () => {
					const { forms } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
						forms: Array<Record<string, unknown>>;
					};
					const many = Array.from({ length: count }, (_, k) => {
						const form = forms[k % forms.length];
						return { ...form, id: `${String(form.id)}.${k}`, title: `${String(form.title)} #${k}` };
					});
					const body = JSON.stringify({ forms: many });
					const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) };
					res.writeHead(200, headers);
					res.end(body);
				});
			},
		);
		forward.on('error', () => res.destroy());
		req.pipe(forward);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}
