/**
 * Browser benchmarks (not tests: they report, never assert a time). Same JupyterLab and Chromium
 * set-up as the tests. Run: cd ui-tests && npx playwright test --config playwright.bench.config.js
 *
 * From build/bench-venv when it exists (scripts/bench-venv.sh: the same pins plus the peers the
 * benchmarks compare with, such as jupyter_bbox_widget), else from the checkout's .venv.
 */
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const benchJupyter = join(__dirname, '..', 'build', 'bench-venv', 'bin', 'jupyter');
if (!process.env.FIGURE_CHAT_TEST_JUPYTER && existsSync(benchJupyter)) {
  process.env.FIGURE_CHAT_TEST_JUPYTER = benchJupyter;
}
const config = require('./playwright.config.js');

module.exports = {
  ...config,
  testDir: './bench',
  timeout: 300000,
  // No Playwright trace: its screencast captures and ships every frame, and its recorder snapshots
  // the whole DOM at every action and expect poll (~0.4 s of the main thread in a first open's CPU
  // profile, seconds in a 1,000-message chat), CPU the pages being timed then lack on a 2-core
  // machine. A benchmark that fails says why in its own output.
  use: { ...config.use, trace: 'off' }
};
