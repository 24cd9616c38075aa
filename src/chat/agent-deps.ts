/** What one agent turn is given: the model settings and the services it calls. */
import type { ToolHost } from '../tools/host';
import type { ToolRegistry } from '../tools/registry';
import type { ModelTransport } from './model-client';
import type { ModelQuirkMemory } from './model-quirks';

/** The model settings a turn uses (from `schema/plugin.json`). */
export interface AgentSettings {
  readonly endpoint: string;
  readonly model: string;
  /** Unset: the server's default (fixed-temperature models such as OpenAI's o-series refuse one). */
  readonly temperature?: number;
  readonly contextBudget: number;
  readonly maxToolRounds: number;
  readonly acceptsImages: 'auto' | 'yes' | 'no';
}

/** What a turn needs besides the conversation. */
export interface AgentDeps {
  readonly registry: ToolRegistry;
  readonly transport: ModelTransport;
  readonly settings: AgentSettings;
  /** Passed to tool handlers as `context.host`. */
  readonly toolHost: ToolHost | null;
  /** What models refused so far, by endpoint + model (the session's memory). */
  readonly quirks?: ModelQuirkMemory;
  /**
   * Asks the model's server whether the model takes images (the figure server's `model-info`),
   * for servers that drop images silently instead of refusing them; null when it cannot tell.
   */
  readonly modelTakesImages?: (
    endpoint: string,
    model: string,
    signal: AbortSignal
  ) => Promise<boolean | null>;
}
