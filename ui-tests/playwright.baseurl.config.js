/**
 * The core path (chat, figure, vision) against a Jupyter server under a JupyterHub single-user
 * server's base URL, `/user/alice/`. Same JupyterLab, Chromium and model server as
 * playwright.config.js; the base URL reaches the server (jupyter_server_test_config.py), Galata
 * (`baseURL`) and the tests (helpers.ts) through FIGURE_CHAT_TEST_BASE_URL.
 */
process.env.FIGURE_CHAT_TEST_BASE_URL = '/user/alice/';
// Its own server folder and results folder: scripts/test.sh runs this config beside the other two.
process.env.FIGURE_CHAT_TEST_RUNTIME = '.jupyter-runtime/baseurl';
const config = require('./playwright.config.js');

module.exports = {
  ...config,
  outputDir: 'test-results/baseurl',
  testIgnore: [],
  testMatch: ['**/baseurl.spec.ts']
};
