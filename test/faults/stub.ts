/**
 * A tiny loopback server for contract breaks the sandbox cannot produce (a server that ignores `page`,
 * a misreported `per_page`, a `total` that is too low…). It serves one list, `/api/v1/requests`, from
 * the records it is given, and lets a test spoil each answer.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubList {
	/** The records in API order. */
	records: Array<Record<string, unknown>>;
	/** Builds the answer body of one page; the default is the contract's. */
	answer?: (page: number, perPage: number, records: Array<Record<string, unknown>>) => unknown;
}

export interface Stub {
	url: string;
	/** Every request: path and query. */
	log: Array<{ path: string; query: Record<string, string> }>;
	list: StubList;
	close(): Promise<void>;
}

export function contractPage(page: number, perPage: number, records: Array<Record<string, unknown>>) {
	return { items: records.slice((page - 1) * perPage, page * perPage), pagination: { page, per_page: perPage, total: records.length } };
}

export async function startStub(list: StubList): Promise<Stub> {
	const log: Stub['log'] = [];
	const stub = { log, list } as Stub;
	const server = http.createServer((req, res) => {
		const url = new URL(req.url ?? '/', 'http://stub.invalid');
		const query = Object.fromEntries(url.searchParams);
		log.push({ path: url.pathname, query });
		if (url.pathname !== '/api/v1/requests') {
			res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 'not_found', message: 'No such endpoint' }));
			return;
		}
		const page = Math.max(1, Number.parseInt(query.page ?? '1', 10) || 1);
		const perPage = Math.min(100, Math.max(1, Number.parseInt(query.per_page ?? '25', 10) || 25));
		const body = (stub.list.answer ?? contractPage)(page, perPage, stub.list.records);
		res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	stub.close = async () =>
		await new Promise<void>((resolve) => {
			server.close(() => resolve());
			server.closeAllConnections();
		});
	return stub;
}
