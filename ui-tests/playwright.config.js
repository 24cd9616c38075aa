/**
 * Galata against a real JupyterLab (started by global-setup.mjs so tests can restart it) in
 * Debian's Chromium, with a scripted OpenAI-compatible model server on loopback.
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

// Ports can be moved (FIGURE_CHAT_TEST_PORT, FIGURE_CHAT_MODEL_PORT) so two checkouts can run the
// suite at once.
const jupyterPort = process.env.FIGURE_CHAT_TEST_PORT ?? '8888';
const modelPort = process.env.FIGURE_CHAT_MODEL_PORT ?? '8765';
// The server's base URL path (`/user/alice/` in playwright.baseurl.config.js); Galata appends
// `/lab` to `baseURL`, so it goes there without its trailing slash.
const basePath = process.env.FIGURE_CHAT_TEST_BASE_URL ?? '/';

module.exports = {
  ...baseConfig,
  testDir: './tests',
  // These run against differently configured servers, from their own configs.
  testIgnore: ['**/baseurl.spec.ts', '**/notebook7.spec.ts', '**/collaboration.spec.ts'],
  workers: 1,
  // One retry on CI: a shared 2-core machine occasionally starves a browser step; a test that
  // fails twice fails the run.
  retries: process.env.CI ? 1 : 0,
  timeout: 180000,
  expect: { timeout: 20000 },
  reporter: [['list']],
  globalSetup: require.resolve('./global-setup.mjs'),
  globalTeardown: require.resolve('./global-teardown.mjs'),
  use: {
    ...baseConfig.use,
    baseURL: `http://127.0.0.1:${jupyterPort}${basePath.replace(/\/$/, '')}`,
    headless: true,
    // Traced only when a test is retried (with `CI` set, see `retries`): recording a trace
    // screencasts every frame and snapshots the DOM at every action, which made chat-ux and
    // vision-preview take 213-225 s instead of 140-153 s on 2 cores. A failure still leaves its
    // page snapshot (error-context.md); `--trace on` records a trace.
    trace: 'on-first-retry',
    video: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync'
      ]
    }
  },
  webServer: [
    {
      command: `node model/server.mjs ${modelPort}`,
      url: `http://127.0.0.1:${modelPort}/requests`,
      reuseExistingServer: false,
      stdout: 'ignore'
    }
  ]
};
