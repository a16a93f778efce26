import type { DisplayCondition, INodeProperties } from 'n8n-workflow';

import { SAVED_SECRET_PREFIX } from '../credentials/fieldChecks';

/**
 * redis:// or rediss:// (TLS): conditions n8n evaluates without a regular expression, as every field
 * check of the credential (credentials/fieldChecks.ts). The limiter refuses a URL without a host
 * before connecting (parseRedisUrl).
 */
export const REDIS_URL: DisplayCondition[] = [{ _cnd: { startsWith: 'redis://' } }, { _cnd: { startsWith: 'rediss://' } }];

/**
 * The queue edition's own credential fields (`n8n-nodes-booking-requests-queue`): its build puts this
 * module in the place of credentials/editionFields.ts (gulpfile.js), so the credential type keeps its
 * name and common fields and adds these. Only this edition has the Redis-shared limiter that reads them.
 */
export const EDITION_CREDENTIAL_PROPERTIES: INodeProperties[] = [
	{
		displayName: 'Share Rate Limit Across n8n Processes',
		name: 'shareRateLimit',
		type: 'boolean',
		default: false,
		description:
			'Whether every n8n process using this key shares one budget of 1 request per second through Redis. Only needed in n8n queue mode (a main process and workers); leave off for a single n8n process, which paces itself.',
	},
	// The URL may carry the Redis password (redis://:password@host), so it is masked like one.
	{
		displayName: 'Redis URL',
		name: 'redisUrl',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		required: true,
		placeholder: 'redis://:password@redis:6379/0',
		displayOptions: { show: { shareRateLimit: [true] } },
		description:
			'A Redis every n8n process can reach, e.g. the one queue mode uses: redis:// or rediss:// (TLS). All processes using this API key then share one budget of 1 request per second.',
	},
	{
		displayName: 'The Redis URL starts with redis:// or rediss:// (TLS), e.g. redis://:password@redis:6379/0',
		name: 'redisUrlNotice',
		type: 'notice',
		default: '',
		displayOptions: {
			show: { shareRateLimit: [true] },
			hide: { redisUrl: ['', ...REDIS_URL, { _cnd: { startsWith: SAVED_SECRET_PREFIX } }] },
		},
	},
];
