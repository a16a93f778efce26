/**
 * The world of the upgrade test (upgrade.unit.test.ts): a trigger with every event and option that
 * keeps a memory, driven to where a state of the release before the trigger's rebuild was saved
 * (test/fixtures/trigger-state-0.1.0.json). Deterministic: the same ids and times on every run.
 */
import type { TriggerSettings } from '../../../nodes/BookingRequestsTrigger/events';
import type { BookingRequest, BookingSession } from '../../../nodes/shared/types';
import type { Customer } from '../../support/triggerWorld';
import { MIN, World, makeSettings, newCustomer, resetCustomers, resetIds } from '../../support/triggerWorld';

export const UPGRADE_SETTINGS: TriggerSettings = makeSettings({
	events: { sessionAbandoned: true, sessionCompleted: true, requestCreated: true, requestUpdated: true },
	updates: { watchNewest: 500, fields: ['status', 'lead_status', 'internal_notes', 'completed_at', 'contact'], statusTo: [], leadStatusTo: [] },
	skipIfBooked: true,
	customerCooldownMs: 7 * 24 * 60 * MIN,
});

export interface UpgradeWorld {
	world: World;
	ann: Customer;
	/** A request changed before the upgrade (status), to be changed again after it. */
	watched: BookingRequest;
	/** Ann's draft, reported abandoned before the upgrade. */
	annDraft: BookingSession;
}

/**
 * Steps before the upgrade, each followed by `poll`: the baseline; Ann's draft idle (reminded); Bo
 * books without a draft and a request is created; a request's status changes.
 */
export async function beforeUpgrade(poll: (world: World) => Promise<void>): Promise<UpgradeWorld> {
	resetIds();
	resetCustomers();
	const world = new World();
	for (let i = 0; i < 3; i++) world.addRequest();
	await poll(world);
	const ann = newCustomer();
	const annDraft = world.start({}, ann);
	world.advance(31 * MIN);
	await poll(world);
	world.bookWithoutDraft(newCustomer());
	const watched = world.addRequest();
	world.advance(MIN);
	await poll(world);
	world.changeRequest(watched, { status: 'in_progress' });
	world.advance(MIN);
	await poll(world);
	return { world, ann, watched, annDraft };
}
