/** The frozen trigger as a TriggerUnderTest of the property programs (the differential test). */
import type { TriggerSettings } from '../../../nodes/BookingRequestsTrigger/model/settings';
import type { TriggerUnderTest } from '../triggerProgram';
import type { TriggerSettings as LegacySettings } from './diff';
import { listsFor } from './diff';
import type { PageSource } from './fetch';
import { pollChanges } from './fetch';
import { readState } from './state';

export const legacyTrigger: TriggerUnderTest = {
	poll: async (source, saved, settings: TriggerSettings, options) => {
		const legacy = settings as LegacySettings;
		const previous = saved === undefined ? undefined : readState(saved, legacy.fingerprint, listsFor(legacy));
		const result = await pollChanges(source as PageSource, previous, legacy, { budget: options.budget, needsRequest: options.needsRequest, localNow: options.localNow });
		return { events: result.events, cut: result.cut, state: result.state };
	},
};
