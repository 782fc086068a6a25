import { simplifyResponse } from '../../nodes/FormsWtf/shared/helpers/output';
import type { FormResponse } from '../../nodes/FormsWtf/shared/transport/types';

const base: FormResponse = {
	id: 'r1',
	walletAddress: 'anon_1d2f7c1e-8a55-4b8a-9d70-3c7e7d3f0a11',
	ensName: null,
	submittedAt: '2025-05-01T09:30:00.123Z',
	durationSeconds: 42,
	answers: [],
};

describe('simplifyResponse', () => {
	it('keys answers by label and keeps the other fields as sent', () => {
		const simplified = simplifyResponse({
			...base,
			extra: 'kept',
			answers: [
				{ questionId: 'q1', questionLabel: 'What is your name?', value: 'Ada' },
				{ questionId: 'q2', questionLabel: 'Rating', value: '5' },
			],
		});
		expect(simplified).toEqual({
			...base,
			extra: 'kept',
			answers: { 'What is your name?': 'Ada', Rating: '5' },
		});
	});

	it('does not let repeated labels overwrite each other', () => {
		const simplified = simplifyResponse({
			...base,
			answers: [
				{ questionId: 'q1', questionLabel: 'Email', value: 'a@x.io' },
				{ questionId: 'q2', questionLabel: 'Email', value: 'b@x.io' },
				{ questionId: 'q3', questionLabel: 'Email', value: 'c@x.io' },
				{ questionId: 'q4', questionLabel: 'Email (2)', value: 'd@x.io' },
			],
		});
		expect(simplified.answers).toEqual({
			Email: 'a@x.io',
			'Email (2)': 'b@x.io',
			'Email (3)': 'c@x.io',
			'Email (2) (2)': 'd@x.io',
		});
	});

	it('passes unknown types and non-string values through, and keys a missing label by question id', () => {
		const simplified = simplifyResponse({
			...base,
			answers: [
				{ questionId: 'q1', questionLabel: 'Score', value: 7 },
				{ questionId: 'q2', questionLabel: 'Picks', value: ['a', 'b'] as unknown as string },
				{ questionId: 'q3', questionLabel: '', value: 'x' },
				{ questionId: 'q4', questionLabel: 'Nothing', value: undefined as unknown as string },
			],
		});
		expect(simplified.answers).toEqual({ Score: 7, Picks: ['a', 'b'], q3: 'x', Nothing: null });
		expect(simplified.ensName).toBeNull();
	});
});
