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
  endpoint: z.string().min(1),
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
