/**
 * The Chat Completions request of one model reply, shaped by what the model was found to refuse
 * (images, a temperature, tools) and by the server's reasoning field.
 */
import type { ToolImage, ToolSpec } from '../tools/registry';
import type { StoredMessage, UnreadableEntry } from '../tools/transcript';
import { buildContext } from './context';
import type { ModelQuirks } from './model-quirks';

/** What the request builder needs. */
export interface RequestInput {
  readonly model: string;
  readonly temperature?: number;
  readonly contextBudget: number;
  readonly systemPrompt: string;
  readonly tools: ReadonlyArray<ToolSpec>;
  readonly quirks: ModelQuirks;
  /** Views of the current round, or none when they are not to be sent as images. */
  readonly images?: ReadonlyArray<ToolImage>;
}

/** A request, and which of the parts a server may refuse it carries. */
export interface BuiltRequest {
  readonly body: Record<string, unknown>;
  readonly carries: { images: boolean; temperature: boolean; tools: boolean };
}

/**
 * The system prompt's addition for a model whose server refused `tools`: the tools described in
 * text, with the Hermes/Qwen call syntax the text parsers read, for models that can still write it.
 */
export function textToolsPrompt(tools: ReadonlyArray<ToolSpec>): string {
  const list = tools
    .map(
      tool =>
        `- ${tool.function.name}: ${tool.function.description}\n  arguments (JSON Schema): ${JSON.stringify(tool.function.parameters)}`
    )
    .join('\n');
  return [
    'This server takes no tool definitions, so the tools are described here.',
    'To call a tool, write exactly <tool_call>{"name": "TOOL", "arguments": {…}}</tool_call> on its own and stop; the result comes back in the next message.',
    `Tools:\n${list}`
  ].join('\n');
}

/** Build the request body for the next reply of a conversation. */
export function buildRequest(
  entries: ReadonlyArray<StoredMessage | UnreadableEntry>,
  input: RequestInput
): BuiltRequest {
  const { quirks } = input;
  const sendTools = !quirks.toolsRefused && input.tools.length > 0;
  const sendTemperature = input.temperature !== undefined && !quirks.temperatureRefused;
  const images = input.images?.length ? input.images : undefined;
  const systemPrompt =
    quirks.toolsRefused && input.tools.length > 0
      ? `${input.systemPrompt}\n\n${textToolsPrompt(input.tools)}`
      : input.systemPrompt;
  const body: Record<string, unknown> = {
    model: input.model,
    messages: buildContext(entries, {
      systemPrompt,
      budgetTokens: input.contextBudget,
      images,
      reasoningField: quirks.reasoningField
    }),
    stream: true,
    ...(sendTools ? { tools: input.tools } : {}),
    ...(sendTemperature ? { temperature: input.temperature } : {})
  };
  return {
    body,
    carries: { images: images !== undefined, temperature: sendTemperature, tools: sendTools }
  };
}
