/**
 * `npm run test:volume`: the trigger's oracle runs at volume (jest.volume.js), pure logic on the
 * in-memory list model like the unit tier (the network refused), in parallel workers.
 * @type {import('jest').Config}
 */
const base = require('./jest.config.js');

module.exports = {
	...base,
	testMatch: require('./jest.volume.js').map((file) => `**/${file}`),
	testPathIgnorePatterns: ['/node_modules/'],
	setupFiles: ['<rootDir>/test/support/noNetwork.js'],
};
