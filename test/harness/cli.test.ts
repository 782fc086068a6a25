/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/no-dangerous-functions
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/** The harness as a process (`npm run harness`): flags, startup output, clean stop on SIGINT and SIGTERM. */
import { spawn } from 'child_process';
import { join } from 'path';
import { optionsFromArgs } from './cliArgs';

describe('flags', () => {
	test('map to harness options', () => {
		const { options, json } = optionsFromArgs([
			'--port',
			'0',
			'--seed',
			'demo',
			'--large-form-responses',
			'1000',
			'--order',
			'oldest',
			'--since-inclusive',
			'--rate-limit',
			'5',
			'--rate-window-ms',
			'1000',
			'--retry-after',
			'--clock-offset-ms',
			'-5000',
			'--merkle-max-leaves',
			'50',
			'--json',
		]);
		expect(json).toBe(true);
		expect(options).toEqual({
			port: 0,
			seed: 'demo',
			largeFormResponses: 1000,
			responseOrder: 'oldestFirst',
			sinceInclusive: true,
			rateLimit: { requests: 5, windowMs: 1000 },
			retryAfterHeader: true,
			clockOffsetMs: -5000,
			merkleMaxLeaves: 50,
		});
		expect(optionsFromArgs([]).options).toMatchObject({ port: 4010 });
		expect(optionsFromArgs(['--rate-limit', 'off']).options.rateLimit).toBe(false);
		expect(optionsFromArgs(['--rate-window-ms', '500']).options.rateLimit).toEqual({
			requests: 60,
			windowMs: 500,
		});
		expect(() => optionsFromArgs(['--order', 'random'])).toThrow(/--order/);
		expect(() => optionsFromArgs(['--port', '-1'])).toThrow(/--port/);
		expect(() => optionsFromArgs(['--colour'])).toThrow();
	});
});

describe('process', () => {
	const cli = join(__dirname, 'cli.ts');

	function run(
		signal: NodeJS.Signals,
	): Promise<{ code: number | null; forms: number; date: string | null }> {
		return new Promise((resolve, reject) => {
			// Node itself with tsx's loader, not the tsx command: that one relays signals to a child
			// process and, when the child is slow to confirm it handles them (a busy machine), ends
			// itself with the signal, so the exit code would speak of tsx, not of the harness.
			const child = spawn(
				process.execPath,
				['--import', 'tsx', cli, '--port', '0', '--json', '--clock-offset-ms', '-86400000'],
				{
					stdio: ['ignore', 'pipe', 'pipe'],
				},
			);
			let stdout = '';
			let stderr = '';
			let forms = -1;
			let date: string | null = null;
			child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
			child.stdout.on('data', (chunk: Buffer) => {
				stdout += chunk.toString();
				const line = stdout.split('\n').find((l) => l.startsWith('{'));
				if (line === undefined || forms !== -1) return;
				forms = 0;
				const { baseUrl, keys } = JSON.parse(line) as { baseUrl: string; keys: { team: string } };
				fetch(`${baseUrl}/forms`, { headers: { Authorization: `Bearer ${keys.team}` } })
					.then(async (r) => {
						date = r.headers.get('date');
						forms = ((await r.json()) as { forms: unknown[] }).forms.length;
						child.kill(signal);
					})
					.catch(reject);
			});
			child.on('error', reject);
			child.on('exit', (code) =>
				forms > 0
					? resolve({ code, forms, date })
					: reject(new Error(`exited early (${code}): ${stderr}`)),
			);
		});
	}

	test.each(['SIGTERM', 'SIGINT'] as const)(
		'prints its base URL and keys as JSON, serves, and exits 0 on %s',
		async (signal) => {
			const { code, forms, date } = await run(signal);
			expect(forms).toBe(6);
			expect(code).toBe(0);
			expect(Math.abs(Date.parse(date ?? '') - (Date.now() - 86_400_000))).toBeLessThan(10_000);
		},
	);
});
