/**
 * Time and size limits of a proxied model request, from the server's environment. The defaults
 * suit slow local models (a CPU-only llama.cpp may think for minutes before its first token);
 * an administrator tightens them for a shared deployment.
 */
import { HttpError } from '../http/http';

/** The limits of one model request. */
export interface ModelLimits {
  /** Wait for the model server's response headers (`FIGURE_CHAT_MODEL_TIMEOUT`, seconds). */
  readonly connectMs: number;
  /** Longest silence inside a stream (`FIGURE_CHAT_MODEL_IDLE_TIMEOUT`, seconds). */
  readonly idleMs: number;
  /** Longest whole answer (`FIGURE_CHAT_MODEL_MAX_DURATION`, seconds). */
  readonly totalMs: number;
  /** Most bytes of one answer (`FIGURE_CHAT_MODEL_MAX_BYTES`). */
  readonly maxBytes: number;
}

/** Defaults: 10 minutes to start, 5 minutes of silence, 30 minutes and 64 MiB in all. */
export const DEFAULT_MODEL_LIMITS: ModelLimits = {
  connectMs: 600_000,
  idleMs: 300_000,
  totalMs: 1_800_000,
  maxBytes: 64 * 1024 * 1024
};

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, scale: number): number {
  const text = env[name]?.trim();
  if (!text) {
    return fallback;
  }
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    throw new HttpError(
      500,
      `${name}=${JSON.stringify(text)} on the Jupyter server is not a positive number${scale === 1000 ? ' of seconds' : ''}; fix it and restart Jupyter.`,
      'bad-limit'
    );
  }
  return Math.round(value * scale);
}

/** The limits in force, read at each request so a test (or a restart) can change them. */
export function modelLimits(env: NodeJS.ProcessEnv = process.env): ModelLimits {
  return {
    connectMs: positive(env, 'FIGURE_CHAT_MODEL_TIMEOUT', DEFAULT_MODEL_LIMITS.connectMs, 1000),
    idleMs: positive(env, 'FIGURE_CHAT_MODEL_IDLE_TIMEOUT', DEFAULT_MODEL_LIMITS.idleMs, 1000),
    totalMs: positive(env, 'FIGURE_CHAT_MODEL_MAX_DURATION', DEFAULT_MODEL_LIMITS.totalMs, 1000),
    maxBytes: positive(env, 'FIGURE_CHAT_MODEL_MAX_BYTES', DEFAULT_MODEL_LIMITS.maxBytes, 1)
  };
}

/** A limit that stopped a stream, with what to tell the user. */
export class ModelLimitError extends Error {
  constructor(
    message: string,
    readonly code: 'connect-timeout' | 'idle-timeout' | 'too-long' | 'too-large'
  ) {
    super(message);
    this.name = 'ModelLimitError';
  }
}

function seconds(ms: number): string {
  return ms % 60_000 === 0 && ms >= 60_000 ? `${ms / 60_000} min` : `${ms / 1000} s`;
}

/** The user-facing message for each limit. */
export function limitMessage(
  code: ModelLimitError['code'],
  limits: ModelLimits,
  endpoint: string
): string {
  switch (code) {
    case 'connect-timeout':
      return `The model server at ${endpoint} did not start answering within ${seconds(limits.connectMs)}. Check that it is running and not overloaded, or choose a smaller model (the Jupyter administrator can raise FIGURE_CHAT_MODEL_TIMEOUT).`;
    case 'idle-timeout':
      return `The model server at ${endpoint} sent nothing for ${seconds(limits.idleMs)}, so the answer was stopped. Check that it is still running (the Jupyter administrator can raise FIGURE_CHAT_MODEL_IDLE_TIMEOUT).`;
    case 'too-long':
      return `The answer from ${endpoint} took longer than ${seconds(limits.totalMs)}, so it was stopped. Ask for something shorter (the Jupyter administrator can raise FIGURE_CHAT_MODEL_MAX_DURATION).`;
    case 'too-large':
      return `The answer from ${endpoint} grew past ${limits.maxBytes.toLocaleString('en')} bytes, so it was stopped. Ask for something shorter (the Jupyter administrator can raise FIGURE_CHAT_MODEL_MAX_BYTES).`;
  }
}
