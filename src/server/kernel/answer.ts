/**
 * What every op of `figure-chat kernel` answers or throws, apart from the ops themselves so that
 * each op's module and the dispatcher (./kernel-ops) share them without importing each other.
 */
import type { z } from 'zod';

/** What a request asked for that could not be done; `type` says which Python exception to raise. */
export class KernelOpError extends Error {
  constructor(
    readonly type: 'svg' | 'vision' | 'picture' | 'request',
    readonly code: string,
    message: string
  ) {
    super(message);
    this.name = 'KernelOpError';
  }
}

/** One answer: a JSON header and the binary payload (PNG bytes, concatenated when several). */
export interface KernelAnswer {
  readonly json: Record<string, unknown>;
  readonly payload?: Buffer;
}

/** A request's body checked by its op's schema; the first issue becomes a `bad-request`. */
export function parseRequest<T extends z.ZodType>(
  schema: T,
  op: string,
  value: unknown
): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new KernelOpError(
      'request',
      'bad-request',
      `${op}: ${issue?.path.join('.') || 'request'}: ${issue?.message ?? 'invalid'}`
    );
  }
  return parsed.data;
}
