// Test helpers of the sandbox suite: HTTP calls over loopback with axios, and checks of the
// contract's field tables (shared/api, "Resources and their fields").

import axios, { type AxiosResponse } from 'axios';
import type { Sandbox } from '../../sandbox/types';

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** GET an API path with a key (null: no Authorization header); never throws on HTTP status. */
export async function api(
	sb: Sandbox,
	path: string,
	opts: { key?: string | null; params?: Record<string, string | number>; headers?: Record<string, string> } = {},
): Promise<AxiosResponse> {
	const key = opts.key === undefined ? sb.keys.demo : opts.key;
	const headers: Record<string, string> = { ...(opts.headers ?? {}) };
	if (key !== null) headers.Authorization = `Bearer ${key}`;
	return axios.get(sb.url + path, { headers, params: opts.params, validateStatus: () => true, timeout: 10_000 });
}

/** Like api() but returns the raw body text (no JSON parsing). */
export async function apiRaw(sb: Sandbox, path: string, params?: Record<string, string | number>, key?: string): Promise<AxiosResponse<string>> {
	return axios.get<string>(sb.url + path, {
		headers: { Authorization: `Bearer ${key ?? sb.keys.demo}` },
		params,
		validateStatus: () => true,
		timeout: 10_000,
		responseType: 'text',
		transformResponse: (r: string) => r,
	});
}

export async function control(sb: Sandbox, method: 'GET' | 'POST', path: string, body?: unknown): Promise<AxiosResponse> {
	return axios.request({ method, url: sb.url + path, data: body, validateStatus: () => true, timeout: 10_000 });
}

/** All items of a list endpoint, page by page (sandbox started with rateLimit: false). */
export async function pageAll<T = Record<string, unknown>>(
	sb: Sandbox,
	path: string,
	perPage: number,
	params: Record<string, string> = {},
	key?: string,
): Promise<{ items: T[]; totals: number[]; pages: number }> {
	const items: T[] = [];
	const totals: number[] = [];
	let page = 1;
	for (;;) {
		const r = await api(sb, path, { key, params: { ...params, page, per_page: perPage } });
		if (r.status !== 200) throw new Error(`${path} page ${page}: ${r.status} ${JSON.stringify(r.data)}`);
		const body = r.data as { items: T[]; pagination: { page: number; per_page: number; total: number } };
		totals.push(body.pagination.total);
		items.push(...body.items);
		if (body.items.length === 0 || page * body.pagination.per_page >= body.pagination.total) break;
		page++;
		if (page > 1000) throw new Error('runaway paging');
	}
	return { items, totals, pages: page };
}

// ---------------------------------------------------------------------------------------------
// Contract field tables

type Kind = 'uuid' | 'uuid?' | 'string' | 'string?' | 'ts' | 'ts?' | 'bool' | 'object?' | 'object' | 'uuid[]' | 'array';

