/** Shapes of the API's objects (contract: "Resources and their fields"). Values may be null as noted. */

export interface PreferredTime {
	date: string;
	slot: string;
}

export interface IntakeResponse {
	question_id: string;
	scope: string;
	scope_ref_id: string;
	scope_ref_name: string;
	type: string;
	question: string;
	options: string[];
	required: boolean;
	answer: string;
}

export interface BookingRequest {
	[key: string]: unknown;
	id: string;
	form_id: string;
	business_profile_id: string;
	first_name: string;
	last_name: string;
	email: string;
	phone: string;
	company: string | null;
	address: string;
	address_2: string | null;
	city: string;
	state: string;
	zip: string;
	country: string;
	source: string | null;
	status: string;
	lead_status: string;
	selected_services: string[];
	preferred_times: PreferredTime[];
	intake_responses: IntakeResponse[];
	attribution: Record<string, unknown> | null;
	entrance_info: string | null;
	internal_notes: string | null;
	created_at: string;
	updated_at: string | null;
	completed_at: string | null;
}

export interface BookingSession {
	[key: string]: unknown;
	id: string;
	form_id: string;
	step: string;
	data: Record<string, unknown>;
	attribution: Record<string, unknown> | null;
	source: string | null;
	request_id: string | null;
	created_at: string | null;
	updated_at: string | null;
}

export interface BookingForm {
	[key: string]: unknown;
	id: string;
	name: string;
	is_default: boolean;
	locations: string | null;
	created_at: string | null;
	updated_at: string | null;
}

export interface BusinessProfile {
	[key: string]: unknown;
	id: string;
	title: string;
	form_id: string;
	address_city: string;
	address_state: string;
	is_default: boolean;
	created_at: string;
	updated_at: string;
}
