/**
 * A small REST client for a running `n8n start`: owner set-up, credential test, manual run of a
 * workflow from a chosen trigger (the only way n8n runs a polling trigger once).
 */
import { createRequire } from 'node:module';

import type { N8nInstall } from './install';
import { summariseRun, type ExecutionResult } from './workflows';


export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const DEFAULT_OWNER: Owner = {
	email: 'demo@example.com',
	password: 'Demo-password-1',
	firstName: 'Demo',
	lastName: 'Owner',
};

export interface CredentialTestResult {
	status: 'OK' | 'Error';
	message: string;
}

export class N8nRest {
	private cookie = '';
	private readonly browserId = `e2e-${Math.random().toString(36).slice(2)}`;

	constructor(
		readonly baseUrl: string,
		/** n8n install, used to load its `flatted` for execution data. */
		readonly install: N8nInstall,
	) {}

	async request<T = unknown>(method: string, route: string, body?: unknown): Promise<{ status: number; body: T }> {
		const res = await fetch(`${this.baseUrl}/rest${route}`, {
			method,
			headers: {
				'content-type': 'application/json',
				'browser-id': this.browserId,
				...(this.cookie ? { cookie: this.cookie } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const setCookie = res.headers.getSetCookie?.() ?? [];
		for (const c of setCookie) {
			const m = /^(n8n-auth=[^;]*)/.exec(c);
			if (m) this.cookie = m[1];
		}
		const text = await res.text();
		let parsed: unknown = text;
		try {
			parsed = JSON.parse(text);
		} catch {
			/* not JSON */
		}
		return { status: res.status, body: parsed as T };
	}

	/** A REST call that must succeed: its `data`. */
	async ok<T>(method: string, route: string, body?: unknown): Promise<T> {
		const r = await this.request<{ data: T }>(method, route, body);
		if (r.status >= 400) throw new Error(`n8n ${method} /rest${route} -> ${r.status}: ${JSON.stringify(r.body).slice(0, 1000)}`);
		return (r.body as { data: T }).data;
	}

	/** Creates the owner account on a fresh instance (or logs in if it exists). */
	async setupOwner(owner: Owner = DEFAULT_OWNER): Promise<void> {
		const r = await this.request('POST', '/owner/setup', owner);
		if (r.status < 400) return;
		await this.login(owner);
	}

	async login(owner: Owner = DEFAULT_OWNER): Promise<void> {
		await this.ok('POST', '/login', { emailOrLdapLoginId: owner.email, password: owner.password });
	}

	/**
	 * Runs the credential type's `test` (test.request) through n8n's CredentialsTester, as the
	 * editor's "Test" / save does. `data` overrides the stored data of credential `id`.
	 */
	async testCredential(cred: { id: string; name?: string; type?: string; data?: Record<string, unknown> }): Promise<CredentialTestResult> {
		// like the editor: load the credential (secrets come back redacted), send it to /test;
		// n8n restores the redacted values from the stored, encrypted data before testing
		const stored = await this.ok<{ id: string; name: string; type: string; data?: Record<string, unknown> }>(
			'GET',
			`/credentials/${cred.id}?includeData=true`,
		);
		return this.ok<CredentialTestResult>('POST', '/credentials/test', {
			credentials: {
				id: stored.id,
				name: cred.name ?? stored.name,
				type: cred.type ?? stored.type,
				data: { ...(stored.data ?? {}), ...(cred.data ?? {}) },
			},
		});
	}

	/** Node types n8n has loaded (names like `n8n-nodes-booking-requests.bookingRequests`). */
	async nodeTypeNames(): Promise<string[]> {
		const r = await fetch(`${this.baseUrl}/types/nodes.json`, { headers: { 'browser-id': this.browserId, cookie: this.cookie } });
		const list = (await r.json()) as Array<{ name: string }>;
		return list.map((n) => n.name);
	}

	async credentialTypeNames(): Promise<string[]> {
		return (await this.credentialTypes()).map((n) => n.name);
	}

	/** The credential type definitions the editor gets (one entry per package that defines a type). */
	async credentialTypes(): Promise<Array<{ name: string; properties?: unknown[]; supportedNodes?: string[]; [key: string]: unknown }>> {
		const r = await fetch(`${this.baseUrl}/types/credentials.json`, { headers: { 'browser-id': this.browserId, cookie: this.cookie } });
		return (await r.json()) as Array<{ name: string }>;
	}

	/**
	 * Manual run from a trigger node (the editor's "Fetch test event" / "Execute workflow"):
	 * mode 'manual', so a polling trigger's poll() runs once. Waits for the execution and
	 * returns its run data.
	 */
	async runFromTrigger(workflowId: string, triggerName: string, timeoutMs = 120_000): Promise<ExecutionResult> {
		// n8n 1.x reads the workflow from the body (2.x ignores it), so send it as the editor does.
		const workflowData = await this.ok<Record<string, unknown>>('GET', `/workflows/${workflowId}`);
		const started = await this.ok<{ executionId?: string; waitingForWebhook?: boolean }>('POST', `/workflows/${workflowId}/run`, {
			workflowData,
			triggerToStartFrom: { name: triggerName },
		});
		if (!started.executionId) throw new Error(`n8n did not start an execution: ${JSON.stringify(started)}`);
		return this.waitForExecution(started.executionId, timeoutMs);
	}

	async waitForExecution(executionId: string, timeoutMs = 120_000): Promise<ExecutionResult> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const r = await this.request<{ data: { status?: string; finished?: boolean; data?: unknown } }>('GET', `/executions/${executionId}`);
			const exec = r.status === 200 ? (r.body as { data: { status?: string; finished?: boolean; data?: unknown } }).data : undefined;
			if (exec && exec.status && !['new', 'running', 'waiting'].includes(exec.status) && exec.data) {
				const data = typeof exec.data === 'string' ? this.unflatten(exec.data) : exec.data;
				// n8n 1.x on SQLite (pool size 0) writes the status and the run data in two statements
				// without a transaction: a finished status can be read while the data is still the
				// placeholder of a manual run (flatted "[]"). Poll on until the run data is there.
				if (hasResultData(data)) return summariseRun(data, `status=${exec.status}`);
			}
			if (Date.now() > deadline) throw new Error(`execution ${executionId} did not finish: ${JSON.stringify(r.body).slice(0, 500)}`);
			await new Promise((res) => setTimeout(res, 250));
		}
	}

	/** Execution data is stored and served in `flatted` format; use n8n's own copy to read it. */
	private unflatten(text: string): unknown {
		const req = createRequire(this.install.n8nBin);
		const flatted = req('flatted') as { parse: (s: string) => unknown };
		return flatted.parse(text);
	}
}

function hasResultData(data: unknown): boolean {
	if (typeof data !== 'object' || data === null) return false;
	const d = data as { resultData?: unknown; data?: { resultData?: unknown } };
	return d.resultData !== undefined || d.data?.resultData !== undefined;
}
