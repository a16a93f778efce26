// Deterministic data of the sandbox: a seeded PRNG (mulberry32) drives everything, so the same
// seed gives the same workspaces, ids, keys and timestamps. Seeded timestamps lie in a fixed range
// well in the past (2026-01-01 .. 2026-10-31 UTC); new activity uses the sandbox clock instead.

import type {
	BookingRequest,
	BusinessProfile,
	Form,
	IntakeQuestion,
	IntakeResponse,
	PreferredTime,
	RequestAttribution,
	SandboxSizes,
	Session,
	SessionContact,
	SessionData,
	Workspace,
} from './types';

export const SEED_RANGE_START = Date.UTC(2026, 0, 1);
export const SEED_RANGE_END = Date.UTC(2026, 9, 31, 23, 59, 59, 999);

export const DEFAULT_SIZES: Required<SandboxSizes> = { requests: 260, sessions: 320, forms: 4, profiles: 6 };
export const OTHER_SIZES: Required<SandboxSizes> = { requests: 12, sessions: 16, forms: 2, profiles: 2 };

/** Key prefix: 4 characters ending in `_` (contract: Authentication 3). */
export const KEY_PREFIX = 'brk_';
export const KEY_PATTERN = /^brk_[0-9a-f]{32}$/;

import { Rng } from './rng';
export { mulberry32, Rng } from './rng';

export function iso(ms: number): string {
	return new Date(ms).toISOString();
}

export function dateOnly(ms: number): string {
	return iso(ms).slice(0, 10);
}

// ---------------------------------------------------------------------------------------------
// Vocabulary

