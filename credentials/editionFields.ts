import type { INodeProperties } from 'n8n-workflow';

/**
 * The credential fields only one edition has, shown after the common ones (gulpfile.js builds both
 * editions from this source):
 * - the n8n Cloud edition, `n8n-nodes-booking-requests` (this module): none. It paces each n8n process
 *   on its own, so it asks nothing about Redis or worker processes;
 * - the queue edition, `n8n-nodes-booking-requests-queue`: its build puts queue/credentialFields.ts in
 *   the place of this module (Share Rate Limit Across n8n Processes, Redis URL).
 * Both editions define the credential type `bookingRequestsApi` with the same common fields, so a
 * saved credential carries over: n8n hands a node the saved values of the fields its edition defines
 * (a queue credential's Redis values are not used by the Cloud edition; a Cloud credential is "not
 * shared" in the queue edition, its toggle's default).
 */
export const EDITION_CREDENTIAL_PROPERTIES: INodeProperties[] = [];
