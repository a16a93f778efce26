// editions/queue/ is build output (the queue edition's package, made by `npm run build` from nodes/,
// credentials/ and queue/, which are linted where they are): nothing here to lint.
export default [{ ignores: ['**'] }];
