/**
 * Real-time collaboration: JupyterLab with jupyter-collaboration, from its own environment
 * (build/rtc-venv, made by scripts/rtc-venv.sh), since jupyter-collaboration changes how every
 * document is loaded and saved and must not touch the other tests' server.
 */
const { join } = require('node:path');

process.env.FIGURE_CHAT_TEST_JUPYTER = join(__dirname, '..', 'build', 'rtc-venv', 'bin', 'jupyter');
// Its own server folder and results folder: scripts/test.sh runs this config beside the other two.
process.env.FIGURE_CHAT_TEST_RUNTIME = '.jupyter-runtime/rtc';
const config = require('./playwright.config.js');

module.exports = {
  ...config,
  outputDir: 'test-results/rtc',
  testIgnore: [],
  testMatch: ['**/collaboration.spec.ts']
};
