/**
 * Find by Customer's parameter checks, without I/O: what the E-Mail and Phone parameters become, and
 * that every bad input is an error naming the parameter before any request (the request helper of
 * the fake context fails the test if it is ever called).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { execute, readCustomer } from '../../../../../nodes/BookingRequests/actions/bookingRequest/findByCustomer.operation';

function fakeContext(parameters: IDataObject): { ctx: IExecuteFunctions; requests: unknown[] } {
	const requests: unknown[] = [];
	const ctx = {
		getNode: () => ({ id: 'n', name: 'Booking Requests', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} }),
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
		getTimezone: () => 'UTC',
		getCredentials: async () => ({ apiKey: `brk_${'ab'.repeat(16)}`, baseUrl: 'https://unit.example.com' }),
		helpers: {
			httpRequestWithAuthentication: async (...args: unknown[]) => {
				requests.push(args);
				throw new Error('no request may be sent');
			},
		},
	} as unknown as IExecuteFunctions;
	return { ctx, requests };
}

describe('readCustomer', () => {
	test.each([
		[{ email: '  Ann.Lee@EXAMPLE.com ', phone: '' }, { email: 'ann.lee@example.com' }],
		[{ email: '', phone: ' (512) 555-0199 ' }, { phone: '(512) 555-0199' }],
		[{ email: null, phone: 15125550199 }, { phone: '15125550199' }],
		[{ email: 'ann@example.com', phone: '+44 7700 900123' }, { email: 'ann@example.com', phone: '+44 7700 900123' }],
	])('%j → %j', (parameters, expected) => {
		expect(readCustomer(fakeContext(parameters).ctx, 0)).toEqual(expected);
	});
});

describe('bad input: a clear error naming the parameter, and no request', () => {
	test.each([
		[{}, 'Give the customer\'s "E-Mail" or "Phone" (or both)'],
		[{ email: null, phone: null }, 'Give the customer\'s "E-Mail" or "Phone" (or both)'],
		[{ email: 'ann.lee', phone: '' }, 'Parameter "E-Mail" is not an e-mail address, got "ann.lee"'],
		[{ email: '@example.com' }, 'Parameter "E-Mail" is not an e-mail address, got "@example.com"'],
		[{ email: { address: 'ann@example.com' } }, 'Parameter "E-Mail" is not an e-mail address, got "{"address":"ann@example.com"}"'],
		[{ email: 'x'.repeat(500) }, `Parameter "E-Mail" is not an e-mail address, got "${'x'.repeat(40)}…"`],
		[{ phone: '12-34' }, 'Parameter "Phone" has fewer than 7 digits, got "12-34"'],
		[{ phone: 'call me' }, 'Parameter "Phone" has fewer than 7 digits, got "call me"'],
		[{ email: 'ann@example.com', createdAfter: 'soon' }, 'Parameter "Created After" is not a valid date'],
		[{ email: 'ann@example.com', limit: 0 }, 'Limit must be a whole number of at least 1, got 0'],
	])('%j', async (parameters, message) => {
		const { ctx, requests } = fakeContext(parameters);
		await expect(execute.call(ctx, 0)).rejects.toThrow(message);
		expect(requests).toEqual([]);
	});
});
