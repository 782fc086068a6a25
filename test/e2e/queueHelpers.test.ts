/* eslint-disable
	@n8n/community-nodes/no-restricted-globals,
	@n8n/community-nodes/no-restricted-imports,
	@n8n/community-nodes/no-dangerous-functions
	-- Node.js code that tests or builds the package, never shipped: see "Linting" in CONTRIBUTING.md. */
/**
 * The helpers the queue-mode suite leans on, without n8n: a held stand-in request, a workflow
 * started by a webhook, and no process left behind when one is killed with SIGKILL.
 */
import { spawn } from 'child_process';
import type { IDataObject } from 'n8n-workflow';

import { alive, stopProcess } from './services';
import { Sink } from './sink';
import { deliveredResponseIds, withWebhookStart } from './standIns';
import { actionWorkflow } from './workflows';

describe('Sink.hold', () => {
	it('records a held request at once and answers it only on release', async () => {
		const sink = new Sink();
		const url = await sink.start();
		try {
			sink.hold('/slack');
			let answered = false;
			const request = fetch(`${url}/slack`, {
				method: 'POST',
				body: JSON.stringify({ responseId: 'r1' }),
			}).then((response) => {
				answered = true;
				return response.status;
			});
			await sink.waitFor('/slack', 1, 5_000);
			await new Promise((resolve) => setTimeout(resolve, 200));
			expect(answered).toBe(false);
			expect(deliveredResponseIds(sink, 'slack')).toEqual(['r1']);
			sink.release();
			expect(await request).toBe(200);
			// Released: later requests are answered at once.
			expect((await fetch(`${url}/slack`, { method: 'POST', body: '{}' })).status).toBe(200);
		} finally {
			sink.release();
			await sink.close();
		}
	});
});

describe('withWebhookStart', () => {
	it('puts a POST webhook in place of the Manual Trigger, under its name, wired the same', () => {
		const workflow = actionWorkflow('form-a', 'form-b');
		const started = withWebhookStart(workflow, 'my-path');
		const nodes = started.nodes as IDataObject[];
		const start = nodes.find((node) => node.name === 'Start') as IDataObject;
		expect(start.type).toBe('n8n-nodes-base.webhook');
		expect(start.parameters).toMatchObject({ httpMethod: 'POST', path: 'my-path' });
		expect(typeof start.webhookId).toBe('string');
		expect(nodes.filter((node) => node.type === 'n8n-nodes-base.manualTrigger')).toHaveLength(0);
		expect(nodes).toHaveLength((workflow.nodes as IDataObject[]).length);
		expect(started.connections).toEqual(workflow.connections);
	});

	it('refuses a workflow without exactly one Manual Trigger', () => {
		expect(() => withWebhookStart({ nodes: [] }, 'x')).toThrow(/one Manual Trigger/);
	});
});

describe('stopProcess', () => {
	it('ends what a process started when the process itself is killed with SIGKILL', async () => {
		const child = spawn('sh', ['-c', 'sleep 60 & echo $!; wait'], {
			stdio: ['ignore', 'pipe', 'ignore'],
		});
		const grandchild = await new Promise<number>((resolve) =>
			child.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
		);
		expect(alive(grandchild)).toBe(true);
		await stopProcess(child, 'SIGKILL');
		expect(child.signalCode).toBe('SIGKILL');
		expect(alive(grandchild)).toBe(false);
	});
});
