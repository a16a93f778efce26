/**
 * The earlier contact values of a watched request, kept so that Request Updated can say what they were
 * (`previous`), but never in clear: sealed under a key derived from the request's id. The state holds
 * that id only as a hash (records.ts), so the static data alone does not reveal a name, e-mail or
 * phone; whoever knows the id can read the request from the API anyway.
 *
 * The sealed form is as long as the contact itself, give or take (the state's size is what a contact
 * costs there: docs/how-it-works.md): the contact is written as symbols of the 64 characters the state
 * uses (contactSymbols.ts: one per lower-case letter, digit or common sign, two for a capital, a few for
 * other characters, one for a common mail domain), and each symbol is shifted by a key stream (AES-256-CTR
 * under the request's key, 6 bits of each byte, which covers the 64 symbols evenly). The stream starts
 * at a synthetic nonce: the first 24 bits of an HMAC of the contact under the same key (4 characters
 * before the text). It also checks the key and the text on reading back (a state edited by hand or an id
 * collision reads as "not known"), and it tells whether a contact is the one sealed without unsealing
 * it (`sealedContactIs`). Two different contacts of one request share a key stream only when their
 * nonces collide (1 in 16.7 million): what that would reveal is how their symbols differ.
 *
 * Records written before this form (AES-256-CTR over bytes with a random 4-byte nonce, base64url: about
 * a third longer) are read back with `unsealLegacy` and sealed again in this form.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac } from 'node:crypto';

import { contactOfSymbols, symbolsOfContact } from './contactSymbols';
import type { Contact } from './fields';
import { CONTACT_FIELDS } from './fields';

const SYMBOLS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const NONCE_CHARS = 4;

const keyOf = (id: string): Buffer => createHash('sha256').update(`booking-requests-trigger/contact/v2:${id}`).digest();

/** The synthetic nonce of these symbols under this key: 4 characters (24 bits). */
function nonceOf(key: Buffer, symbols: Uint8Array): string {
	return createHmac('sha256', key).update(symbols).digest('base64url').slice(0, NONCE_CHARS);
}

/** The key stream's symbols (0..63) from the nonce on. */
function keyStream(key: Buffer, nonce: string, length: number): Uint8Array {
	const block = Buffer.alloc(16);
	Buffer.from(nonce, 'base64url').copy(block, 0);
	const cipher = createCipheriv('aes-256-ctr', key, block);
	return Uint8Array.from(Buffer.concat([cipher.update(Buffer.alloc(length)), cipher.final()]), (byte) => byte & 63);
}

export function seal(id: string, contact: Contact): string {
	const key = keyOf(id);
	const symbols = symbolsOfContact(contact);
	const nonce = nonceOf(key, symbols);
	const stream = keyStream(key, nonce, symbols.length);
	let body = '';
	for (let i = 0; i < symbols.length; i++) body += SYMBOLS[(symbols[i] + stream[i]) & 63];
	return nonce + body;
}

/** The contact sealed for `id`; undefined when it cannot be read back with that id's key. */
export function unseal(id: string, sealed: string): Contact | undefined {
	if (sealed.length < NONCE_CHARS || !/^[A-Za-z0-9_-]*$/.test(sealed)) return undefined;
	const key = keyOf(id);
	const nonce = sealed.slice(0, NONCE_CHARS);
	const body = sealed.slice(NONCE_CHARS);
	const stream = keyStream(key, nonce, body.length);
	const symbols = Uint8Array.from(body, (char, i) => (SYMBOLS.indexOf(char) - stream[i]) & 63);
	if (nonceOf(key, symbols) !== nonce) return undefined;
	return contactOfSymbols(symbols);
}

/** Whether `contact` is the one sealed for `id`, without unsealing it: its nonce is the one stored. */
export function sealedContactIs(id: string, sealed: string, contact: Contact): boolean {
	return sealed.length >= NONCE_CHARS && nonceOf(keyOf(id), symbolsOfContact(contact)) === sealed.slice(0, NONCE_CHARS);
}

const LEGACY_SEPARATOR = '\u001f';
const LEGACY_NULL = '\u0000';
const LEGACY_NONCE_BYTES = 4;

/** A contact sealed by versions before 0.2 (bytes, random nonce, a check byte); undefined when it cannot be read back. */
export function unsealLegacy(id: string, sealed: string): Contact | undefined {
	const bytes = Buffer.from(sealed, 'base64url');
	if (bytes.length < LEGACY_NONCE_BYTES + 1) return undefined;
	const key = createHash('sha256').update(`booking-requests-trigger/contact/v1:${id}`).digest();
	const block = Buffer.alloc(16);
	bytes.subarray(0, LEGACY_NONCE_BYTES).copy(block, 0);
	const decipher = createDecipheriv('aes-256-ctr', key, block);
	const plain = Buffer.concat([decipher.update(bytes.subarray(LEGACY_NONCE_BYTES)), decipher.final()]);
	if (plain[0] !== key[0]) return undefined;
	const parts = plain.subarray(1).toString('utf8').split(LEGACY_SEPARATOR);
	if (parts.length !== CONTACT_FIELDS.length) return undefined;
	const contact = {} as Contact;
	CONTACT_FIELDS.forEach((field, i) => (contact[field] = parts[i] === LEGACY_NULL ? null : parts[i]));
	return contact;
}
