import { fileNameFromContentDisposition } from '../../nodes/FormsWtf/actions/response/export.operation';

describe('fileNameFromContentDisposition', () => {
	it('reads quoted, bare and RFC 6266 extended names', () => {
		expect(fileNameFromContentDisposition('attachment; filename="survey-responses.csv"')).toBe(
			'survey-responses.csv',
		);
		expect(fileNameFromContentDisposition('attachment; filename=plain.json')).toBe('plain.json');
		expect(
			fileNameFromContentDisposition(
				`attachment; filename="fallback.csv"; filename*=UTF-8''r%C3%A9ponses.csv`,
			),
		).toBe('réponses.csv');
		expect(fileNameFromContentDisposition('attachment; filename="a \\"quoted\\" name.csv"')).toBe(
			'a "quoted" name.csv',
		);
	});

	it('drops any path the server put in the name', () => {
		expect(fileNameFromContentDisposition('attachment; filename="../../etc/passwd"')).toBe(
			'passwd',
		);
		expect(fileNameFromContentDisposition('attachment; filename=".."')).toBeUndefined();
	});

	it('gives undefined without a file name', () => {
		expect(fileNameFromContentDisposition(undefined)).toBeUndefined();
		expect(fileNameFromContentDisposition('attachment')).toBeUndefined();
	});
});
