/**
 * A contact as symbols of 64 values (contactSeal.ts seals them, one state character each): the
 * contact's four fields in order, a separator between them, a symbol for a field that is null.
 * A lower-case letter, a digit or a common sign is one symbol, a capital two (a shift and the letter),
 * a common mail domain or ending one, any other character three (code points below 4096) or five.
 */
import type { Contact } from './fields';
import { CONTACT_FIELDS } from './fields';

const PLAIN = "abcdefghijklmnopqrstuvwxyz0123456789.@-_+ '()/,";
const FIELD = PLAIN.length;
const NULL = FIELD + 1;
const SHIFT = FIELD + 2;
const ESCAPE_SHORT = FIELD + 3;
const ESCAPE_LONG = FIELD + 4;
const FRAGMENT = FIELD + 5;
/** Written as one symbol each (longest first where one starts another). */
const FRAGMENTS = ['@gmail.com', '@yahoo.com', '@hotmail.com', '@outlook.com', '@icloud.com', '@aol.com', '@live.com', '@gmx.de', '@web.de', '.co.uk', '.com', '.net'];

const A = 'A'.charCodeAt(0);
const Z = 'Z'.charCodeAt(0);

/** Base-64 digits of a code point: 2 (below 4096) or 4. */
function escaped(codePoint: number, out: number[]): void {
	if (codePoint < 4096) out.push(ESCAPE_SHORT, codePoint >> 6, codePoint & 63);
	else out.push(ESCAPE_LONG, (codePoint >> 18) & 63, (codePoint >> 12) & 63, (codePoint >> 6) & 63, codePoint & 63);
}

function textSymbols(text: string, out: number[]): void {
	let i = 0;
	while (i < text.length) {
		const fragment = text[i] === '@' || text[i] === '.' ? FRAGMENTS.findIndex((candidate) => text.startsWith(candidate, i)) : -1;
		if (fragment >= 0) {
			out.push(FRAGMENT + fragment);
			i += FRAGMENTS[fragment].length;
			continue;
		}
		const codePoint = text.codePointAt(i) as number;
		const char = String.fromCodePoint(codePoint);
		const plain = PLAIN.indexOf(char);
		if (plain >= 0) out.push(plain);
		else if (codePoint >= A && codePoint <= Z) out.push(SHIFT, codePoint - A);
		else escaped(codePoint, out);
		i += char.length;
	}
}

export function symbolsOfContact(contact: Contact): Uint8Array {
	const out: number[] = [];
	CONTACT_FIELDS.forEach((field, i) => {
		if (i > 0) out.push(FIELD);
		const value = contact[field];
		if (value === null) out.push(NULL);
		else textSymbols(value, out);
	});
	return Uint8Array.from(out);
}

/** The contact of these symbols; undefined when they are not a contact's. */
export function contactOfSymbols(symbols: Uint8Array): Contact | undefined {
	const fields: Array<string | null> = [];
	let text = '';
	let isNull = false;
	for (let i = 0; i < symbols.length; i++) {
		const symbol = symbols[i];
		if (symbol === FIELD) {
			fields.push(isNull ? null : text);
			text = '';
			isNull = false;
		} else if (symbol === NULL) isNull = true;
		else if (symbol < FIELD) text += PLAIN[symbol];
		else if (symbol === SHIFT) text += String.fromCharCode(A + symbols[++i]);
		else if (symbol === ESCAPE_SHORT) text += String.fromCodePoint((symbols[++i] << 6) | symbols[++i]);
		else if (symbol === ESCAPE_LONG) text += String.fromCodePoint(((symbols[++i] << 18) | (symbols[++i] << 12) | (symbols[++i] << 6) | symbols[++i]) % 0x110000);
		else if (symbol - FRAGMENT < FRAGMENTS.length) text += FRAGMENTS[symbol - FRAGMENT];
		else return undefined;
	}
	fields.push(isNull ? null : text);
	if (fields.length !== CONTACT_FIELDS.length) return undefined;
	const contact = {} as Contact;
	CONTACT_FIELDS.forEach((field, i) => (contact[field] = fields[i]));
	return contact;
}
