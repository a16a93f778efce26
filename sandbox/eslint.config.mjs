// Development tooling, not part of any package: type-checked by `tsc` (npm run typecheck), not linted
// with n8n's node rules. ESLint finds this file instead of the root's because `npm run lint` looks up
// the configuration from each file's folder (ESLINT_FLAGS=unstable_config_lookup_from_file).
export default [{ ignores: ['**'] }];
