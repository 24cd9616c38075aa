/**
 * The figure server's version, set at bundle time from package.json so the labextension can check
 * at start-up that it talks to the server it was built with.
 */
declare const __FIGURE_CHAT_VERSION__: string | undefined;

export const FIGURE_CHAT_VERSION: string =
  typeof __FIGURE_CHAT_VERSION__ === 'string' ? __FIGURE_CHAT_VERSION__ : 'development';
