/**
 * What the bench process and the sandbox fleet (fleetHost.ts, a child process) say to each other over
 * Node's IPC channel. The sandboxes live in their own process so that the CPU the bench measures is
 * n8n's and the node's only, never the API server's.
 */
import type { SandboxSizes } from '../../sandbox';

/** One client's sandbox: its own server, workspace (seeded from `seed`) and key. */
export interface FleetSpec {
	seed: number;
	sizes: SandboxSizes;
}

export interface FleetOptions {
	/** The sandbox's minimum gap between requests of one key (default 1000: the contract's limit). */
	minGapMs?: number;
	/** The sandboxes' late commits (choices.commitLagMs; default: the sandbox's, up to 2 s). */
	commitLagMs?: number;
}

export interface FleetClient {
	url: string;
	key: string;
	/** A second key of the same workspace, with its own rate budget. */
	secondKey: string;
}

/** A customer's contact, as a draft and a request both hold it. */
export interface Contact {
	email: string;
	phone: string;
}

/** Customer activity in one client's workspace, played in the order given at the sandbox clock. */
export type Activity =
	| { op: 'draft'; contact: Contact }
	/** The draft's customer finishes it: a draft given by id, or the one made by activity `ofActivity` of the same list. */
	| { op: 'complete'; sessionId: string }
	| { op: 'complete'; ofActivity: number }
	| { op: 'bookWithoutDraft'; contact: Contact }
	| { op: 'request'; contact: Contact }
	/** The workspace changes the lead status of the request at `rank` of the list (0: newest), or the next one below it not in `avoid`. */
	| { op: 'changeRequest'; rank: number; avoid: string[] }
	| { op: 'advance'; ms: number };

/** What the sandbox answered to each activity (times in ms on the sandbox clock). */
export type Happened =
	| { op: 'draft'; sessionId: string; at: number; contact: Contact }
	| { op: 'complete'; sessionId: string; requestId: string; at: number }
	| { op: 'bookWithoutDraft'; sessionId: string; requestId: string; at: number; contact: Contact }
	| { op: 'request'; requestId: string; at: number; contact: Contact }
	| { op: 'changeRequest'; requestId: string; at: number; rank: number }
	| { op: 'advance'; at: number };

/** The calls one key made since the last count, by kind. */
export interface CallCount {
	sessionPages: number;
	requestPages: number;
	formPages: number;
	/** Ids asked for with Get request. */
	requestIds: string[];
	other: number;
	/** Refused by the sandbox's rate limit. */
	rateLimited: number;
	/** Any other answer >= 400. */
	errors: number;
}

export type FleetCommand =
	| { op: 'start'; specs: FleetSpec[]; options: FleetOptions }
	| { op: 'play'; client: number; activity: Activity[] }
	| { op: 'advance'; ms: number }
	| { op: 'now' }
	/** The fleet process's CPU so far (user + system, microseconds): what serving the API cost. */
	| { op: 'cpu' }
	| { op: 'calls'; clients: number[] }
	| { op: 'sizes'; client: number }
	| { op: 'close' };

export interface FleetRequest {
	id: number;
	command: FleetCommand;
}

export interface FleetReply {
	id: number;
	result?: unknown;
	error?: string;
}
