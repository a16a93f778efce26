// The queue edition's own code (the Redis-shared limiter, n8n-nodes-booking-requests-queue): n8n's
// rules for self-hosted community nodes. It is not part of the n8n Cloud package, so the Cloud-only
// rules (no Node built-ins, no timers) do not apply to it; everything else does.
import { configWithoutCloudSupport } from '@n8n/node-cli/eslint';

export default configWithoutCloudSupport;
