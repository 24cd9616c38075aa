/**
 * Browser benchmarks (not tests: they report, never assert a time). Same JupyterLab and Chromium
 * set-up as the tests. Run: cd ui-tests && npx playwright test --config playwright.bench.config.js
 */
const config = require('./playwright.config.js');

module.exports = { ...config, testDir: './bench', timeout: 300000 };
