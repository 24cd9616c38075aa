/**
 * Where a model request goes, and whether it carries the API key.
 *
 * The key belongs to the Jupyter server's environment, so the endpoint it is sent to must come
 * from there too: `FIGURE_CHAT_ENDPOINT` (or, with only `OPENAI_API_KEY`, OpenAI's own endpoint,
 * as the OpenAI SDK does). The browser's endpoint setting is honoured only when no key is
 * configured, or when it names the same origin and a Chat Completions path under the server's
 * base; otherwise the server's endpoint is used, so a page can never aim the key elsewhere.
 *
 * Which endpoint is in force: the user's setting when it may be honoured, else the server's
 * (`FIGURE_CHAT_ENDPOINT`, or `c.FigureChat.endpoint` passed on as that variable), else a local
 * Ollama. An empty setting means "not set": the browser cannot outvote the administrator by
 * sending a default it never chose (issue 33).
 */
import { HttpError } from '../http/http';

/** OpenAI's endpoint: what the OpenAI SDK uses when `OPENAI_BASE_URL` is not set. */
export const OPENAI_DEFAULT_ENDPOINT = 'https://api.openai.com/v1';

/** The endpoint when neither the user nor the Jupyter server names one: a local Ollama. */
export const LOCAL_DEFAULT_ENDPOINT = 'http://localhost:11434/v1';

const COMPLETIONS = '/chat/completions';

/**
 * Where the server's endpoint came from. `c.FigureChat.endpoint` reaches the figure server as
 * `FIGURE_CHAT_ENDPOINT` with `FIGURE_CHAT_ENDPOINT_SOURCE=config` beside it (see proxy.py).
 */
export type ServerEndpointSource =
  'FIGURE_CHAT_ENDPOINT' | 'c.FigureChat.endpoint' | 'OPENAI_BASE_URL' | 'OPENAI_API_KEY';

/** Where the endpoint in force came from. */
export type EndpointSource = ServerEndpointSource | 'settings' | 'default';

/** Where an endpoint came from, in a user's words, for messages. */
export function describeEndpointSource(source: EndpointSource): string {
  switch (source) {
    case 'FIGURE_CHAT_ENDPOINT':
      return 'FIGURE_CHAT_ENDPOINT on the Jupyter server';
    case 'c.FigureChat.endpoint':
      return "c.FigureChat.endpoint in the Jupyter server's configuration";
    case 'OPENAI_BASE_URL':
      return 'OPENAI_BASE_URL on the Jupyter server';
    case 'OPENAI_API_KEY':
      return "OpenAI's endpoint, because OPENAI_API_KEY is set on the Jupyter server";
    case 'settings':
      return 'Settings → Figure Chat';
    case 'default':
      return 'the default: no endpoint in Settings → Figure Chat or on the Jupyter server';
  }
}

/** The key and the endpoint it belongs to, from the server's environment. */
export interface ServerModelConfig {
  /** The API key, if one is configured. */
  readonly key?: string;
  /** The environment variable the key came from. */
  readonly keySource?: 'FIGURE_CHAT_API_KEY' | 'OPENAI_API_KEY';
  /** The server's own endpoint base (no trailing slash, no `/chat/completions`). */
  readonly endpoint?: URL;
  /** Where the endpoint came from. */
  readonly endpointSource?: ServerEndpointSource;
}

/** Where one request goes. */
export interface ModelTarget {
  /** The Chat Completions URL. */
  readonly url: string;
  /** The endpoint's base, as the user should see it. */
  readonly endpoint: string;
  /** Where it came from. */
  readonly source: EndpointSource;
  /** The endpoint for messages, with where it came from unless the user chose it. */
  readonly label: string;
  /** The key to send, only when `url` is under the server's endpoint. */
  readonly key?: string;
  /** Why the browser's endpoint was not used, for error messages (a user may wonder). */
  readonly note?: string;
}

/** An endpoint base: an http(s) URL with no credentials, query or fragment. */
function parseBase(text: string, what: string, hint: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new HttpError(
      400,
      `${what} ${JSON.stringify(text)} is not a URL; use the server's /v1 base, for example http://localhost:11434/v1. ${hint}`,
      'bad-endpoint'
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpError(
      400,
      `${what} ${JSON.stringify(text)} is not an http(s) URL; use the server's /v1 base, for example http://localhost:11434/v1. ${hint}`,
      'bad-endpoint'
    );
  }
  // A query, a fragment or user info has no place in a Chat Completions base, and each is a way to
  // smuggle a different request past a path check.
  if (url.username || url.password || url.search || url.hash || text.includes('#')) {
    throw new HttpError(
      400,
      `${what} ${JSON.stringify(text)} must not carry a user name, a query or a fragment; use the bare /v1 base. ${hint}`,
      'bad-endpoint'
    );
  }
  // Encoded slashes, backslashes and dots could be decoded by the model server into another path.
  if (/%(2f|5c|2e)/i.test(url.pathname)) {
    throw new HttpError(
      400,
      `${what} ${JSON.stringify(text)} has an encoded '/', '\\' or '.' in its path; write the path plainly. ${hint}`,
      'bad-endpoint'
    );
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(COMPLETIONS)) {
    path = path.slice(0, -COMPLETIONS.length);
  }
  url.pathname = path || '/';
  return url;
}

