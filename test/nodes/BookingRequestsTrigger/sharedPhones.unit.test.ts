/**
 * state/customers.ts `sharedPhoneCodes` normalises only the e-mails of phones read in more than
 * MAX_EMAILS_PER_PHONE bookings. Checked against the version that normalised every booking's (kept
 * here as the oracle): the same codes in the same order, over random bookings with few phones written
 * in several forms, e-mails differing in case and spaces, placeholders and values that are not text.
 */
import fc from 'fast-check';

import { customerCodes, MAX_EMAILS_PER_PHONE, sharedPhoneCodes } from '../../../nodes/BookingRequestsTrigger/state/customers';
import { normaliseEmail, normalisePhone } from '../../../nodes/shared/customer';

/** The version before: every booking's phone and e-mail normalised. */
function everyEmailNormalised(bookings: Iterable<{ email?: unknown; phone?: unknown }>): Set<string> {
	const emails = new Map<string, string | Set<string>>();
	for (const booking of bookings) {
		const phone = normalisePhone(booking.phone);
		const email = normaliseEmail(booking.email);
		if (!phone || !email) continue;
		const known = emails.get(phone);
		if (known === undefined) emails.set(phone, email);
		else if (typeof known === 'string') {
			if (known !== email) emails.set(phone, new Set([known, email]));
		} else known.add(email);
	}
	const shared = new Set<string>();
	for (const [phone, known] of emails) if (typeof known !== 'string' && known.size > MAX_EMAILS_PER_PHONE) shared.add(customerCodes({ phone: `+${phone}` })[0]);
	return shared;
}

const phone = fc.oneof(
	fc.integer({ min: 0, max: 2 }).map((n) => `+1 555 010 000${n}`),
	fc.integer({ min: 0, max: 2 }).map((n) => `555-010-000${n}`),
	fc.integer({ min: 0, max: 2 }).map((n) => `00155501000${n}`),
	fc.constantFrom('+44 20 7946 0000', '1111111111', '', ' ', undefined, null, 5550100001),
);
const email = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom('not-an-email', 'a b@example.com', '', undefined, 42) },
	fc.tuple(fc.integer({ min: 0, max: 7 }), fc.constantFrom('', ' ', 'X')).map(([n, variant]) => (variant === 'X' ? `Ann${n}@Example.com` : `${variant}ann${n}@example.com${variant}`)),
	fc.constantFrom('test@example.com', null),
);

describe('sharedPhoneCodes', () => {
	it('gives the codes the version normalising every e-mail gave, in its order', () => {
		fc.assert(
			fc.property(fc.array(fc.record({ phone, email }, { requiredKeys: [] }), { maxLength: 80 }), (bookings) => {
				expect([...sharedPhoneCodes(bookings)]).toEqual([...everyEmailNormalised(bookings)]);
			}),
			{ numRuns: 3_000, seed: 1234 },
		);
	});

	it('makes a phone shared from its fourth distinct e-mail, in the order the phones came', () => {
		const bookings = [
			...['a', 'b', 'c'].map((name) => ({ phone: '+1 555 010 0002', email: `${name}@example.org` })),
			...['a', 'b', 'c', 'd'].map((name) => ({ phone: '555 010 0001', email: `${name}@example.org` })),
			{ phone: '+15550100002', email: 'D@example.org ' },
		];
		expect([...sharedPhoneCodes(bookings)]).toEqual([customerCodes({ phone: '+15550100002' })[0], customerCodes({ phone: '+15550100001' })[0]]);
		expect([...sharedPhoneCodes(bookings.slice(0, 7))]).toEqual([customerCodes({ phone: '+15550100001' })[0]]);
		// A phone's first booking without a usable e-mail does not place it: the order is that of the first usable one.
		const late = [{ phone: '+1 555 010 0001', email: 'not-an-email' }, ...bookings.slice(3, 7).map((booking) => ({ ...booking, phone: '+1 555 010 0002' })), ...bookings.slice(3, 7)];
		expect([...sharedPhoneCodes(late)]).toEqual([customerCodes({ phone: '+15550100002' })[0], customerCodes({ phone: '+15550100001' })[0]]);
		expect([...sharedPhoneCodes(late)]).toEqual([...everyEmailNormalised(late)]);
	});
});
