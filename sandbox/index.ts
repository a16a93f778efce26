// Public interface of the sandbox API server (see server.ts for the processing order and
// control.ts for the HTTP control routes).
export { startSandbox } from './server';
export type {
	BookingRequest,
	ListRows,
	BusinessProfile,
	FaultOptions,
	Form,
	IntakeResponse,
	Latency,
	MalformedKind,
	PreferredTime,
	RequestAttribution,
	RequestLogEntry,
	Sandbox,
	SandboxClock,
	SandboxKeys,
	SandboxOptions,
	SandboxSizes,
	SandboxStats,
	SaveSessionChange,
	Service,
	Session,
	SessionContact,
	SessionData,
	StartSessionInput,
	Workspace,
} from './types';
export { MAX_PER_PAGE, UUID_RE, hashKey, sortDefaultFirst, sortRequests, sortSessions } from './store';
export { MALFORMED_KINDS, normaliseLatency } from './faults';
export { DEFAULT_CHOICES, KIND_CHOICES } from './choices';
export type { ChoicesInput, ListName, ListOrder, SandboxChoices } from './choices';
export { KEY_PATTERN } from './seed';
