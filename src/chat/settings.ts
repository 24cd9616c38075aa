/**
 * Figure Chat's settings, typed: each value the setting registry gives is checked against a zod
 * schema of the same fields as `schema/plugin.json`, and a value that does not fit (an old or
 * hand-edited settings file) falls back to that field's schema default instead of reaching the
 * agent as the wrong type. The defaults are read from the settings schema itself, so there is one
 * place that says what they are.
 */
import { z } from 'zod';

import type { AgentSettings } from './agent';

const SCHEMA: unknown = require('../../schema/plugin.json');

/** The fields, as the settings schema declares them. */
const FIELDS = {
  // Empty means "not chosen": the Jupyter server's endpoint, else a local Ollama (issue 33).
  endpoint: z.string(),
  model: z.string().min(1),
  acceptsImages: z.enum(['auto', 'yes', 'no']),
  temperature: z.number().min(0).max(2).optional(),
  contextBudget: z.number().int().min(1000),
  maxToolRounds: z.number().int().min(1).max(50),
  allowRemoteImages: z.boolean()
} as const;

const Settings = z.object(FIELDS);

/** The settings the chat runs with. */
export type FigureChatSettings = z.infer<typeof Settings> & AgentSettings;

/** Raised when the bundled settings schema lacks a default this code relies on. */
export class SettingsSchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsSchemaError';
  }
}

/** The `default` of every property in a settings schema. */
function schemaDefaults(schema: unknown): Record<string, unknown> {
  const properties =
    schema && typeof schema === 'object' && 'properties' in schema ? schema.properties : null;
  const defaults: Record<string, unknown> = {};
  if (properties && typeof properties === 'object') {
    for (const [key, property] of Object.entries(properties)) {
      if (property && typeof property === 'object' && 'default' in property) {
        defaults[key] = property.default;
      }
    }
  }
  return defaults;
}

/** The settings schema's defaults, parsed (throws if the schema and this file disagree). */
export function defaultSettings(schema: unknown = SCHEMA): FigureChatSettings {
  const parsed = Settings.safeParse(schemaDefaults(schema));
  if (!parsed.success) {
    throw new SettingsSchemaError(
      `schema/plugin.json defaults do not fit the settings: ${parsed.error.issues
        .map(issue => `${issue.path.join('.')}: ${issue.message}`)
        .join('; ')}`
    );
  }
  return parsed.data;
}

/**
 * Parse the composite settings field by field. Returns the settings and, for each field that did
 * not fit, its name (so the UI can say which setting was ignored).
 */
export function parseSettings(
  composite: unknown,
  defaults: FigureChatSettings = defaultSettings()
): { settings: FigureChatSettings; ignored: string[] } {
  const source: Record<string, unknown> =
    composite && typeof composite === 'object' ? { ...composite } : {};
  const settings: Record<string, unknown> = { ...defaults };
  const ignored: string[] = [];
  for (const [key, field] of Object.entries(FIELDS)) {
    if (!(key in source)) {
      continue;
    }
    const parsed = field.safeParse(source[key]);
    if (parsed.success) {
      settings[key] = parsed.data;
    } else {
      ignored.push(key);
    }
  }
  return { settings: Settings.parse(settings), ignored };
}

/** The endpoint when neither the user nor the Jupyter server names one (as the figure server says). */
export const LOCAL_DEFAULT_ENDPOINT = 'http://localhost:11434/v1';

/**
 * The Jupyter server's model endpoint, as its server extension publishes it in the page config
 * (`figureChatServerEndpoint`): never the key, only whether there is one.
 */
const ServerEndpoint = z.object({
  endpoint: z.string().max(2048).nullable(),
  source: z
    .enum(['FIGURE_CHAT_ENDPOINT', 'c.FigureChat.endpoint', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'])
    .nullable(),
  hasKey: z.boolean()
});

/** What the Jupyter server says about its endpoint. */
export type ServerEndpoint = z.infer<typeof ServerEndpoint>;

/** Parse the page-config option; anything unreadable reads as "the server names none". */
export function parseServerEndpoint(option: string): ServerEndpoint {
  try {
    const parsed = ServerEndpoint.safeParse(JSON.parse(option));
    if (parsed.success && (parsed.data.endpoint === null) === (parsed.data.source === null)) {
      return parsed.data;
    }
  } catch {
    // An empty or malformed option: an older server extension, or none.
  }
  return { endpoint: null, source: null, hasKey: false };
}

/** The endpoint in force and where it came from, in a user's words. */
export interface EndpointInForce {
  readonly endpoint: string;
  readonly from: string;
  /** Why the user's own setting is not used, when it is not. */
  readonly overridden?: string;
}

function serverSourceText(source: NonNullable<ServerEndpoint['source']>): string {
  switch (source) {
    case 'FIGURE_CHAT_ENDPOINT':
      return 'FIGURE_CHAT_ENDPOINT on the Jupyter server';
    case 'c.FigureChat.endpoint':
      return "c.FigureChat.endpoint in the Jupyter server's configuration";
    case 'OPENAI_BASE_URL':
      return 'OPENAI_BASE_URL on the Jupyter server';
    case 'OPENAI_API_KEY':
      return "OpenAI's endpoint, because OPENAI_API_KEY is set on the Jupyter server";
  }
}

/** Whether `chosen` is on `base`'s origin under its path, as the figure server checks it. */
function underBase(chosen: string, base: string): boolean {
  try {
    const a = new URL(chosen);
    const b = new URL(base);
    const path = b.pathname.replace(/\/+$/, '');
    return a.origin === b.origin && (a.pathname === path || a.pathname.startsWith(`${path}/`));
  } catch {
    return false;
  }
}

/**
 * Which endpoint the figure server will use for this setting: the same rule it enforces
 * (`src/server/model/endpoint.ts`), shown to the user; the server alone decides.
 */
export function endpointInForce(setting: string, server: ServerEndpoint): EndpointInForce {
  const chosen = setting.trim();
  if (server.endpoint !== null && server.source !== null) {
    const fromServer = { endpoint: server.endpoint, from: serverSourceText(server.source) };
    if (!chosen) {
      return fromServer;
    }
    if (server.hasKey && !underBase(chosen, server.endpoint)) {
      return {
        ...fromServer,
        overridden: `The Jupyter server has an API key, so it is sent only to its own endpoint; ${chosen} from Settings is not used.`
      };
    }
  }
  if (chosen) {
    return { endpoint: chosen, from: 'Settings → Figure Chat' };
  }
  return {
    endpoint: LOCAL_DEFAULT_ENDPOINT,
    from: 'the default: no endpoint in Settings or on the Jupyter server'
  };
}

/** One line naming the endpoint in force, for the Settings editor. */
export function describeEndpointInForce(inForce: EndpointInForce): string {
  const line = `In force: ${inForce.endpoint} (from ${inForce.from}).`;
  return inForce.overridden ? `${line} ${inForce.overridden}` : line;
}
