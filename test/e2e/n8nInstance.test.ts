import { rawOutputJson } from './n8nInstance';

describe('rawOutputJson: the run data of `n8n execute --rawOutput`', () => {
	const runData = {
		data: { resultData: { lastNodeExecuted: 'Send email' } },
		note: 'a } inside a string',
	};
	const printed = JSON.stringify(runData, null, 2);

	it.each([
		['alone', `${printed}\n`],
		[
			'after a task runner line that has braces',
			`Task Broker ready on 127.0.0.1:5679 {pid: 1}\n${printed}\n`,
		],
		[
			'before a task runner line',
			`${printed}\nRegistered runner "JS Task Runner" (GpTwhiLYM78s6P9KNxTSU) \n`,
		],
	])('finds the JSON %s', (_, stdout) => {
		expect(JSON.parse(rawOutputJson(stdout) as string)).toEqual(runData);
	});

	it('finds nothing when n8n printed no run data', () => {
		expect(
			rawOutputJson('Error executing workflow. See log messages for details.\n'),
		).toBeUndefined();
	});
});
