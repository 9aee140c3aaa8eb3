// Run once per backend by scripts/test.mjs, which sets STOREFRONT_TEST_BACKEND, and sets
// STOREFRONT_TEST_FILES_NAMED when test files are named on its command line: mocha adds a
// config's spec list to the named files, so the whole suite is left out then.
const WHOLE_SUITE = ['apps/*/test/**/*.test.ts', 'libs/*/test/**/*.test.ts', 'testing/*/test/**/*.test.ts'];

module.exports = {
  require: ['tsx/cjs'],
  spec: process.env.STOREFRONT_TEST_FILES_NAMED ? [] : WHOLE_SUITE,
  extension: ['ts'],
  timeout: 30000,
  slow: 1000,
  exit: true,
};
