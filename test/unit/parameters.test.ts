import { parseUserDate } from '../../nodes/FormsWtf/shared/helpers/parameters';

describe('parseUserDate', () => {
	it('keeps an explicit zone', () => {
		expect(parseUserDate('2025-05-01T09:30:00Z', 'Europe/Berlin')?.toISOString()).toBe(
			'2025-05-01T09:30:00.000Z',
		);
		expect(parseUserDate('2025-05-01T09:30:00.123+02:00', 'UTC')?.toISOString()).toBe(
			'2025-05-01T07:30:00.123Z',
		);
		expect(parseUserDate('2025-05-01T09:30:00-0530', 'UTC')?.toISOString()).toBe(
			'2025-05-01T15:00:00.000Z',
		);
	});

	it('reads a date without zone in the workflow time zone, across daylight saving time', () => {
		expect(parseUserDate('2025-05-01T09:30:00', 'Europe/Berlin')?.toISOString()).toBe(
			'2025-05-01T07:30:00.000Z',
		);
		expect(parseUserDate('2025-01-15T09:30:00', 'Europe/Berlin')?.toISOString()).toBe(
			'2025-01-15T08:30:00.000Z',
		);
		expect(parseUserDate('2025-05-01', 'America/New_York')?.toISOString()).toBe(
			'2025-05-01T04:00:00.000Z',
		);
		expect(parseUserDate('2025-05-01 09:30', 'UTC')?.toISOString()).toBe(
			'2025-05-01T09:30:00.000Z',
		);
	});

	it('accepts Date objects, epoch milliseconds and Luxon-like values', () => {
		expect(parseUserDate(new Date('2025-05-01T00:00:00Z'), 'UTC')?.toISOString()).toBe(
			'2025-05-01T00:00:00.000Z',
		);
		expect(parseUserDate(1746057600000, 'UTC')?.toISOString()).toBe('2025-05-01T00:00:00.000Z');
		expect(
			parseUserDate({ toISO: () => '2025-05-01T00:00:00.000+00:00' }, 'UTC')?.toISOString(),
		).toBe('2025-05-01T00:00:00.000Z');
	});

	it('refuses what is not a date', () => {
		for (const value of [
			'yesterday',
			'2025-13-01',
			'2025-02-30',
			'2025-05-01T25:00',
			'',
			null,
			{},
			Number.NaN,
		]) {
			expect(parseUserDate(value, 'UTC')).toBeUndefined();
		}
	});
});
