/**
 * What the unit and volume tiers refuse: the network. A unit test is pure logic, so any attempt to open
 * a network connection (a sandbox, Redis, n8n) fails the test at once instead of passing slowly.
 * Applied to each test file of those projects by test/support/tierEnvironment.ts (jest.config.js).
 */
import net = require('node:net');

function refuse(): never {
	throw new Error('unit tests must not use the network: move this test to the integration tier (name it *.test.ts, not *.unit.test.ts)');
}

/** Refuses connections and listening sockets in this process until the returned function is called. */
export function refuseNetwork(): () => void {
	const { connect } = net.Socket.prototype;
	const { listen } = net.Server.prototype;
	net.Socket.prototype.connect = refuse;
	net.Server.prototype.listen = refuse;
	return () => {
		net.Socket.prototype.connect = connect;
		net.Server.prototype.listen = listen;
	};
}
