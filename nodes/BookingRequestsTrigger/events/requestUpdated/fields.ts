/**
 * The fields Request Updated watches, as the trigger keeps them between polls, and how two readings of
 * a request differ. Pure. Notes are kept only as a hash (their text is never in the state); contact
 * fields are kept sealed (contactSeal.ts).
 */
import type { BookingRequest } from '../../../shared/types';
import { timestampMs } from '../../../shared/utils';
import { sha256Base64url } from '../../state/keySet';

/**
 * "Fields to Watch": the option's values (all watched by default, in this order) and their names in the
 * editor. `contact` stands for the four contact fields. The one list: the option and its check use it.
 */
export const WATCH_GROUP_NAMES = {
	status: 'Status',
	lead_status: 'Lead Status',
	internal_notes: 'Internal Notes',
	completed_at: 'Completed At',
	contact: 'Contact (Name, E-Mail, Phone)',
} as const;
export type WatchGroup = keyof typeof WATCH_GROUP_NAMES;
export const WATCH_GROUPS = Object.keys(WATCH_GROUP_NAMES) as WatchGroup[];

/** Request Updated's options, as read (index.ts). */
export interface UpdateSettings {
	/** "Watch the Newest (Requests)". */
	watchNewest: number;
	/** "Fields to Watch". */
	fields: WatchGroup[];
	/** "Only When Status Changes To" / "Only When Lead Status Changes To": trimmed, lower case; empty = any. */
	statusTo: string[];
	leadStatusTo: string[];
}

export const CONTACT_FIELDS = ['first_name', 'last_name', 'email', 'phone'] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];
export type Contact = Record<ContactField, string | null>;

/** The names `changed_fields` can hold, in the order it lists them. */
export const CHANGE_FIELDS = ['status', 'lead_status', 'internal_notes', 'completed_at', ...CONTACT_FIELDS] as const;
export type ChangeField = (typeof CHANGE_FIELDS)[number];

/** A request's watched values as remembered. */
export interface Watched {
	status: string | null;
	lead_status: string | null;
	/** A 4-character hash of `internal_notes` (null when there are none). */
	notes: string | null;
	/** `completed_at` in ms, or `#` + a hash when it is not a readable timestamp, or null. */
	completed: string | null;
	/** The contact fields; undefined when the kept copy could not be read back (it is then not compared). */
	contact: Contact | undefined;
}

function text(value: unknown): string | null {
	if (value === null || value === undefined) return null;
	return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A short base64url hash (4 characters: 24 bits), for values the state must not hold in clear. */
export function shortHash(value: string, length = 4): string {
	return sha256Base64url(value).slice(0, length);
}

/** Milliseconds a record holds in 7 characters (up to the year 2109). */
export const MAX_RECORD_MS = 64 ** 7;

function completedKey(value: unknown): string | null {
	if (value === null || value === undefined || value === '') return null;
	const ms = timestampMs(value);
	return ms !== null && ms >= 0 && ms < MAX_RECORD_MS ? String(ms) : `#${shortHash(String(text(value)), 6)}`;
}

/** Status and lead status are labels: kept up to this length (a longer one is compared on its start). */
const MAX_LABEL_LENGTH = 200;

function label(value: unknown): string | null {
	return text(value)?.slice(0, MAX_LABEL_LENGTH) ?? null;
}

/** The values of `request` that Request Updated compares. */
export function watchedOf(request: BookingRequest): Watched {
	const notes = text(request.internal_notes);
	return {
		status: label(request.status),
		lead_status: label(request.lead_status),
		notes: notes === null || notes === '' ? null : shortHash(notes),
		completed: completedKey(request.completed_at),
		contact: contactOf(request),
	};
}

function withoutSeparators(value: string | null): string | null {
	if (value === null || (!value.includes('\u0000') && !value.includes('\u001f'))) return value;
	return value.split('\u0000').join(' ').split('\u001f').join(' ');
}

/**
 * The contact fields of `request` as they are kept and compared: the two control characters the form
 * sealed before 0.2 separated fields with (contactSeal.ts `unsealLegacy`) read as spaces, so that a
 * contact compares the same whichever form it was sealed in.
 */
export function contactOf(request: BookingRequest): Contact {
	const contact = {} as Contact;
	for (const field of CONTACT_FIELDS) contact[field] = withoutSeparators(text((request as unknown as Record<string, unknown>)[field]));
	return contact;
}

/** The fields that differ between two readings, in CHANGE_FIELDS order (contact only when both are known). */
export function changedFields(before: Watched, after: Watched): ChangeField[] {
	const changed: ChangeField[] = [];
	if (before.status !== after.status) changed.push('status');
	if (before.lead_status !== after.lead_status) changed.push('lead_status');
	if (before.notes !== after.notes) changed.push('internal_notes');
	if (before.completed !== after.completed) changed.push('completed_at');
	if (before.contact && after.contact) for (const field of CONTACT_FIELDS) if (before.contact[field] !== after.contact[field]) changed.push(field);
	return changed;
}

/** The fields of the selected groups. */
export function selectedFields(groups: readonly WatchGroup[]): Set<ChangeField> {
	const fields = new Set<ChangeField>();
	for (const group of groups) {
		if (group === 'contact') for (const field of CONTACT_FIELDS) fields.add(field);
		else fields.add(group);
	}
	return fields;
}

/** `completed_at` as the API writes it (ISO with milliseconds); null when unknown or unreadable. */
function completedValue(key: string | null): string | null {
	return key === null || key.startsWith('#') ? null : new Date(Number(key)).toISOString();
}

/** The earlier values of the changed fields (`internal_notes` is only named in `changed_fields`). */
export function previousValues(before: Watched, changed: ChangeField[]): Record<string, string | null> {
	const previous: Record<string, string | null> = {};
	for (const field of changed) {
		if (field === 'internal_notes') continue;
		if (field === 'status' || field === 'lead_status') previous[field] = before[field];
		else if (field === 'completed_at') previous[field] = completedValue(before.completed);
		else previous[field] = before.contact?.[field] ?? null;
	}
	return previous;
}
