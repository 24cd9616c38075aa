/**
 * The figure server reads its key, endpoint and limits from `process.env` at each request; tests
 * set them per test and put the developer's own values back afterwards.
 */

/** Every variable the model proxy reads. */
export const PROXY_ENV = [
  'FIGURE_CHAT_API_KEY',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'FIGURE_CHAT_ENDPOINT',
  'FIGURE_CHAT_MODEL_TIMEOUT',
  'FIGURE_CHAT_MODEL_IDLE_TIMEOUT',
  'FIGURE_CHAT_MODEL_MAX_DURATION',
  'FIGURE_CHAT_MODEL_MAX_BYTES',
  'FIGURE_CHAT_MAX_INFLIGHT_BYTES'
] as const;

/** Clears the proxy's variables before each test and restores them after each. */
export function isolateProxyEnv(): void {
  const saved = PROXY_ENV.map(name => [name, process.env[name]] as const);
  beforeEach(() => {
    for (const name of PROXY_ENV) {
      delete process.env[name];
    }
  });
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) {
        delete process.env[name];
      } else {
        process.env[name] = value;
      }
    }
  });
}
