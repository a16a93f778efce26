/**
 * Request Updated: which watched requests changed since this trigger last read them, as a
 * pure function of (the remembered records, the request pages read in this poll, which requests the
 * New Request part has passed, activation time, now, settings) to (the changes, and what the poll
 * changes in the records: records.ts applies it). The records given are not changed.
 *
 * Rules (docs/booking-requests-trigger.md "Request Updated"):
 * - Watched: a request whose place in the request list (newest first by `created_at`), as read, is
 *   within "Watch the Newest (Requests)". One that leaves it (newer requests pushed it out) is forgotten.
 * - A request is first remembered, silently, when the New Request part has passed it (created at or
 *   before activation, or already reported as new): a creation is New Request, never Request Updated.
 * - A remembered request whose selected fields differ from what was remembered is ONE event (several
 *   changes between two reads are one), with `changed_fields` and `previous`; the record then takes
 *   every new value, so a change that is filtered out (not selected, or another status) is consumed.
 * - A request that existed at activation and is read for the first time later (a range larger than the
 *   first poll reads) with `updated_at` after activation changed since: reported with `changed_fields`
 *   empty and `previous` null (what changed is not known). One created in the last seconds before
 *   activation was read then (ACTIVATION_EDGE_MS): without a record it is new (committed late).
 * - A change's version (its event id: index.ts `updatedEventId`): its `updated_at` ms; a change that did
 *   not move `updated_at` (or without one) is named `h` + a link of a chain: a hash of the record's last
 *   link and the watched VALUES before and after (never of how the record happens to be stored), so the
 *   same change delivered again after a lost save has the same id, and a field flipped back and forth
 *   gets a new id each time.
 */
import { createHash } from 'node:crypto';

import type { BookingRequest } from '../../../shared/types';
import { timestampMs } from '../../../shared/utils';
import { seal, sealedContactIs, unseal, unsealLegacy } from './contactSeal';
import type { UpdatesChange, UpdatesMemory, WatchedRecord } from './records';
import { completedColumn, idCode, LEGACY_SEAL, updatedHash, watchedOfRecord } from './records';
import type { ChangeField, Contact, UpdateSettings, Watched } from './fields';
import { CHANGE_FIELDS, changedFields, contactOf, MAX_RECORD_MS, previousValues, selectedFields, watchedOf } from './fields';
import { EDGE_WINDOW_MS, sortTime } from '../../model/pages';
import type { WatchedRead, WatchedRequests } from '../watched';

export interface RequestChange {
	request: BookingRequest;
	/** What names the change in its event id: `updated_at` in ms, or `h` + a link of the change chain. */
	version: number | string;
	/** Event time: the request's `updated_at`, else the poll's now. */
	at: number;
	/** The changed fields (selected ones); empty when what changed is not known. */
	changedFields: ChangeField[];
	/** Their earlier values (not `internal_notes`); null when not known. */
	previous: Record<string, string | null> | null;
}

export interface DetectInput {
	memory: UpdatesMemory;
	/** The watched requests this poll read (events/watched.ts). */
	watched: WatchedRequests;
	/** Whether the New Request part has passed this request (its creation is handled). */
	passed: (request: BookingRequest) => boolean;
	/** Server time of activation (the state's baseline) and of this poll. */
	since: number;
	now: number;
	/** The activation poll itself: every request read is only remembered. */
	baseline: boolean;
	settings: UpdateSettings;
	/** Only this form's requests are reported (the list is read for every form: Skip Customers Who Booked). */
	form?: string;
}

export interface DetectResult {
	changes: RequestChange[];
	/** What the poll changes in the records. */
	records: UpdatesChange;
}

const norm = (value: string | null): string => (value ?? '').trim().toLowerCase();

/** "Only When … Changes To": with a list set, that field changed to a listed value; with both set, either. */
function passesFilters(settings: UpdateSettings, changed: ChangeField[] | 'unknown', now: Watched): boolean {
	const { statusTo, leadStatusTo } = settings;
	if (statusTo.length === 0 && leadStatusTo.length === 0) return true;
	const moved = (field: ChangeField) => changed === 'unknown' || changed.includes(field);
	return (
		(statusTo.length > 0 && moved('status') && statusTo.includes(norm(now.status))) ||
		(leadStatusTo.length > 0 && moved('lead_status') && leadStatusTo.includes(norm(now.lead_status)))
	);
}