const FIRST_NAMES = [
	'Olivia', 'Liam', 'Emma', 'Noah', 'Ava', 'Elijah', 'Sophia', 'Mateo', 'Isabella', 'Lucas', 'Mia', 'Levi',
	'Amelia', 'Ezra', 'Harper', 'Asher', 'Evelyn', 'James', 'Luna', 'Leo', 'Camila', 'Grayson', 'Aria', 'Jack',
	'Nora', 'Hudson', 'Zoë', 'Owen', 'Riley', 'Kai', 'Priya', 'Wei', 'Fatima', 'José', 'Søren', 'Anne-Marie',
];
const LAST_NAMES = [
	'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
	'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin',
	'Lee', 'Perez', 'Thompson', 'White', 'Harris', "O'Brien", 'Nguyễn', 'Smith-Jones', 'Müller', 'Kowalski',
];
const CITIES = [
	{ city: 'Austin', state: 'TX', zip: '787', area: '512' },
	{ city: 'Denver', state: 'CO', zip: '802', area: '303' },
	{ city: 'Portland', state: 'OR', zip: '972', area: '503' },
	{ city: 'Raleigh', state: 'NC', zip: '276', area: '919' },
	{ city: 'Phoenix', state: 'AZ', zip: '850', area: '602' },
	{ city: 'Columbus', state: 'OH', zip: '432', area: '614' },
	{ city: 'Tampa', state: 'FL', zip: '336', area: '813' },
	{ city: 'Madison', state: 'WI', zip: '537', area: '608' },
];
const STREETS = [
	'Oak St', 'Maple Ave', 'Cedar Ln', 'Pine Rd', 'Elm St', 'Lakeview Dr', 'Sunset Blvd', 'Hillcrest Rd', 'Main St',
	'Park Ave', 'River Rd', 'Willow Way',
];
const UNITS = ['Apt 4B', 'Suite 200', 'Unit 12', 'Apt 1107', '2nd floor', 'Bldg C'];
const COMPANIES = [
	'Acme Property Management', 'Blue Sky Realty', 'Greenway HOA', 'Northside Dental', 'Summit Offices LLC',
	'Riverbend Apartments', 'Café Lumière',
];
const EMAIL_DOMAINS = ['example.com', 'example.org', 'example.net', 'mail.example.com'];
const FORM_NAMES = [
	'Main booking form', 'Spring cleaning promo', 'Commercial quote request', 'Partner referral form',
	'Holiday special', 'Move-out checklist', 'Website embed', 'Landing page A/B',
];
const SERVICE_NAMES = [
	'Standard cleaning', 'Deep cleaning', 'Move-out cleaning', 'Window washing', 'Carpet cleaning',
	'Pressure washing', 'Gutter cleaning', 'Office cleaning', 'Junk removal', 'Upholstery cleaning',
];
const PROFILE_AREAS = ['Downtown', 'North', 'South', 'East', 'West', 'Airport', 'Midtown', 'Lakeside'];
const PROFILE_SOURCES = ['dashboard', 'onboarding', 'import', 'gbp_sync'];
const REQUEST_SOURCES = ['google', 'facebook', 'website', 'embed', 'direct', 'qr_code'];
const SESSION_SOURCES = ['google_ads', 'facebook', 'website', 'embed', 'newsletter', 'qr_code'];
export const SLOTS = ['morning', 'afternoon', 'evening', 'anytime'];
const STATUSES = ['complete', 'complete', 'complete', 'complete', 'complete', 'complete', 'pending', 'pending', 'cancelled'];
const LEAD_STATUSES = ['new', 'new', 'new', 'new', 'contacted', 'contacted', 'qualified', 'won', 'lost'];
const UTM_SOURCES = ['google', 'facebook', 'newsletter', 'bing', 'instagram'];
const UTM_MEDIUMS = ['cpc', 'social', 'email', 'organic', 'referral'];
const REFERRERS = ['https://www.google.com/', 'https://www.facebook.com/', 'https://duckduckgo.com/', 'https://news.example.net/article'];
const ENTRANCE_INFO = [
	'Gate code 4412, please call on arrival.',
	'Key under the mat. Dog is friendly.',
	'Side door; the front bell does not work.',
	'Park in visitor spot 7 — no street parking.',
	'Please text before coming, I work nights.',
];
const INTERNAL_NOTES = [
	'Repeat customer, prefers Maria.',
	'Quoted $180, waiting for confirmation.',
	'Asked for an invoice to the company address.',
	'Called twice, no answer.',
	'VIP: discount 10% agreed on the phone.',
];
const FORM_QUESTIONS: Array<Omit<IntakeQuestion, 'id' | 'form_id' | 'scope' | 'scope_ref_id' | 'scope_ref_name'>> = [
	{ type: 'select', question: 'How many bedrooms?', options: ['1', '2', '3', '4', '5+'], required: true },
	{ type: 'select', question: 'How did you hear about us?', options: ['Google', 'Friend', 'Flyer', 'Other'], required: false },
	{ type: 'textarea', question: 'Anything we should know?', options: [], required: false },
	{ type: 'checkbox', question: 'Do you have pets?', options: ['Yes', 'No'], required: true },
	{ type: 'number', question: 'Approximate square footage', options: [], required: false },
];
const SERVICE_QUESTIONS: Array<Omit<IntakeQuestion, 'id' | 'form_id' | 'scope' | 'scope_ref_id' | 'scope_ref_name'>> = [
	{ type: 'multiselect', question: 'Which rooms?', options: ['Kitchen', 'Bathrooms', 'Living room', 'Bedrooms'], required: true },
	{ type: 'text', question: 'Preferred products or allergies?', options: [], required: false },
	{ type: 'select', question: 'How dirty is it?', options: ['Light', 'Normal', 'Heavy'], required: true },
];
const FREE_TEXT_ANSWERS = ['No', 'Please bring eco products', 'Fragile vases in the hall', 'n/a', 'Allergic to lavender 🌿'];

