import { toColumns } from '../nodes/BookingRequestsTrigger/events/requestUpdated/recordColumns';
import { encodeNumber } from '../nodes/BookingRequestsTrigger/state/numbers';
const rows = Array.from({ length: 5000 }, (_, i) => ({ rank: 50000 - i, id: 'abcdef', updated: 'xyz', status: ['new', 'pending', 'done'][i % 3], lead: ['a', 'b'][i % 2], completed: i % 5 === 0 ? encodeNumber(1_700_000_000_000 + i, 7) : null, notes: i % 3 === 0 ? 'abcd' : null, chain: null, contact: 'ABCD' + 'x'.repeat(50) }));
const t = (label: string, f: () => unknown) => { for (let k = 0; k < 5; k++) f(); const s = process.hrtime.bigint(); for (let k = 0; k < 50; k++) f(); console.log(label, Number(process.hrtime.bigint() - s) / 50 / 1e6, 'ms'); };
t('toColumns 5000', () => toColumns(rows));
t('encodeNumber x5000', () => { for (let i = 0; i < 5000; i++) encodeNumber(1_700_000_000_000 + i, 7); });
t('sort 5000', () => [...rows].sort((a, b) => b.rank - a.rank));
