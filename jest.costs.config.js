/**
 * `npm run test:costs`: calls per page drained over HTTP (issue 28) — the backlog shapes of
 * harness/backlogShapes.ts against the sandbox, in n8n-core's PollContext. Its own script, run
 * in band: a poll's call budget comes from the pace it measures, so CPU load from parallel workers
 * would change the figures it asserts. `.ci/run` calls it after `npm test`.
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

module.exports = {
	...base,
	testMatch: ['**/costs.http.test.ts'],
	testPathIgnorePatterns: ['/node_modules/'],
};
