/**
 * Upstream error answers: read with a byte cap and a timer (a model server may send an endless
 * or a stalled body), summarised (JSON in any server's shape, HTML as its text), redacted, then cut.
 */
import type { KeyRedactor } from './redact';

/** Most bytes of an upstream error body that are read. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** How long reading an upstream error body may take. */
export const ERROR_BODY_TIMEOUT_MS = 10_000;

/** Most characters of upstream detail shown in the chat (after redaction). */
export const MAX_ERROR_DETAIL_CHARS = 2000;

/** Most characters kept from an HTML error page's text. */
export const MAX_HTML_SUMMARY_CHARS = 300;

/** What was read of a body. */
export interface CappedText {
  readonly text: string;
  /** The cap or the timer stopped the read. */
  readonly cut: boolean;
}

/** Read at most `maxBytes` of `body` within `timeoutMs`, then cancel the rest. */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  maxBytes = MAX_ERROR_BODY_BYTES,
  timeoutMs = ERROR_BODY_TIMEOUT_MS
): Promise<CappedText> {
  if (!body) {
    return { text: '', cut: false };
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>(resolve => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), timeout]);
      if (next === 'timeout') {
        cut = true;
        break;
      }
      if (next.done) {
        break;
      }
      chunks.push(next.value);
      size += next.value.length;
      if (size >= maxBytes) {
        cut = true;
        break;
      }
    }
  } catch {
    cut = true;
  } finally {
    clearTimeout(timer);
    if (cut) {
      // Cancelling closes the upstream connection, so an endless body stops being sent.
      reader.cancel().catch(() => undefined);
    }
  }
  const bytes = Buffer.concat(chunks).subarray(0, maxBytes);
  return { text: new TextDecoder().decode(bytes), cut };
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' '
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Whether a body is an HTML page (a gateway's or a framework's error page). */
export function looksLikeHtml(text: string, contentType: string | null): boolean {
  return /\bhtml\b/i.test(contentType ?? '') || /^\s*<(!doctype|html|head|body)\b/i.test(text);
}

/** The visible text of an HTML page, whitespace collapsed: what a person would read on it. */
export function htmlText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style|head)\b[\s\S]*?(<\/\1\s*>|$)/gi, ' ')
      .replace(/<!--[\s\S]*?(-->|$)/g, ' ')
      .replace(/<[^>]*(>|$)/g, ' ')
  )
    .replace(/\s+/g, ' ')
    .trim();
}

function stringField(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/**
 * The message inside an error document in any server's shape: `{error: {message}}` (OpenAI,
 * llama.cpp, Ollama), top-level `{message}` (vLLM), `{error: "…"}` (Ollama, LM Studio) and
 * `{detail}` (FastAPI-based servers, a string or a list of `{msg}`).
 */
export function errorDocumentMessage(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const doc = value as Record<string, unknown>;
  const error = doc.error;
  if (typeof error === 'object' && error !== null) {
    const nested = stringField((error as Record<string, unknown>).message);
    if (nested) {
      return nested;
    }
  }
  const direct = stringField(error) ?? stringField(doc.message);
  if (direct) {
    return direct;
  }
  if (stringField(doc.detail)) {
    return doc.detail as string;
  }
  if (Array.isArray(doc.detail)) {
    const parts = doc.detail
      .map(item =>
        typeof item === 'object' && item !== null
          ? stringField((item as Record<string, unknown>).msg)
          : stringField(item)
      )
      .filter((part): part is string => part !== undefined);
    return parts.length ? parts.join('; ') : undefined;
  }
  return undefined;
}

/**
 * FastAPI's request validation answer (`{detail: [{type, loc, msg}, …]}`, 422) as pydantic would
 * print it: a count line, then one `location: message` line per item.
 */
function fastApiValidation(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const detail = (value as Record<string, unknown>).detail;
  if (!Array.isArray(detail) || detail.length === 0) {
    return undefined;
  }
  const lines: string[] = [];
  for (const item of detail) {
    if (typeof item !== 'object' || item === null) {
      return undefined;
    }
    // pydantic names each error's `type` (`missing`, `string_type`, …): without it, a list of
    // messages is an ordinary error document.
    const { loc, msg, type } = item as Record<string, unknown>;
    if (!Array.isArray(loc) || typeof msg !== 'string' || typeof type !== 'string') {
      return undefined;
    }
    lines.push(`${loc.map(String).join('.')}: ${msg}`);
  }
  const count = `${lines.length} validation error${lines.length === 1 ? '' : 's'} for the request`;
  return [count, ...lines].join('\n');
}

/**
 * A pydantic validation dump: `7 validation errors for ChatCompletionRequestAssistantMessage`
 * then a few lines per item (llama-cpp-python's server sends it as the message of a 500).
 */
const VALIDATION_DUMP = /^\s*(\d+) validation errors? for ([^\n]{1,120})/;

/** The upstream detail a person can read: decoded, redacted, then cut. */
export function upstreamDetail(
  body: CappedText,
  contentType: string | null,
  redactor: KeyRedactor | undefined
): string {
  const raw = body.text;
  let detail = raw.trim();
  let limit = MAX_ERROR_DETAIL_CHARS;
  try {
    const doc: unknown = JSON.parse(raw);
    detail = fastApiValidation(doc) ?? errorDocumentMessage(doc) ?? detail;
  } catch {
    if (looksLikeHtml(raw, contentType)) {
      detail = htmlText(raw);
      limit = MAX_HTML_SUMMARY_CHARS;
    }
  }
  // Redact the decoded text before cutting it, so neither an escaped key nor a prefix gets through.
  if (redactor) {
    detail = redactor.redact(detail, body.cut);
  }
  return detail.length > limit ? `${detail.slice(0, limit)}…` : detail;
}

/**
 * The message the chat shows for an upstream error status. Its first paragraph is what a person
 * reads; a validation dump (tens of lines of field paths) goes after a blank line, which the
 * chat's error card keeps behind "Show details".
 */
export function upstreamMessage(status: number, detail: string, endpoint: string): string {
  const dump = VALIDATION_DUMP.exec(detail);
  if (dump) {
    const [, count, model] = dump;
    const errors = `${count} validation error${count === '1' ? '' : 's'}`;
    return (
      `The model server at ${endpoint} did not accept the shape of the request (HTTP ${status}, ${errors} for ${model}). ` +
      "Update the model server, or use one that takes OpenAI-style tool calls (llama.cpp's llama-server with --jinja, Ollama, vLLM, LM Studio), then Retry." +
      `\n\n${detail}`
    );
  }
  const hint =
    status === 401 || status === 403
      ? ' Set FIGURE_CHAT_API_KEY (or OPENAI_API_KEY) and FIGURE_CHAT_ENDPOINT in the environment of the Jupyter server.'
      : status === 404
        ? ' Check the endpoint and the model name in Settings → Figure Chat (for Ollama: `ollama pull <model>`).'
        : '';
  return `The model server at ${endpoint} answered ${status}${detail ? `: ${detail}` : ''}.${hint}`;
}
