// Run once per backend by scripts/test.mjs, which sets STOREFRONT_TEST_BACKEND.
module.exports = {
  require: ['tsx/cjs'],
  spec: ['apps/*/test/**/*.test.ts', 'libs/*/test/**/*.test.ts', 'testing/*/test/**/*.test.ts'],
  extension: ['ts'],
  timeout: 30000,
  slow: 1000,
  exit: true,
};
