/**
 * A new API key for the same trigger: a key belongs to one workspace, and rotating a leaked or revoked
 * key must not cost the trigger its place or its memories. The state keeps a booking request id of its
 * workspace (`ref`); a new key that can read that request (Get request: 200) reads the same workspace
 * and continues; a 404 means another workspace, which starts afresh (its history is not replayed,
 * nothing of the first workspace is reported again).
 */
import type { TriggerMemory } from '../state/decoded';
import type { PageSource } from './source';

export type KeyChange = { continues: true } | { continues: false; reason: 'another workspace' | 'nothing to compare' } | { continues: 'later' };

/**
 * What a poll by `keyId` does with a memory another key wrote. `later`: the check could not be made in
 * this poll's budget (nothing is sent or changed; the next poll asks again).
 */
export async function afterKeyChange(memory: TriggerMemory, keyId: string, source: Pick<PageSource, 'fetchRequest'>): Promise<KeyChange> {
	const { key, ref } = memory.label;
	if (key === undefined || key === keyId) return { continues: true };
	if (ref === undefined) return { continues: false, reason: 'nothing to compare' };
	const request = await source.fetchRequest(ref);
	if (request === undefined) return { continues: 'later' };
	if (request === null) return { continues: false, reason: 'another workspace' };
	return { continues: true };
}
