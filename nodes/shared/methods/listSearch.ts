import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { API_PATHS } from '../constants';
import { paginate } from '../transport/paginate';
import type { BookingForm, BusinessProfile } from '../types';

/**
 * "From list" for the form and business-profile pickers. Loaded through the same paginator and
 * limiter as every other call (forms and profiles are short lists: usually one call), filtered by the
 * search text on our side because the API has no search parameter.
 */

function matches(filter: string | undefined, ...texts: Array<string | null | undefined>): boolean {
	if (!filter) return true;
	const needle = filter.trim().toLowerCase();
	return texts.some((text) => (text ?? '').toLowerCase().includes(needle));
}

export async function searchForms(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const { items } = await paginate<BookingForm>(this, API_PATHS.forms);
	const results: INodeListSearchItems[] = items
		.filter((form) => matches(filter, form.name, form.id))
		.map((form) => ({ name: form.is_default ? `${form.name} (default)` : String(form.name ?? form.id), value: form.id }));
	return { results };
}

export async function searchBusinessProfiles(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const { items } = await paginate<BusinessProfile>(this, API_PATHS.profiles);
	const results: INodeListSearchItems[] = items
		.filter((profile) => matches(filter, profile.title, profile.address_city, profile.id))
		.map((profile) => {
			const place = [profile.address_city, profile.address_state].filter(Boolean).join(', ');
			const label = place ? `${profile.title} — ${place}` : String(profile.title ?? profile.id);
			return { name: profile.is_default ? `${label} (default)` : label, value: profile.id };
		});
	return { results };
}
