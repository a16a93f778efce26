/**
 * What every poll is asked, whatever its events. Each event declares its own options (events/*.ts: the
 * type its `read` returns) and events/index.ts composes them into `TriggerSettings`.
 */
export interface BaseSettings {
	/** The selected events, by their value in the node's Events parameter (events/index.ts lists them). */
	events: Readonly<Partial<Record<string, boolean>>>;
	/** Identifies the form filter and the API target; a different value starts afresh. */
	fingerprint: string;
}

/** The settings an event sees: what every poll has, and its own options. */
export type SettingsOf<O> = BaseSettings & O;
