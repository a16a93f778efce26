/**
 * The node's description: built from the events (events/index.ts), which declare their words and their
 * parameters; this file names no event.
 */
import type { INodeProperties } from 'n8n-workflow';

import { formLocator } from '../shared/locators';
import { EVENT_KINDS } from './events';
import type { EventKind } from './events/kind';

/**
 * The canvas subtitle, e.g. "Abandoned after 30 min, Completed, New Request": each selected event's
 * part, short enough for the canvas, which cuts subtitles at about 25 characters (no arrow functions
 * in the expression: both of n8n's expression engines read it).
 */
export const TRIGGER_SUBTITLE = `={{ [${EVENT_KINDS.map(
	(kind) => `$parameter["events"].includes("${kind.value}") ? "${kind.words.subtitle.replace(/\{(\w+)\}/g, '" + $parameter["$1"] + "')}" : ""`,
).join(', ')}].filter(Boolean).join(", ") }}`;

/** "a, b, or c", each phrase without the words it shares with the one before ("a customer …"). */
function listed(parts: string[], last: 'or' | 'and'): string {
	const words = parts.map((part) => part.split(' '));
	const shorter = words.map((part, i) => {
		const before = words[i - 1] ?? [];
		let shared = 0;
		while (shared < part.length - 1 && part[shared] === before[shared]) shared++;
		return (shared >= 2 ? part.slice(shared) : part).join(' ');
	});
	if (shorter.length < 3) return shorter.join(` ${last} `);
	return `${shorter.slice(0, -1).join(', ')}, ${last} ${shorter[shorter.length - 1]}`;
}

export const TRIGGER_DESCRIPTION = `Starts a workflow when ${listed(
	EVENT_KINDS.map((kind) => kind.words.when),
	'or',
)}`;

/**
 * The notices at the top: one for what every selected event shares, shown while any is selected, and
 * one per event ("Starts the workflow once for …"), shown while it is selected, so that together they
 * name every selected event and no other (a notice is static text shown by displayOptions). With no
 * event selected none is shown.
 */
function eventNotices(): INodeProperties[] {
	const notice = (displayName: string, events: string[]): INodeProperties => ({ displayName, name: 'notice', type: 'notice', default: '', displayOptions: { show: { events } } });
	return [
		notice(
			'Checks for news at the interval under "Poll Times". Only what happens after you publish the workflow (n8n 1.x: activate) is sent, never anything from before. "Fetch Test Event" shows up to 3 recent examples of each event and does not change what the published workflow will send.',
			EVENT_KINDS.map((kind) => kind.value),
		),
		...EVENT_KINDS.map((kind) => notice(`Starts the workflow once for ${kind.words.startsFor} (${kind.words.name}).`, [kind.value])),
	];
}

/**
 * The events' own parameters, each once (one several events use is listed by each), shown while one of
 * them is selected: `show` gets their values under `key` (`events`, or `/events` inside Options) beside
 * the parameter's own conditions.
 */
function shownFor(of: (kind: EventKind) => readonly INodeProperties[] | undefined, key: string): INodeProperties[] {
	const users = new Map<INodeProperties, string[]>();
	for (const kind of EVENT_KINDS) for (const property of of(kind) ?? []) users.set(property, [...(users.get(property) ?? []), kind.value]);
	return [...users].map(([property, values]) => ({
		...property,
		displayOptions: { ...property.displayOptions, show: { [key]: values, ...property.displayOptions?.show } },
	}));
}

export const triggerProperties: INodeProperties[] = [
	...eventNotices(),
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: [EVENT_KINDS[0].value],
		description:
			'What starts the workflow. An event added to a published workflow counts from the last check; what the trigger remembers is kept.',
		// Each event's entry comes from its module (events/*.ts), listed by name as n8n's editor expects.
		options: [...EVENT_KINDS]
			.sort((a, b) => a.words.name.localeCompare(b.words.name))
			.map((kind) => ({ name: kind.words.name, value: kind.value, description: kind.words.description })),
	},
	...shownFor((kind) => kind.parameters, 'events'),
	formLocator('Only sessions and requests of this form. Leave empty for all forms. Changing it starts afresh from the moment of the change.'),
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description: `Whether to return one flat item per event instead of the raw API object. ${EVENT_KINDS.map((kind) => `${kind.words.name}: ${kind.words.fields}`).join('. ')}.`,
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: shownFor((kind) => kind.options, '/events').sort((a, b) => a.displayName.localeCompare(b.displayName)),
	},
];
