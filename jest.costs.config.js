/**
 * `npm run test:costs`, in band: the suites that measure polls at the real pace (jest.inBand.js) —
 * calls per page drained over HTTP (costs.http.test.ts: the backlog shapes of harness/backlogShapes.ts
 * in n8n-core's PollContext), polls under n8n's budget at the real 1 s limit (pollBudget.http.test.ts)
 * and the trigger at volume (volume.node.test.ts). In band and not in `npm test`: a poll's call budget
 * comes from the pace it measures and its duration is asserted, so CPU load from parallel workers would
 * change them. `.ci/run` calls it after `npm test`.
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

module.exports = {
	...base,
	testMatch: require('./jest.inBand.js').map((file) => `**/${file}`),
	testPathIgnorePatterns: ['/node_modules/'],
};
