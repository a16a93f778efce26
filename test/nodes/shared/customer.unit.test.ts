import fc from 'fast-check';

import { customerKeys, normaliseEmail, normalisePhone, sameCustomer } from '../../../nodes/shared/customer';

describe('customer identity', () => {
	it('compares e-mails trimmed and case-insensitively, and refuses non-addresses', () => {
		expect(normaliseEmail('  Ada.Lovelace@Example.COM ')).toBe('ada.lovelace@example.com');
		expect(normaliseEmail('not an address')).toBeUndefined();
		expect(normaliseEmail('@example.com')).toBeUndefined();
		expect(normaliseEmail('ada@')).toBeUndefined();
		expect(normaliseEmail(null)).toBeUndefined();
		expect(normaliseEmail(42)).toBeUndefined();
	});

	it('reads a typed North American number and the international form as the same digits', () => {
		expect(normalisePhone('(512) 555-0199')).toBe('15125550199');
		expect(normalisePhone('+15125550199')).toBe('15125550199');
		expect(normalisePhone('1-512-555-0199')).toBe('15125550199');
		expect(normalisePhone('+1 (512) 555 0199')).toBe('15125550199');
	});

	it('keeps other international numbers as their digits, 00 prefix included', () => {
		expect(normalisePhone('+44 20 7946 0958')).toBe('442079460958');
		expect(normalisePhone('0044 20 7946 0958')).toBe('442079460958');
	});

	it('keeps national numbers of other lengths as typed, and drops numbers too short to identify anyone', () => {
		expect(normalisePhone('020 7946 0958')).toBe('02079460958');
		expect(normalisePhone('555-01')).toBeUndefined();
		expect(normalisePhone('')).toBeUndefined();
		expect(normalisePhone(undefined)).toBeUndefined();
	});

	it('gives the keys a customer is known by and matches on any shared key', () => {
		expect(customerKeys({ email: 'A@x.io', phone: '(512) 555-0199' })).toEqual(['e:a@x.io', 'p:15125550199']);
		expect(customerKeys({ email: null, phone: null })).toEqual([]);
		expect(sameCustomer({ email: 'a@x.io' }, { email: ' A@X.IO' })).toBe(true);
		expect(sameCustomer({ email: 'a@x.io', phone: '(512) 555-0199' }, { email: 'b@y.io', phone: '+15125550199' })).toBe(true);
		expect(sameCustomer({ email: 'a@x.io' }, { email: 'b@x.io' })).toBe(false);
		expect(sameCustomer({}, {})).toBe(false);
	});

	it('placeholders identify nobody: a repeated digit or a run as the phone, a placeholder name or domain as the e-mail', () => {
		for (const phone of ['0000000000', '(000) 000-0000', '+1 111 111 1111', '5555555', '1234567890', '+44 1234 567890', '0123456789', '9876543210']) {
			expect([phone, normalisePhone(phone)]).toEqual([phone, undefined]);
		}
		for (const email of ['test@test.com', 'TEST@example.com', 'noreply@shop.io', 'none@none.com', 'someone@test.com', 'x@y.io', 'n/a@n.a']) {
			expect([email, normaliseEmail(email)]).toEqual([email, undefined]);
		}
		// Real-looking values still count (including the fictional 555-01xx range the tests use).
		expect(normalisePhone('+15125550100')).toBe('15125550100');
		expect(normalisePhone('(512) 555-0199')).toBe('15125550199');
		expect(normaliseEmail('tester@example.com')).toBe('tester@example.com');
		expect(normaliseEmail('nobody@example.com')).toBe('nobody@example.com');
		// Two strangers who typed the same placeholder are not one customer.
		expect(sameCustomer({ email: 'ana@example.com', phone: '0000000000' }, { email: 'bo@example.com', phone: '000-000-0000' })).toBe(false);
		expect(sameCustomer({ email: 'test@test.com', phone: '+15125550101' }, { email: 'test@test.com', phone: '+15125550102' })).toBe(false);
		expect(customerKeys({ email: 'test@test.com', phone: '0000000000' })).toEqual([]);
	});

	it('reads every phone as the rule written as regular expressions does (random typed and international numbers)', () => {
		// The rule as first written (the oracle): the digits by a regular expression, the placeholders by the runs' text.
		const byRegExp = (value: unknown): string | undefined => {
			if (typeof value !== 'string' && typeof value !== 'number') return undefined;
			const text = String(value).trim();
			let digits = text.replace(/\D/g, '');
			const international = text.startsWith('+') || digits.startsWith('00');
			if (!international && digits.length === 10) digits = `1${digits}`;
			else if (digits.startsWith('00') && !text.startsWith('+')) digits = digits.slice(2);
			const national = digits.slice(-10);
			const placeholder = /^(\d)\1+$/.test(national) || ['01234567890', '9876543210'].some((run) => run.includes(national));
			return digits.length >= 7 && !placeholder ? digits : undefined;
		};
		const typed = fc.string({ unit: fc.constantFrom(...'+0123456789 ()-.x'.split('')), maxLength: 18 });
		const digits = fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: 5, maxLength: 14 });
		// runs and repeats, cut anywhere, behind any prefix: the placeholders' edges
		const runs = fc
			.tuple(fc.constantFrom('', '+', '+1', '00', '1', '+44'), fc.constantFrom('01234567890', '9876543210', '1111111111', '78901234567890', '32109876543210', '5555555'), fc.nat(13), fc.nat(13))
			.map(([prefix, run, from, cut]) => prefix + run.slice(Math.min(from, cut), Math.max(from, cut) + 1));
		fc.assert(
			fc.property(fc.oneof(typed, digits, digits.map((d) => `+${d}`), runs, fc.integer({ min: 0, max: 99_999_999_999 })), (phone) => {
				expect(normalisePhone(phone)).toBe(byRegExp(phone));
			}),
			{ numRuns: 20_000, seed: 42 },
		);
	});
});
