/**
 * Set-up file of the unit tier (jest.unit.config.js): a unit test is pure logic, so any attempt to open
 * a network connection (a sandbox, Redis, n8n) fails the test at once instead of passing slowly.
 */
'use strict';
const net = require('node:net');

const refuse = () => {
	throw new Error('unit tests must not use the network: move this test to the integration tier (name it *.test.ts, not *.unit.test.ts)');
};
net.Socket.prototype.connect = refuse;
net.Server.prototype.listen = refuse;
