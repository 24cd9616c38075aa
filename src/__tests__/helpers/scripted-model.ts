/**
 * A scripted model: a `ModelTransport` that answers each request with the next scripted reply.
 * Everything around it (conversation, registry, context builder, stream decoding) is real.
 */
import type { ModelTransport } from '../../chat/model-client';

/** A request the agent sent. */
export interface ScriptedRequest {
  readonly endpoint: string;
  readonly body: Record<string, unknown>;
}

/** One reply: the SSE text in the chunks it arrives in, or a generator for faults and timing. */
export type ScriptedReply =
  | ReadonlyArray<string>
  | ((request: ScriptedRequest, signal: AbortSignal) => AsyncIterable<string>);

/** Raised when the agent asks the model more often than the script expects. */
export class UnexpectedRequestError extends Error {
  constructor(count: number) {
    super(`The scripted model got request ${count}, but only ${count - 1} replies were scripted`);
    this.name = 'UnexpectedRequestError';
  }
}

export class ScriptedModel {
  readonly requests: ScriptedRequest[] = [];
  private readonly _replies: ScriptedReply[];

  constructor(replies: ReadonlyArray<ScriptedReply>) {
    this._replies = [...replies];
  }

  /** Replies not consumed yet. */
  get remaining(): number {
    return this._replies.length;
  }

  readonly transport: ModelTransport = (endpoint, body, signal) => {
    const request: ScriptedRequest = { endpoint, body: structuredClone(body) };
    this.requests.push(request);
    const reply = this._replies.shift();
    const count = this.requests.length;
    if (reply === undefined) {
      return (async function* (): AsyncGenerator<string> {
        throw new UnexpectedRequestError(count);
      })();
    }
    if (typeof reply === 'function') {
      return reply(request, signal);
    }
    return (async function* (): AsyncGenerator<string> {
      for (const chunk of reply) {
        yield chunk;
      }
    })();
  };
}

/** The `messages` of a request body, typed loosely for assertions. */
export function requestMessages(request: ScriptedRequest): Array<Record<string, unknown>> {
  const messages = request.body.messages;
  if (!Array.isArray(messages)) {
    throw new Error('request has no messages');
  }
  return messages as Array<Record<string, unknown>>;
}

/** Whether a request carries any image part. */
export function hasImages(request: ScriptedRequest): boolean {
  return JSON.stringify(request.body.messages).includes('"image_url"');
}