function baseText(url: URL): string {
  return url.href.replace(/\/+$/, '');
}

/** The server's key and endpoint, from its environment. */
export function serverModelConfig(env: NodeJS.ProcessEnv = process.env): ServerModelConfig {
  const keySource = env.FIGURE_CHAT_API_KEY
    ? 'FIGURE_CHAT_API_KEY'
    : env.OPENAI_API_KEY
      ? 'OPENAI_API_KEY'
      : undefined;
  const key = keySource ? env[keySource] : undefined;
  let configured = env.FIGURE_CHAT_ENDPOINT?.trim();
  let endpointSource: ServerEndpointSource =
    env.FIGURE_CHAT_ENDPOINT_SOURCE === 'config' ? 'c.FigureChat.endpoint' : 'FIGURE_CHAT_ENDPOINT';
  if (!configured && keySource === 'OPENAI_API_KEY') {
    configured = env.OPENAI_BASE_URL?.trim() || OPENAI_DEFAULT_ENDPOINT;
    endpointSource = env.OPENAI_BASE_URL?.trim() ? 'OPENAI_BASE_URL' : 'OPENAI_API_KEY';
  }
  if (!configured) {
    return { key, keySource };
  }
  let endpoint: URL;
  try {
    endpoint = parseBase(
      configured,
      endpointSource,
      "Fix it in the Jupyter server's environment and restart Jupyter."
    );
  } catch (error) {
    throw new HttpError(500, (error as Error).message, 'bad-server-endpoint');
  }
  return { key, keySource, endpoint, endpointSource };
}

/** The completions URL for an endpoint given as its `/v1` base. */
export function completionsUrl(endpoint: string): string {
  const base = endpoint.replace(/\/+$/, '');
  return base.endsWith(COMPLETIONS) ? base : `${base}${COMPLETIONS}`;
}

/** Whether `candidate` is on the server endpoint's origin, under its base path. */
function underServerBase(candidate: URL, server: URL): boolean {
  if (candidate.origin !== server.origin) {
    return false;
  }
  const base = server.pathname.replace(/\/+$/, '');
  return candidate.pathname === base || candidate.pathname.startsWith(`${base}/`);
}

function target(base: string, source: EndpointSource, key?: string, note?: string): ModelTarget {
  return {
    url: completionsUrl(base),
    endpoint: base,
    source,
    // The user's own choice needs no provenance (the hints point at Settings); the server's or the
    // default does, or a user would go looking in Settings for an endpoint that is not there.
    label: source === 'settings' ? base : `${base} (from ${describeEndpointSource(source)})`,
    key,
    note
  };
}

/**
 * Decide where a request goes. `requested` is the browser's endpoint setting: absent or blank
 * means the user has not chosen one. Throws an actionable `HttpError` when no endpoint can be
 * chosen.
 */
export function chooseModelTarget(
  requested: string | undefined,
  config: ServerModelConfig = serverModelConfig()
): ModelTarget {
  const { key, endpoint: server } = config;
  if (key && !server) {
    throw new HttpError(
      500,
      `${config.keySource} is set on the Jupyter server, but FIGURE_CHAT_ENDPOINT is not, so the figure server will not send the key anywhere. Set FIGURE_CHAT_ENDPOINT to the model server's /v1 base (for example https://api.openai.com/v1) in the Jupyter server's environment and restart Jupyter.`,
      'no-server-endpoint'
    );
  }
  const browser =
    requested === undefined || !requested.trim()
      ? undefined
      : parseBase(
          requested,
          'Model endpoint',
          "Set it in Settings → Figure Chat, or leave it empty to use the Jupyter server's."
        );
  if (server && (!browser || (key && !underServerBase(browser, server)))) {
    // The server's endpoint is the default; with a key, the browser may not pick another origin.
    const base = baseText(server);
    const from = config.endpointSource ?? 'FIGURE_CHAT_ENDPOINT';
    const note = browser
      ? ` Figure Chat sent this to ${base} (${describeEndpointSource(from)}), not to ${baseText(browser)} from Settings, because the server's API key may only go to its own endpoint.`
      : undefined;
    return target(base, from, key, note);
  }
  if (!browser) {
    return target(LOCAL_DEFAULT_ENDPOINT, 'default');
  }
  return target(baseText(browser), 'settings', key);
}
