// n8n's own lint rules for community nodes, without the n8n Cloud subset:
// Bottleneck paces requests with timers, which Cloud (strict) mode forbids.
// Only the shipped sources are linted here; tests and tooling are type-checked by `tsc`.
import { configWithoutCloudSupport } from '@n8n/node-cli/eslint';
import { globalIgnores } from 'eslint/config';

export default [
	globalIgnores(['test/**', 'bench/**', 'scripts/**', 'examples/**', 'docs/**', 'gulpfile.js', 'jest.config.js', 'coverage/**']),
	...configWithoutCloudSupport,
];
