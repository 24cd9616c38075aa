/**
 * Figure Chat in Jupyter Notebook 7: the same test server configuration, started as
 * `jupyter notebook` (jupyter.mjs reads FIGURE_CHAT_TEST_APP), with plain Playwright pages.
 */
process.env.FIGURE_CHAT_TEST_APP = 'notebook';
const config = require('./playwright.config.js');

module.exports = { ...config, testIgnore: [], testMatch: ['**/notebook7.spec.ts'] };
