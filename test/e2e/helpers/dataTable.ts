/**
 * n8n's REST API as the recipes' e2e tests read it: a route's `data`, and every row of a Data table
 * (n8n 2.x), 250 a page.
 */
import type { N8nRest } from '../../../harness/n8n/rest';

/** The `data` of a REST answer; an error status throws with the route and the body. */
export async function restData<T>(rest: N8nRest, method: string, route: string, body?: unknown): Promise<T> {
	const r = await rest.request<{ data: T }>(method, route, body);
	if (r.status >= 400) throw new Error(`n8n ${method} /rest${route} -> ${r.status}: ${JSON.stringify(r.body).slice(0, 1000)}`);
	return (r.body as { data: T }).data;
}

/** Every row of the Data table named `name` (there must be exactly one), as n8n's REST API gives them. */
export async function dataTableRows(rest: N8nRest, name: string): Promise<Array<Record<string, unknown>>> {
	const tables = await restData<{ data: Array<{ id: string; name: string; projectId: string }> }>(rest, 'GET', '/data-tables-global');
	const table = tables.data.filter((t) => t.name === name);
	if (table.length !== 1) throw new Error(`expected one Data table named ${name}, found ${table.length}`);
	const rows: Array<Record<string, unknown>> = [];
	for (let skip = 0; ; skip += 250) {
		const page = await restData<{ count: number; data: Array<Record<string, unknown>> }>(
			rest,
			'GET',
			`/projects/${table[0].projectId}/data-tables/${table[0].id}/rows?take=250&skip=${skip}`,
		);
		rows.push(...page.data);
		if (rows.length >= page.count || page.data.length === 0) return rows;
	}
}
