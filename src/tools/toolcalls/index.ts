/**
 * Tool calls written in the assistant's text (SPEC section 5): Hermes/Qwen `<tool_call>{…}`,
 * DeepSeek DSML (with or without the `｜DSML｜` marker) and GLM `<arg_key>/<arg_value>` pairs.
 */
export { ToolCallTextParser, parseToolCallsFromText, stripTransportMarkup } from './parser';
export { DSML_MARKER } from './dsml';
export type { CallProgress, ParsedToolCall, ToolCallParseResult } from './types';
export { ThinkTagSplitter, splitThinkText, type ThinkSplit } from './think';
export { parseToolJson } from './json';
export { streamedUtf8Length } from './scan';
