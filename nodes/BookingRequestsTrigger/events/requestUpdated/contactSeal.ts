/**
 * The earlier contact values of a watched request, kept so that Request Updated can say what they were
 * (`previous`), but never in clear: sealed with AES-256-CTR under a key derived from the request's id.
 * The state holds that id only as an 8-character hash (state/keySet.ts `codeOf`), so the static data alone
 * does not reveal a name, e-mail or phone; whoever knows the id can read the request from the API anyway.
 *
 * The fields never hold the two separator characters (fields.ts `contactOf`). Sealed form (base64url): 4 random bytes (the counter block's start) + the encrypted text, whose first
 * byte checks the key (a state edited by hand or a code collision reads back as "not known").
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

import type { Contact } from './fields';
import { CONTACT_FIELDS } from './fields';

const FIELD_SEPARATOR = '\u001f';
const NULL_FIELD = '\u0000';
const NONCE_BYTES = 4;

function keyOf(id: string): Buffer {
	return createHash('sha256').update(`booking-requests-trigger/contact/v1:${id}`).digest();
}

function counterBlock(nonce: Buffer): Buffer {
	const block = Buffer.alloc(16);
	nonce.copy(block, 0);
	return block;
}

export function seal(id: string, contact: Contact): string {
	const key = keyOf(id);
	const text = CONTACT_FIELDS.map((field) => contact[field] ?? NULL_FIELD).join(FIELD_SEPARATOR);
	const nonce = randomBytes(NONCE_BYTES);
	const cipher = createCipheriv('aes-256-ctr', key, counterBlock(nonce));
	const body = Buffer.concat([cipher.update(Buffer.concat([key.subarray(0, 1), Buffer.from(text, 'utf8')])), cipher.final()]);
	return Buffer.concat([nonce, body]).toString('base64url');
}

/** The contact sealed for `id`; undefined when it cannot be read back with that id's key. */
export function unseal(id: string, sealed: string): Contact | undefined {
	const bytes = Buffer.from(sealed, 'base64url');
	if (bytes.length < NONCE_BYTES + 1) return undefined;
	const key = keyOf(id);
	const decipher = createDecipheriv('aes-256-ctr', key, counterBlock(bytes.subarray(0, NONCE_BYTES)));
	const plain = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES)), decipher.final()]);
	if (plain[0] !== key[0]) return undefined;
	const parts = plain.subarray(1).toString('utf8').split(FIELD_SEPARATOR);
	if (parts.length !== CONTACT_FIELDS.length) return undefined;
	const contact = {} as Contact;
	CONTACT_FIELDS.forEach((field, i) => (contact[field] = parts[i] === NULL_FIELD ? null : parts[i]));
	return contact;
}