function asciiFold(s: string): string {
	return s
		.normalize('NFD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/ø/g, 'o')
		.toLowerCase()
		.replace(/[^a-z0-9]/g, '');
}

export interface Person {
	first: string;
	last: string;
	email: string;
	phone: string;
}

export interface PostalAddress {
	address: string;
	city: string;
	state: string;
	zip: string;
}

export function makePerson(rng: Rng): Person {
	const first = rng.pick(FIRST_NAMES);
	const last = rng.pick(LAST_NAMES);
	const city = rng.pick(CITIES);
	return {
		first,
		last,
		email: `${asciiFold(first)}.${asciiFold(last)}${rng.int(1, 999)}@${rng.pick(EMAIL_DOMAINS)}`,
		phone: `+1${city.area}555${rng.digits(4)}`,
	};
}

export function makeAddress(rng: Rng): PostalAddress {
	const c = rng.pick(CITIES);
	return { address: `${rng.int(10, 9899)} ${rng.pick(STREETS)}`, city: c.city, state: c.state, zip: `${c.zip}${rng.digits(2)}` };
}

function makeRequestAttribution(rng: Rng): RequestAttribution {
	// Only some of the keys, never none.
	const a: RequestAttribution = {};
	const keys = rng.some(['source', 'page_url', 'referrer', 'utm_source', 'utm_medium'] as const, 1, 5);
	for (const k of keys) {
		if (k === 'source') a.source = rng.pick(REQUEST_SOURCES);
		if (k === 'page_url') a.page_url = `https://www.example.com/book?ref=${rng.hex(6)}`;
		if (k === 'referrer') a.referrer = rng.pick(REFERRERS);
		if (k === 'utm_source') a.utm_source = rng.pick(UTM_SOURCES);
		if (k === 'utm_medium') a.utm_medium = rng.pick(UTM_MEDIUMS);
	}
	return a;
}

export function makeSessionAttribution(rng: Rng, formId: string): Record<string, string> {
	const a: Record<string, string> = { page_url: `https://book.example.com/f/${formId.slice(0, 8)}` };
	if (rng.chance(0.6)) a.utm_source = rng.pick(UTM_SOURCES);
	if (a.utm_source) a.utm_medium = rng.pick(UTM_MEDIUMS);
	if (rng.chance(0.3)) a.utm_campaign = rng.pick(['spring_sale', 'retargeting', 'brand', 'newsletter_may']);
	if (rng.chance(0.5)) a.referrer = rng.pick(REFERRERS);
	if (rng.chance(0.2)) a.gclid = `Cj0KCQ${rng.hex(20)}`;
	else if (rng.chance(0.15)) a.fbclid = `IwAR${rng.hex(24)}`;
	return a;
}

/** Request attribution derived from a session's attribution (only the keys the request carries). */
export function requestAttributionFrom(session: Record<string, string> | null, source: string | null): RequestAttribution | null {
	if (!session) return null;
	const a: RequestAttribution = {};
	if (source) a.source = source;
	if (session.page_url) a.page_url = session.page_url;
	if (session.referrer) a.referrer = session.referrer;
	if (session.utm_source) a.utm_source = session.utm_source;
	if (session.utm_medium) a.utm_medium = session.utm_medium;
	return Object.keys(a).length ? a : null;
}

// ---------------------------------------------------------------------------------------------
// Request generation (used by the seed and by new activity)

export interface RequestContext {
	ws: Workspace;
	form: Form;
	profileId: string;
}

/** The profile a request on `form` is routed to: mostly the form's own profiles, sometimes the default one. */
export function routeProfile(rng: Rng, ws: Workspace, form: Form): string {
	const own = ws.profiles.filter((p) => p.form_id === form.id);
	const def = ws.profiles.find((p) => p.is_default) ?? ws.profiles[0];
	if (own.length === 0 || rng.chance(0.15)) return def.id;
	return rng.pick(own).id;
}

export function makeIntakeResponses(rng: Rng, ws: Workspace, form: Form, serviceIds: string[]): IntakeResponse[] {
	const qs = ws.questions.filter(
		(q) => (q.scope === 'form' && q.scope_ref_id === form.id) || (q.scope === 'service' && serviceIds.includes(q.scope_ref_id)),
	);
	const out: IntakeResponse[] = [];
	for (const q of qs) {
		if (!q.required && rng.chance(0.4)) continue;
		let answer: string;
		if (q.type === 'multiselect') answer = rng.some(q.options, 1, q.options.length).join(', ');
		else if (q.options.length) answer = rng.pick(q.options);
		else if (q.type === 'number') answer = String(rng.int(5, 40) * 100);
		else answer = rng.pick(FREE_TEXT_ANSWERS);
		out.push({
			question_id: q.id,
			scope: q.scope,
			scope_ref_id: q.scope_ref_id,
			scope_ref_name: q.scope_ref_name,
			type: q.type,
			question: q.question,
			options: [...q.options],
			required: q.required,
			answer,
		});
	}
	return out;
}

export function makePreferredTimes(rng: Rng, fromMs: number, count: number): PreferredTime[] {
	const out: PreferredTime[] = [];
	let day = fromMs + rng.int(1, 5) * 86_400_000;
	for (let i = 0; i < count; i++) {
		out.push({ date: dateOnly(day), slot: rng.pick(SLOTS) });
		day += rng.int(0, 3) * 86_400_000;
	}
	return out;
}

export function formServiceIds(ws: Workspace, form: Form): string[] {
	return ws.services.filter((s) => s.template_id === form.service_template_id).map((s) => s.id);
}

export interface RequestSeed {
	createdAt: number;
	person?: Person;
	address?: PostalAddress;
	serviceIds?: string[];
	scheduledDate?: string;
	source?: string | null;
	attribution?: RequestAttribution | null;
	/** Fresh submissions: status complete, lead new, no update yet. */
	fresh?: boolean;
}

export function makeRequest(rng: Rng, ctx: RequestContext, seed: RequestSeed): BookingRequest {
	const { ws, form, profileId } = ctx;
	const person = seed.person ?? makePerson(rng);
	const addr = seed.address ?? makeAddress(rng);
	const services = formServiceIds(ws, form);
	const selected = seed.serviceIds ?? (services.length ? rng.some(services, 1, 3) : []);
	const status = seed.fresh ? 'complete' : rng.pick(STATUSES);
	const created = seed.createdAt;
	let updatedAt: string | null = null;
	if (!seed.fresh && rng.chance(0.65)) {
		// Updated within 20 days, but never past the end of the seed range (new activity is past it).
		const room = Math.max(0, Math.min(20 * 86_400_000, SEED_RANGE_END - created));
		updatedAt = iso(created + Math.floor(rng.float() * room));
	}
	const preferred: PreferredTime[] = seed.scheduledDate
		? [{ date: seed.scheduledDate, slot: rng.pick(SLOTS) }]
		: makePreferredTimes(rng, created, rng.int(0, 3));
	const intake = rng.chance(0.2) ? [] : makeIntakeResponses(rng, ws, form, selected);
	const source = seed.source !== undefined ? seed.source : rng.chance(0.3) ? null : rng.pick(REQUEST_SOURCES);
	const attribution = seed.attribution !== undefined ? seed.attribution : rng.chance(0.35) ? null : makeRequestAttribution(rng);
	return {
		id: rng.uuid(),
		form_id: form.id,
		business_profile_id: profileId,
		first_name: person.first,
		last_name: person.last,
		email: person.email,
		phone: person.phone,
		company: rng.chance(0.3) ? rng.pick(COMPANIES) : null,
		address: addr.address,
		address_2: rng.chance(0.25) ? rng.pick(UNITS) : null,
		city: addr.city,
		state: addr.state,
		zip: addr.zip,
		country: 'US',
		source,
		status,
		lead_status: seed.fresh ? 'new' : rng.pick(LEAD_STATUSES),
		selected_services: selected,
		preferred_times: preferred,
		intake_responses: intake,
		attribution,
		entrance_info: rng.chance(0.2) ? rng.pick(ENTRANCE_INFO) : null,
		internal_notes: !seed.fresh && rng.chance(0.15) ? rng.pick(INTERNAL_NOTES) : null,
		created_at: iso(created),
		updated_at: updatedAt,
		completed_at: status === 'complete' ? iso(created + rng.int(0, 1500)) : null,
	};
}

/** Widget steps after the contact step (saving starts once contact is done). */
export const STEPS = ['address', 'services', 'schedule', 'confirm'];

/** The draft the widget holds at `step` (keys accumulate as the customer advances). */
export function draftFor(
	step: string,
	parts: { contact?: SessionContact; zip?: string; address?: string; serviceIds?: string[]; scheduledDate?: string },
): SessionData {
	const data: SessionData = {};
	const i = STEPS.indexOf(step);
	if (parts.zip !== undefined) data.zip = parts.zip;
	if (parts.contact) data.contact = parts.contact;
	if (i >= 1 && parts.address !== undefined) data.address = parts.address;
	if (i >= 2 && parts.serviceIds) data.serviceIds = parts.serviceIds;
	if (i >= 3 && parts.scheduledDate !== undefined) data.scheduledDate = parts.scheduledDate;
	return data;
}

export function contactOf(person: Person, withEmail = true): SessionContact {
	const c: SessionContact = { firstname: person.first, lastname: person.last };
	if (withEmail) c.email = person.email;
	c.phone = person.phone;
	return c;
}

// ---------------------------------------------------------------------------------------------
// Workspace seed

function spread(rng: Rng, from: number, to: number): number {
	return from + Math.floor(rng.float() * (to - from));
}

export function seedWorkspace(seed: number, sizesIn: SandboxSizes, name: string): Workspace {
	const rng = new Rng(seed);
	const sizes = {
		requests: Math.max(0, Math.floor(sizesIn.requests ?? DEFAULT_SIZES.requests)),
		sessions: Math.max(0, Math.floor(sizesIn.sessions ?? DEFAULT_SIZES.sessions)),
		// At least one form and one profile: requests need a form_id and a business_profile_id.
		forms: Math.max(1, Math.floor(sizesIn.forms ?? DEFAULT_SIZES.forms)),
		profiles: Math.max(1, Math.floor(sizesIn.profiles ?? DEFAULT_SIZES.profiles)),
	};
	const ws: Workspace = {
		id: rng.uuid(),
		name,
		forms: [],
		profiles: [],
		deletedProfiles: [],
		requests: [],
		sessions: [],
		services: [],
		questions: [],
	};

	// Forms: the default form is the oldest (so "default first" differs from "newest first"); with 3+
	// forms the newest one is not configured yet (null service ids and settings, no profiles); with 4+
	// forms the third one is a legacy row with null timestamps.
	const formSpan = (SEED_RANGE_END - SEED_RANGE_START) / (sizes.forms + 1);
	for (let i = 0; i < sizes.forms; i++) {
		const unconfigured = sizes.forms >= 3 && i === sizes.forms - 1;
		const legacy = sizes.forms >= 4 && i === 2;
		const created = i === 0 ? SEED_RANGE_START + rng.int(3_600_000, 86_400_000) : spread(rng, SEED_RANGE_START + i * formSpan, SEED_RANGE_START + (i + 0.5) * formSpan);
		const id = rng.uuid();
		const templateId = unconfigured ? null : rng.uuid();
		const form: Form = {
			id,
			name: unconfigured ? 'New form' : FORM_NAMES[i % FORM_NAMES.length] + (i >= FORM_NAMES.length ? ` ${i + 1}` : ''),
			is_default: i === 0,
			locations: null,
			service_template_id: templateId,
			service_area_id: unconfigured ? null : rng.uuid(),
			service_schedule_id: unconfigured ? null : rng.uuid(),
			settings_branding:
				unconfigured || i === 1 ? null : { primary_color: rng.pick(['#2563eb', '#16a34a', '#db2777']), logo_url: `https://cdn.example.com/logos/${rng.hex(8)}.png`, font_family: 'Inter' },
			settings_contact_form: unconfigured ? null : { fields: ['firstname', 'lastname', 'email', 'phone'], require_phone: true, require_email: i !== 2 },
			settings_content:
				unconfigured || i === 2 ? null : { headline: 'Book your cleaning in 60 seconds', confirmation_message: 'Thanks! We will confirm your booking shortly.' },
			settings_general: unconfigured ? null : { timezone: 'America/Chicago', language: 'en', min_lead_hours: rng.pick([12, 24, 48]) },
			created_at: legacy ? null : iso(created),
			updated_at: legacy ? null : iso(created + rng.int(60_000, 30 * 86_400_000)),
		};
		ws.forms.push(form);
		if (templateId) {
			for (const sname of rng.some(SERVICE_NAMES, 4, 6)) ws.services.push({ id: rng.uuid(), name: sname, template_id: templateId });
			for (const q of rng.some(FORM_QUESTIONS, 2, 4)) {
				ws.questions.push({ ...q, options: [...q.options], id: rng.uuid(), form_id: id, scope: 'form', scope_ref_id: id, scope_ref_name: form.name });
			}
			for (const s of ws.services.filter((x) => x.template_id === templateId)) {
				if (!rng.chance(0.5)) continue;
				const q = rng.pick(SERVICE_QUESTIONS);
				ws.questions.push({ ...q, options: [...q.options], id: rng.uuid(), form_id: id, scope: 'service', scope_ref_id: s.id, scope_ref_name: s.name });
			}
		}
	}
	const configured = ws.forms.filter((f) => f.service_template_id !== null);

	// Profiles: the default one is the oldest and belongs to the default form; the rest go round-robin
	// over configured forms. With 3+ profiles the last has an incomplete address (no ZIP), no website
	// and reserve_with_partner false. One extra deleted profile (not counted in sizes) is kept aside.
	const mkProfile = (i: number, form: Form, created: number, isDefault: boolean): BusinessProfile => {
		const c = CITIES[(i + Math.abs(Math.floor(seed)) % 7) % CITIES.length];
		const area = PROFILE_AREAS[i % PROFILE_AREAS.length];
		const incomplete = sizes.profiles >= 3 && i === sizes.profiles - 1;
		const title = `${c.city} ${area}`;
		const street = `${rng.int(100, 9899)} ${rng.pick(STREETS)}`;
		return {
			id: rng.uuid(),
			title,
			form_id: form.id,
			service_area_id: form.service_area_id as string,
			service_template_id: form.service_template_id as string,
			service_schedule_id: form.service_schedule_id as string,
			primary_phone: `+1${c.area}555${rng.digits(4)}`,
			website_url: incomplete ? '' : `https://www.example.com/locations/${asciiFold(c.city)}-${asciiFold(area)}`,
			address: incomplete ? street : `${street}, ${c.zip}${rng.digits(2)}`,
			address_city: c.city,
			address_state: c.state,
			is_default: isDefault,
			source: isDefault ? 'onboarding' : rng.pick(PROFILE_SOURCES),
			reserve_with_partner: !incomplete && (isDefault || rng.chance(0.5)),
			created_at: iso(created),
			updated_at: iso(created + rng.int(60_000, 20 * 86_400_000)),
		};
	};
	const profSpan = (SEED_RANGE_END - SEED_RANGE_START) / (sizes.profiles + 1);
	for (let i = 0; i < sizes.profiles; i++) {
		const form = i === 0 ? ws.forms[0] : configured[i % configured.length];
		const created = i === 0 ? SEED_RANGE_START + 2 * 86_400_000 + rng.int(0, 3_600_000) : spread(rng, SEED_RANGE_START + i * profSpan, SEED_RANGE_START + (i + 0.6) * profSpan);
		ws.profiles.push(mkProfile(i, form, created, i === 0));
	}
	const deleted = mkProfile(sizes.profiles + 1, configured[configured.length > 1 ? 1 : 0], SEED_RANGE_START + 5 * 86_400_000, false);
	ws.deletedProfiles.push(deleted);
	for (const f of ws.forms) {
		const titles = ws.profiles.filter((p) => p.form_id === f.id).map((p) => p.title);
		f.locations = titles.length ? titles.join(', ') : null;
	}

	// Requests, oldest first in the array. Forms get requests by weight; every 17th request shares its
	// created_at with the one before (ties).
	const weights = configured.map((_, i) => (i === 0 ? 3 : 1));
	const totalWeight = weights.reduce((a, b) => a + b, 0);
	const pickForm = (): Form => {
		let r = rng.float() * totalWeight;
		for (let i = 0; i < configured.length; i++) {
			r -= weights[i];
			if (r < 0) return configured[i];
		}
		return configured[configured.length - 1];
	};
	const times: number[] = [];
	for (let i = 0; i < sizes.requests; i++) times.push(spread(rng, SEED_RANGE_START + 7 * 86_400_000, SEED_RANGE_END));
	times.sort((a, b) => a - b);
	for (let i = 1; i < times.length; i++) if (i % 17 === 0) times[i] = times[i - 1];
	for (let i = 0; i < sizes.requests; i++) {
		const form = pickForm();
		let profileId = routeProfile(rng, ws, form);
		if (i < sizes.requests / 3 && rng.chance(0.05)) profileId = deleted.id;
		ws.requests.push(makeRequest(rng, { ws, form, profileId }, { createdAt: times[i] }));
	}

	// Sessions: about a third complete drafts of real requests, an eighth placeholders (booked without
	// a draft), the rest abandoned. Each request has at most one session.
	const nCompleted = Math.min(Math.round(sizes.sessions * 0.33), sizes.requests);
	const nPlaceholder = Math.min(Math.round(sizes.sessions * 0.12), sizes.requests - nCompleted);
	const nAbandoned = sizes.sessions - nCompleted - nPlaceholder;
	const reqOrder = rng.some(ws.requests, nCompleted + nPlaceholder, nCompleted + nPlaceholder);
	// Interleave so both kinds spread over the whole time range.
	const completedReqs: BookingRequest[] = [];
	const placeholderReqs: BookingRequest[] = [];
	reqOrder.forEach((r, i) => {
		const wantPlaceholder = placeholderReqs.length < nPlaceholder && (i % 4 === 3 || completedReqs.length >= nCompleted);
		(wantPlaceholder ? placeholderReqs : completedReqs).push(r);
	});
	for (const r of completedReqs) {
		const created = Date.parse(r.created_at) - rng.int(2 * 60_000, 45 * 60_000);
		const session: Session = {
			id: rng.uuid(),
			form_id: r.form_id,
			step: 'confirm',
			data: {
				zip: r.zip,
				contact: { firstname: r.first_name, lastname: r.last_name, email: r.email, phone: r.phone },
				address: r.address,
				serviceIds: [...r.selected_services],
				...(r.preferred_times.length ? { scheduledDate: r.preferred_times[0].date } : {}),
			},
			attribution: rng.chance(0.3) ? null : makeSessionAttribution(rng, r.form_id),
			source: r.source,
			request_id: r.id,
			created_at: iso(created),
			updated_at: r.created_at,
		};
		ws.sessions.push(session);
	}
	placeholderReqs.forEach((r, i) => {
		ws.sessions.push({
			id: rng.uuid(),
			form_id: r.form_id,
			step: 'confirm',
			data: {},
			attribution: null,
			source: r.source,
			request_id: r.id,
			created_at: i % 9 === 4 ? null : r.created_at,
			updated_at: r.created_at,
		});
	});
	const abandoned: Session[] = [];
	for (let i = 0; i < nAbandoned; i++) {
		const form = configured.length ? rng.pick(configured) : ws.forms[0];
		const created = spread(rng, SEED_RANGE_START + 7 * 86_400_000, SEED_RANGE_END - 3_600_000);
		const updated = created + rng.int(0, 30 * 60_000);
		const person = makePerson(rng);
		const addr = makeAddress(rng);
		const services = formServiceIds(ws, form);
		const step = rng.pick(STEPS);
		const noContact = i % 23 === 11; // a few drafts without contact details
		const data = noContact
			? i % 2
				? {}
				: { zip: addr.zip }
			: draftFor(step, {
					contact: contactOf(person, !rng.chance(0.08)),
					zip: addr.zip,
					address: addr.address,
					serviceIds: services.length ? rng.some(services, 1, 2) : [],
					scheduledDate: dateOnly(updated + rng.int(1, 10) * 86_400_000),
				});
		// A few legacy rows with null timestamps: created_at only, updated_at only, both.
		const k = i % 50;
		abandoned.push({
			id: rng.uuid(),
			form_id: form.id,
			step,
			data,
			attribution: rng.chance(0.3) ? null : makeSessionAttribution(rng, form.id),
			source: rng.chance(0.4) ? null : rng.pick(SESSION_SOURCES),
			request_id: null,
			created_at: k === 7 || k === 33 ? null : iso(created),
			updated_at: k === 19 || k === 33 ? null : iso(updated),
		});
	}
	// Ties: every 13th abandoned session takes the updated_at of the one before it.
	for (let i = 1; i < abandoned.length; i++) {
		const prev = abandoned[i - 1];
		const cur = abandoned[i];
		if (i % 13 !== 0 || !prev.updated_at || !cur.updated_at) continue;
		cur.updated_at = prev.updated_at;
		if (cur.created_at && cur.created_at > cur.updated_at) cur.created_at = cur.updated_at;
	}
	ws.sessions.push(...abandoned);
	return ws;
}

/**
 * Moves a seeded workspace in time by `deltaMs`: every timestamp (`created_at`, `updated_at`,
 * `completed_at`) by that amount, every calendar date (preferred times, a draft's scheduled date) by the
 * same number of whole days. What lies between two timestamps (a session's idle time, its minutes to
 * book) does not change. Used for demo data whose newest activity is minutes old (SandboxOptions.recent).
 */
export function shiftWorkspace(ws: Workspace, deltaMs: number): void {
	const days = Math.round(deltaMs / 86_400_000);
	const at = <V extends string | null>(value: V): V => (value === null ? value : iso(Date.parse(value) + deltaMs)) as V;
	const day = (value: string): string => dateOnly(Date.parse(`${value}T12:00:00.000Z`) + days * 86_400_000);
	const stamped = <T extends { created_at: string | null; updated_at: string | null }>(row: T): void => {
		row.created_at = at(row.created_at);
		row.updated_at = at(row.updated_at);
	};
	for (const form of ws.forms) stamped(form);
	for (const profile of [...ws.profiles, ...ws.deletedProfiles]) stamped(profile);
	for (const request of ws.requests) {
		stamped(request);
		request.completed_at = at(request.completed_at);
		for (const preferred of request.preferred_times) preferred.date = day(preferred.date);
	}
	for (const session of ws.sessions) {
		stamped(session);
		if (typeof session.data.scheduledDate === 'string') session.data.scheduledDate = day(session.data.scheduledDate);
	}
}

/** The recent weeks a funnel report reads: one in four sessions without a utm_source, as in life. */
const RECENT_UTM: ReadonlyArray<Record<string, string> | null> = [
	{ utm_source: 'google', utm_medium: 'cpc' },
	{ utm_source: 'facebook', utm_medium: 'social' },
	null,
	{ utm_source: 'newsletter', utm_medium: 'email' },
];

/** The attribution of the i-th recent session that had no utm_source (null: it still has none). */
export function recentAttribution(i: number, attribution: Record<string, string> | null = null): Record<string, string> | null {
	const utm = RECENT_UTM[i % RECENT_UTM.length];
	return utm ? { ...(attribution ?? {}), ...utm } : attribution;
}

/**
 * Demo data (SandboxOptions.recent): the sessions active in the 7 days before `endMs` that have no
 * `utm_source` get one (three in four; recentAttribution), so that a weekly funnel report by source
 * shows sources. Chosen by their place in the list, not drawn from the seed's numbers: the rest of
 * the data is as seeded.
 */
export function sourceRecentSessions(ws: Workspace, endMs: number): void {
	let i = 0;
	for (const session of ws.sessions) {
		const at = session.updated_at === null ? NaN : Date.parse(session.updated_at);
		if (!(at >= endMs - 7 * 86_400_000 && at <= endMs) || session.attribution?.utm_source) continue;
		session.attribution = recentAttribution(i++, session.attribution);
	}
}

/** Keys of a sandbox: deterministic per seed. */
export function makeKeys(seed: number): { demo: string; second: string; revoked: string; other: string } {
	const rng = new Rng((seed ^ 0x5bd1e995) >>> 0);
	return {
		demo: KEY_PREFIX + rng.hex(32),
		second: KEY_PREFIX + rng.hex(32),
		revoked: KEY_PREFIX + rng.hex(32),
		other: KEY_PREFIX + rng.hex(32),
	};
}