/** The watched values, in a fixed order (the contact's four fields, or null when not known). */
function valuesOf(watched: Watched): unknown[] {
	const { contact } = watched;
	return [watched.status, watched.lead_status, watched.notes, watched.completed, contact ? [contact.first_name, contact.last_name, contact.email, contact.phone] : null];
}

/** The chain's next link (8 characters) for a change from `before` to `after` of the request `id`. */
function nextLink(id: string, record: WatchedRecord, before: Watched, after: Watched): string {
	const text = JSON.stringify([id, record.chain ?? null, valuesOf(before), valuesOf(after)]);
	return createHash('sha256').update(text).digest('base64url').slice(0, 8);
}

/**
 * A request created this little before activation without a record is new, not one the first poll did
 * not read: the first poll reads the request list down to EDGE_WINDOW_MS below its read of page 1 (a
 * little before its "now") and remembers every request there, so one created in that edge and not
 * remembered was committed late, after activation.
 */
const ACTIVATION_EDGE_MS = EDGE_WINDOW_MS + 2_000;

/** Links kept in a record: the first 6 characters (the next link hashes them). */
const KEPT_LINK = 6;

function recordMs(value: number | null): number | null {
	return value !== null && value >= 0 && value < MAX_RECORD_MS ? value : null;
}

/** What one reading of a request is compared as: its watched values, `updated_at` as the record keeps it, its event time. */
interface Current {
	request: BookingRequest;
	rank: number | undefined;
	edge: boolean;
	watched: Watched;
	updatedAt: number | null;
	/** The hash a record keeps of `updated_at` (null: none, or out of the records' range). */
	updated: string | null;
	at: number;
}

function currentOf(reading: WatchedRead, now: number): Current {
	const { request } = reading;
	const updatedAt = timestampMs(request.updated_at);
	const stored = recordMs(updatedAt);
	const updated = stored === null ? null : updatedHash(stored);
	return { request, rank: reading.rank, edge: reading.edge, watched: watchedOf(request), updatedAt, updated, at: updatedAt !== null && updatedAt <= now + 1000 ? updatedAt : now };
}

/** A request read for the first time since activation: remembered; reported (what changed unknown) when it changed after activation. */
function firstRead(input: DetectInput, current: Current, reportable: boolean): RequestChange | undefined {
	const { request, updatedAt, at } = current;
	const created = sortTime('requests', request);
	const existedAtActivation = created === null || created <= input.since - ACTIVATION_EDGE_MS;
	if (input.baseline || !existedAtActivation || updatedAt === null || updatedAt <= input.since || !reportable || !passesFilters(input.settings, 'unknown', current.watched)) return undefined;
	return { request, version: updatedAt, at, changedFields: [], previous: null };
}

/**
 * The record's contact to compare with `now`, the contact read: `now` itself when it is the one sealed
 * (the sealed form's nonce tells, without unsealing), else the one sealed; undefined when it cannot be
 * read back. `reseal`: its stored form is to be written again.
 */
function contactBefore(id: string, record: WatchedRecord, now: Contact): { contact: Contact | undefined; reseal: boolean } {
	const sealed = record.contact;
	if (sealed === '') return { contact: undefined, reseal: true };
	if (sealed.startsWith(LEGACY_SEAL)) return { contact: unsealLegacy(id, sealed.slice(1)), reseal: true };
	if (sealedContactIs(id, sealed, now)) return { contact: now, reseal: false };
	const contact = unseal(id, sealed);
	return { contact, reseal: contact === undefined };
}

