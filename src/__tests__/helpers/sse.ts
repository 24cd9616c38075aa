/**
 * Server-Sent Events as an OpenAI-compatible Chat Completions server streams them, for scripted
 * models and fake endpoints.
 */

/** One SSE event carrying a JSON payload. */
export function sse(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** The end-of-stream marker. */
export const DONE = 'data: [DONE]\n\n';

/** A chunk adding visible text. */
export function textChunk(content: string): string {
  return sse({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
}

/** A chunk carrying (part of) a structured tool call. */
export function toolCallChunk(
  index: number,
  part: { id?: string; name?: string; arguments?: string }
): string {
  const fn: Record<string, string> = {};
  if (part.name !== undefined) {
    fn.name = part.name;
  }
  if (part.arguments !== undefined) {
    fn.arguments = part.arguments;
  }
  return sse({
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            { index, ...(part.id ? { id: part.id, type: 'function' } : {}), function: fn }
          ]
        },
        finish_reason: null
      }
    ]
  });
}

/** The chunk that ends a reply. */
export function finishChunk(reason: 'stop' | 'tool_calls' | 'length'): string {
  return sse({ choices: [{ index: 0, delta: {}, finish_reason: reason }] });
}

/** A whole text answer: its chunks, the finish reason and `[DONE]`. */
export function answer(...parts: string[]): string[] {
  return [...parts.map(textChunk), finishChunk('stop'), DONE];
}

/** A whole reply that calls tools (structured), arguments split in two to exercise joining. */
export function toolCalls(
  calls: ReadonlyArray<{ id: string; name: string; arguments: Record<string, unknown> }>,
  text = ''
): string[] {
  const chunks = text ? [textChunk(text)] : [];
  calls.forEach((call, index) => {
    const json = JSON.stringify(call.arguments);
    const half = json.length >> 1;
    chunks.push(
      toolCallChunk(index, { id: call.id, name: call.name, arguments: json.slice(0, half) })
    );
    chunks.push(toolCallChunk(index, { arguments: json.slice(half) }));
  });
  return [...chunks, finishChunk('tool_calls'), DONE];
}

/**
 * Re-cut a stream's text at arbitrary places (sizes cycle through small primes), so events and
 * even UTF-16 pairs straddle chunk boundaries the way a network does it.
 */
export function rechunk(
  parts: ReadonlyArray<string>,
  sizes: ReadonlyArray<number> = [1, 3, 7, 13, 2]
): string[] {
  const text = parts.join('');
  const out: string[] = [];
  let position = 0;
  for (let i = 0; position < text.length; i++) {
    const size = sizes[i % sizes.length];
    out.push(text.slice(position, position + size));
    position += size;
  }
  return out;
}
