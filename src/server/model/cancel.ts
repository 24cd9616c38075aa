/**
 * Cancelling a model request by id (`POST model-cancel {id}`). jupyter-server-proxy does not pass
 * on a browser that goes away, so Stop would leave a one-request-at-a-time local server (Ollama,
 * llama.cpp) generating an abandoned answer while the next question waits behind it. The browser
 * names each model request with an id and, on Stop, asks for that id to be cancelled.
 */
import { HttpError, type JsonRoute } from '../http/http';

/** What an id looks like (the browser sends a random UUID). */
const ID = /^[A-Za-z0-9_-]{8,64}$/;

/** How long a cancel that arrived before its request is remembered. */
export const EARLY_CANCEL_TTL_MS = 60_000;

/** Most early cancels remembered (the oldest are forgotten first). */
export const MAX_EARLY_CANCELS = 1000;

const running = new Map<string, AbortController>();
const cancelledEarly = new Map<string, number>();

/** Whether a value is a valid request id; throws a 400 otherwise. */
export function checkRequestId(id: unknown): string {
  if (typeof id !== 'string' || !ID.test(id)) {
    throw new HttpError(
      400,
      'A model request id must be 8 to 64 letters, digits, "-" or "_".',
      'bad-id'
    );
  }
  return id;
}

function forgetOldCancels(now: number): void {
  for (const [id, at] of cancelledEarly) {
    if (now - at > EARLY_CANCEL_TTL_MS || cancelledEarly.size > MAX_EARLY_CANCELS) {
      cancelledEarly.delete(id);
    } else {
      break;
    }
  }
}

/**
 * Register a running request under `id`; its controller is aborted on cancel. Returns the
 * function that unregisters it. A request whose cancel already arrived is aborted at once.
 */
export function registerModelRequest(id: string, controller: AbortController): () => void {
  if (running.has(id)) {
    throw new HttpError(409, `A model request with id ${id} is already running.`, 'duplicate-id');
  }
  if (cancelledEarly.delete(id)) {
    controller.abort(new DOMException('cancelled by the user', 'AbortError'));
  }
  running.set(id, controller);
  return () => {
    if (running.get(id) === controller) {
      running.delete(id);
    }
  };
}

/** The number of model requests running now. */
export function runningModelRequests(): number {
  return running.size;
}

/** `POST model-cancel {id}`: abort that model request (or remember the id, if it is not here yet). */
export const modelCancelRoute: JsonRoute = async body => {
  const id = checkRequestId(
    typeof body === 'object' && body !== null ? (body as Record<string, unknown>).id : undefined
  );
  const controller = running.get(id);
  if (controller) {
    controller.abort(new DOMException('cancelled by the user', 'AbortError'));
    running.delete(id);
    return { json: { cancelled: true } };
  }
  const now = Date.now();
  forgetOldCancels(now);
  cancelledEarly.set(id, now);
  return { json: { cancelled: false } };
};
