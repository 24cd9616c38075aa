/**
 * Galata against a real JupyterLab (started by global-setup.mjs so tests can restart it) in
 * Debian's Chromium, with a scripted OpenAI-compatible model server on loopback.
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

module.exports = {
  ...baseConfig,
  testDir: './tests',
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
    baseURL: 'http://127.0.0.1:8888',
    headless: true,
    trace: 'retain-on-failure',
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
      command: 'node model/server.mjs 8765',
      url: 'http://127.0.0.1:8765/requests',
      reuseExistingServer: false,
      stdout: 'ignore'
    }
  ]
};
