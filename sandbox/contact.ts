// A customer's contact in the bodies of the control routes. The contract spells it two ways: a
// session draft's `data.contact` has `firstname`, `lastname`, `email`, `phone`; a request has
// `first_name`, `last_name`, `email`, `phone`. Every control route that takes a contact accepts both
// spellings, in a `contact` object or at the top of the body, so a contact copied from one route's
// example into another is neither refused nor dropped. An unknown key in `contact`, a value that is
// not a string, or two different values for one field are refused with the names that are accepted.

import type { SessionContact } from './types';

type Field = keyof Required<SessionContact>;

/** Each contact field: its name in a session draft, then in a request. */
const SPELLINGS: ReadonlyArray<readonly [Field, string]> = [
	['firstname', 'first_name'],
	['lastname', 'last_name'],
	['email', 'email'],
	['phone', 'phone'],
];

const FIELD_OF = new Map<string, Field>(SPELLINGS.flatMap(([draft, request]) => [[draft, draft] as const, [request, draft] as const]));

export const CONTACT_NAMES = 'firstname or first_name, lastname or last_name, email, phone';

export class ContactError extends Error {}

export interface SplitBody {
	/** The contact in a session draft's spelling; undefined when the body names no contact field. */
	contact?: SessionContact;
	/** The body without `contact` and without the contact fields at its top. */
	rest: Record<string, unknown>;
}

/** The contact of a control route's body (its `contact` object and its top-level contact fields, either spelling). */
export function splitContact(body: Record<string, unknown>): SplitBody {
	const contact: SessionContact = {};
	const from: Partial<Record<Field, string>> = {};
	const put = (name: string, value: unknown, where: string) => {
		const field = FIELD_OF.get(name) as Field;
		if (typeof value !== 'string') throw new ContactError(`${where} must be a string`);
		const before = contact[field];
		if (before !== undefined && before !== value) throw new ContactError(`${from[field]} and ${where} differ: give the ${field === 'firstname' || field === 'lastname' ? 'name' : field} once`);
		contact[field] = value;
		from[field] = where;
	};

	const rest: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(body)) {
		if (name === 'contact') continue;
		if (FIELD_OF.has(name)) put(name, value, name);
		else rest[name] = value;
	}
	const nested = body.contact;
	if (nested !== undefined) {
		if (nested === null || typeof nested !== 'object' || Array.isArray(nested)) throw new ContactError(`contact must be an object with ${CONTACT_NAMES}`);
		for (const [name, value] of Object.entries(nested)) {
			if (!FIELD_OF.has(name)) throw new ContactError(`contact.${name} is not a contact field (${CONTACT_NAMES})`);
			put(name, value, `contact.${name}`);
		}
	}
	return Object.keys(from).length > 0 ? { contact, rest } : { rest };
}

/** The contact in a request's spelling (`first_name`, `last_name`, `email`, `phone`). */
export function asRequestFields(contact: SessionContact | undefined): Record<string, string> {
	const fields: Record<string, string> = {};
	for (const [draft, request] of SPELLINGS) {
		const value = contact?.[draft];
		if (value !== undefined) fields[request] = value;
	}
	return fields;
}