export const REQUEST_FIELDS: Record<string, Kind> = {
	id: 'uuid',
	form_id: 'uuid',
	business_profile_id: 'uuid',
	first_name: 'string',
	last_name: 'string',
	email: 'string',
	phone: 'string',
	company: 'string?',
	address: 'string',
	address_2: 'string?',
	city: 'string',
	state: 'string',
	zip: 'string',
	country: 'string',
	source: 'string?',
	status: 'string',
	lead_status: 'string',
	selected_services: 'uuid[]',
	preferred_times: 'array',
	intake_responses: 'array',
	attribution: 'object?',
	entrance_info: 'string?',
	internal_notes: 'string?',
	created_at: 'ts',
	updated_at: 'ts?',
	completed_at: 'ts?',
};
export const INTAKE_FIELDS = ['question_id', 'scope', 'scope_ref_id', 'scope_ref_name', 'type', 'question', 'options', 'required', 'answer'];
export const SESSION_FIELDS: Record<string, Kind> = {
	id: 'uuid',
	form_id: 'uuid',
	step: 'string',
	data: 'object',
	attribution: 'object?',
	source: 'string?',
	request_id: 'uuid?',
	created_at: 'ts?',
	updated_at: 'ts?',
};
export const FORM_FIELDS: Record<string, Kind> = {
	id: 'uuid',
	name: 'string',
	is_default: 'bool',
	locations: 'string?',
	service_template_id: 'uuid?',
	service_area_id: 'uuid?',
	service_schedule_id: 'uuid?',
	settings_branding: 'object?',
	settings_contact_form: 'object?',
	settings_content: 'object?',
	settings_general: 'object?',
	created_at: 'ts?',
	updated_at: 'ts?',
};
export const PROFILE_FIELDS: Record<string, Kind> = {
	id: 'uuid',
	title: 'string',
	form_id: 'uuid',
	service_area_id: 'uuid',
	service_template_id: 'uuid',
	service_schedule_id: 'uuid',
	primary_phone: 'string',
	website_url: 'string',
	address: 'string',
	address_city: 'string',
	address_state: 'string',
	is_default: 'bool',
	source: 'string',
	reserve_with_partner: 'bool',
	created_at: 'ts',
	updated_at: 'ts',
};

function fits(kind: Kind, v: unknown): boolean {
	const nullable = kind.endsWith('?');
	if (v === null) return nullable;
	switch (kind.replace('?', '')) {
		case 'uuid':
			return typeof v === 'string' && UUID.test(v);
		case 'string':
			return typeof v === 'string';
		case 'ts':
			return typeof v === 'string' && ISO_MS.test(v) && new Date(v).toISOString() === v;
		case 'bool':
			return typeof v === 'boolean';
		case 'object':
			return typeof v === 'object' && !Array.isArray(v);
		case 'uuid[]':
			return Array.isArray(v) && v.every((x) => typeof x === 'string' && UUID.test(x));
		case 'array':
			return Array.isArray(v);
		default:
			return false;
	}
}

/** Problems of one record against a field table: exact key list, in order, and value types. */
export function fieldProblems(record: Record<string, unknown>, table: Record<string, Kind>): string[] {
	const problems: string[] = [];
	const keys = Object.keys(record);
	const want = Object.keys(table);
	if (keys.join(',') !== want.join(',')) problems.push(`keys ${keys.join(',')} != ${want.join(',')}`);
	for (const [k, kind] of Object.entries(table)) {
		if (!fits(kind, record[k])) problems.push(`${k}=${JSON.stringify(record[k])} is not ${kind}`);
	}
	return problems;
}

/** Extra checks of a request's nested values (intake responses, preferred times, attribution). */
export function requestNestedProblems(r: Record<string, unknown>): string[] {
	const problems: string[] = [];
	for (const pt of r.preferred_times as Array<Record<string, unknown>>) {
		if (Object.keys(pt).join(',') !== 'date,slot' || !DATE_ONLY.test(String(pt.date)) || typeof pt.slot !== 'string') problems.push(`preferred_time ${JSON.stringify(pt)}`);
	}
	for (const ir of r.intake_responses as Array<Record<string, unknown>>) {
		if (Object.keys(ir).join(',') !== INTAKE_FIELDS.join(',')) problems.push(`intake keys ${Object.keys(ir).join(',')}`);
		if (!UUID.test(String(ir.question_id)) || !UUID.test(String(ir.scope_ref_id))) problems.push('intake ids');
		if (!Array.isArray(ir.options) || typeof ir.required !== 'boolean' || typeof ir.answer !== 'string') problems.push('intake types');
	}
	if (r.attribution !== null) {
		const keys = Object.keys(r.attribution as object);
		if (keys.length === 0 || keys.some((k) => !['source', 'page_url', 'referrer', 'utm_source', 'utm_medium'].includes(k))) problems.push(`attribution keys ${keys.join(',')}`);
	}
	return problems;
}
