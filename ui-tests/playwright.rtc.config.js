/**
 * Real-time collaboration: JupyterLab with jupyter-collaboration, from its own environment
 * (build/rtc-venv, made by scripts/rtc-venv.sh), since jupyter-collaboration changes how every
 * document is loaded and saved and must not touch the other tests' server.
 */
const { join } = require('node:path');

process.env.FIGURE_CHAT_TEST_JUPYTER = join(__dirname, '..', 'build', 'rtc-venv', 'bin', 'jupyter');
const config = require('./playwright.config.js');

module.exports = { ...config, testIgnore: [], testMatch: ['**/collaboration.spec.ts'] };
