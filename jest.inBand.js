/**
 * The suites that measure a poll against n8n's poll budget, or its calls per page, at the real pace:
 * `npm run test:costs` runs them one after the other (in band, jest.costs.config.js) and `npm test`
 * leaves them out (jest.config.js). CPU load from parallel test workers, or from anything else on the
 * machine, changes what they measure.
 */
module.exports = [
	// calls per page drained over HTTP
	'costs.http.test.ts',
	// a backlog and 800 bookings without a draft under a budget, at the real 1 request/s
	'pollBudget.http.test.ts',
	// 10,000 drafts, a bulk import and a 3-hour backlog: each poll within its budget
	'volume.node.test.ts',
];
