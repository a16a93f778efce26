/**
 * n8n's log in a test process.
 *
 * Run first in every test file (jest.config.js, setupFiles): n8n's logger logs nothing unless
 * N8N_LOG_LEVEL asks for it (`N8N_LOG_LEVEL=info npx jest <file>`). The in-process n8n-core
 * (harness/inProcessN8n.ts) would otherwise print, through the console, every node error its
 * ErrorReporter sees — the errors the tests provoke and assert on the run's result — and the nodes'
 * warnings. Where what a node logs is the point of a test, the test captures it with captureN8nLog()
 * and asserts it. The n8n processes of the e2e suites get their own level (harness/n8n/server.ts).
 */
import { createRequire } from 'node:module';

import type { IDataObject } from 'n8n-workflow';

import { envOverride } from '../../harness/env';

if (envOverride('N8N_LOG_LEVEL') === undefined) process.env.N8N_LOG_LEVEL = 'silent';

const LEVELS = ['error', 'warn', 'info', 'debug', 'verbose'] as const;
export type N8nLogLevel = (typeof LEVELS)[number];

export interface N8nLogEntry {
	/** `Logger`: n8n-core's container Logger; `LoggerProxy`: n8n-workflow's. */
	source: 'Logger' | 'LoggerProxy';
	level: N8nLogLevel;
	message: string;
	meta: IDataObject;
}

export interface N8nLogCapture {
	entries: N8nLogEntry[];
	/** The messages logged at this level, in order. */
	messages(level: N8nLogLevel): string[];
	restore(): void;
}

/**
 * Captures what n8n and the nodes log, at every level, until restore(): n8n-core's container Logger
 * (the one `this.logger` returns in node contexts, and that n8n's ErrorReporter and HTTP layer log to)
 * and n8n-workflow's LoggerProxy. An ErrorReporter made before the capture keeps the logger it had.
 */
export function captureN8nLog(onEntry?: (entry: N8nLogEntry) => void): N8nLogCapture {
	const entries: N8nLogEntry[] = [];
	const logger = (source: N8nLogEntry['source']) => {
		const instance: Record<string, unknown> = {};
		for (const level of LEVELS) {
			instance[level] = (message: string, meta?: IDataObject) => {
				const entry = { source, level, message, meta: meta ?? {} };
				entries.push(entry);
				onEntry?.(entry);
			};
		}
		instance.scoped = () => instance;
		return instance;
	};
	// required here, not above: every test file runs this module first, most never load n8n
	const { LoggerProxy } = require('n8n-workflow') as typeof import('n8n-workflow');
	// n8n-core resolves its own copies of @n8n/di and @n8n/backend-common: use those.
	const fromCore = createRequire(require.resolve('n8n-core'));
	const { Container } = fromCore('@n8n/di') as { Container: { get(t: unknown): unknown; set(t: unknown, v: unknown): void } };
	const { Logger } = fromCore('@n8n/backend-common') as { Logger: unknown };
	let previous: unknown;
	try {
		previous = Container.get(Logger);
	} catch {
		previous = undefined;
	}
	Container.set(Logger, logger('Logger'));
	// After the container Logger: creating n8n's root Logger points LoggerProxy at it.
	LoggerProxy.init(logger('LoggerProxy') as never);
	return {
		entries,
		messages: (level) => entries.filter((entry) => entry.level === level).map((entry) => entry.message),
		restore: () => {
			LoggerProxy.init((previous ?? { error() {}, warn() {}, info() {}, debug() {} }) as never);
			if (previous !== undefined) Container.set(Logger, previous);
		},
	};
}
