/**
 * Figure Chat in Jupyter Notebook 7: the same test server configuration, started as
 * `jupyter notebook` (jupyter.mjs reads FIGURE_CHAT_TEST_APP), with plain Playwright pages.
 */
process.env.FIGURE_CHAT_TEST_APP = 'notebook';
// Its own server folder and results folder: scripts/test.sh runs this config beside the other two.
process.env.FIGURE_CHAT_TEST_RUNTIME = '.jupyter-runtime/notebook';
const config = require('./playwright.config.js');

module.exports = {
  ...config,
  outputDir: 'test-results/notebook',
  testIgnore: [],
  testMatch: ['**/notebook7.spec.ts', '**/labelling-notebook7.spec.ts']
};