/** A remembered request read again: its record after this read, and its change when a selected field changed. */
function readAgain(input: DetectInput, current: Current, record: WatchedRecord, reportable: boolean): { next: WatchedRecord; change?: RequestChange } {
	const { request, watched, updatedAt, at } = current;
	const id = request.id;
	const keepContact = input.settings.fields.includes('contact');
	const kept = keepContact ? contactBefore(id, record, watched.contact ?? contactOf(request)) : { contact: undefined, reseal: false };
	const before: Watched = { ...watchedOfRecord(record), contact: kept.contact };
	const changed = changedFields(before, watched);
	const contactChanged = kept.reseal || changed.some((field) => !['status', 'lead_status', 'internal_notes', 'completed_at'].includes(field));
	// A change that did not move `updated_at` (or without one) is named by the chain's next link.
	const moved = updatedAt !== null && (current.updated === null || current.updated !== record.updated);
	const link = changed.length > 0 && !moved ? nextLink(id, record, before, watched) : undefined;
	const chain = link?.slice(0, KEPT_LINK) ?? record.chain;
	const next: WatchedRecord = {
		...recordOf(current, keepContact && contactChanged),
		rank: current.rank ?? record.rank,
		// Sealed again only when the contact changed: an unchanged record keeps its stored form.
		...(keepContact && !contactChanged ? { contact: record.contact } : {}),
		chain,
	};
	const reported = changed.filter((field) => selectedFields(input.settings.fields).has(field));
	if (reported.length === 0 || !reportable || !passesFilters(input.settings, reported, watched)) return { next };
	const version = link === undefined ? (updatedAt as number) : `h${link}`;
	return { next, change: { request, version, at, changedFields: CHANGE_FIELDS.filter((field) => reported.includes(field)), previous: previousValues(before, reported) } };
}

/** A record of what was read; its contact sealed when `seal` (else none kept). */
function recordOf(current: Current, sealContact: boolean): WatchedRecord {
	const { request, watched } = current;
	const contact = sealContact ? (watched.contact ?? contactOf(request)) : undefined;
	return {
		rank: current.rank ?? 0,
		id: idCode(request.id),
		updated: current.updated,
		status: watched.status,
		lead: watched.lead_status,
		completed: completedColumn(watched.completed),
		notes: watched.notes,
		chain: null,
		contact: contact ? seal(request.id, contact) : '',
		...(current.edge ? { edge: true } : {}),
		raw: readingOf(request),
	};
}

/** The fields a record is made from, in a fixed order. */
const READ_FIELDS = ['id', 'updated_at', 'status', 'lead_status', 'internal_notes', 'completed_at', 'first_name', 'last_name', 'email', 'phone'] as const;

/** The fields of a request a record is made from, as read (kept in this process only, never stored). */
function readingOf(request: BookingRequest): unknown[] {
	const fields = request as unknown as Record<string, unknown>;
	return READ_FIELDS.map((field) => fields[field]);
}

/** Whether a request reads as `before`: the same values, field by field (an object value never counts as the same). */
function readsAs(before: readonly unknown[], request: BookingRequest): boolean {
	const fields = request as unknown as Record<string, unknown>;
	for (let i = 0; i < READ_FIELDS.length; i++) {
		const value = fields[READ_FIELDS[i]];
		if (value !== before[i] || (typeof value === 'object' && value !== null)) return false;
	}
	return true;
}

/**
 * Whether the request reads exactly as this process read it last, at the same place, and its record
 * keeps the contact as this poll keeps it: then the record holds as it is (nothing to compare, hash or
 * seal). A record decoded from the state has no reading yet and is compared.
 */
function readsAsBefore(record: WatchedRecord, reading: WatchedRead, keepContact: boolean): boolean {
	if (record.raw === undefined || (reading.rank ?? record.rank) !== record.rank || (record.edge === true) !== reading.edge) return false;
	if ((record.contact !== '') !== keepContact || record.contact.startsWith(LEGACY_SEAL)) return false;
	return readsAs(record.raw, reading.request);
}

export function detectUpdates(input: DetectInput): DetectResult {
	const { settings, now, memory } = input;
	// The contact is kept (sealed: most of a record's bytes) only when it is watched.
	const keepContact = settings.fields.includes('contact');
	const changes: RequestChange[] = [];
	const records: UpdatesChange['records'] = [];
	for (const reading of input.watched.readings.values()) {
		if (!input.passed(reading.request)) continue;
		const record = memory.get(reading.request.id, reading.rank);
		if (record && readsAsBefore(record, reading, keepContact)) continue;
		const current = currentOf(reading, now);
		const reportable = input.form === undefined || reading.request.form_id === input.form;
		if (!record) {
			const change = firstRead(input, current, reportable);
			if (change) changes.push(change);
			records.push({ record: recordOf(current, keepContact) });
			continue;
		}
		const { next, change } = readAgain(input, current, record, reportable);
		records.push({ record: next, replaces: record });
		if (change) changes.push(change);
	}
	changes.sort((a, b) => a.at - b.at);
	return { changes, records: { records, forgetBelow: input.watched.lowest } };
}
