/**
 * The Vision widget models alive in this page, by model id. The output renderer looks a model up
 * here to show the live widget, and falls back to the saved bundle when there is none; the chat's
 * vision tools read and write a model's record here (one record per picture).
 */
import type { DOMWidgetModel } from '@jupyter-widgets/base';
import type { JSONValue } from '@lumino/coreutils';
import { Signal, type ISignal } from '@lumino/signaling';

import { bytesToBase64 } from '../chat/figure-client';
import type { LiveVisionWidget, LiveVisionWidgets } from '../tools/host';
import type { VisionRecord } from '../tools/vision';
import { watchKernel, type GoneReason } from './kernel-link';

/** The widget module the Python side names (`_model_module`). */
export const WIDGET_MODULE = 'jupyterlab-figure-chat';

/** This module's version; the Python side asks for `^1.0.0`. */
export const WIDGET_MODULE_VERSION = '1.0.0';

/** The kernel did not give a widget's picture (wrong answer, comm closed). */
export class WidgetPictureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WidgetPictureError';
  }
}

/** The kernel refused marks the chat wrote into a widget, or did not answer in time. */
export class WidgetWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WidgetWriteError';
  }
}

/**
 * How long the chat waits for the kernel to take marks it writes. The kernel checks a record in
 * milliseconds; longer means it is running a cell (it reads the write only after) or is gone.
 */
export const WRITE_TIMEOUT_MS = 10000;

/** Longest refusal text passed on to the model (it comes from the kernel). */
const MAX_PROBLEM_LENGTH = 1000;

/** A value as plain JSON for the comm (records are data: this keeps only what JSON holds). */
function toJson(value: unknown): JSONValue {
  const text = JSON.stringify(value);
  return text === undefined ? null : (JSON.parse(text) as JSONValue);
}

/** Bytes of a buffer as ipywidgets hands it over (DataView, ArrayBuffer or typed array). */
function bytesOf(buffer: unknown): Uint8Array | null {
  if (buffer instanceof DataView || buffer instanceof Uint8Array) {
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  }
  return buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : null;
}

/** One request to the kernel over a widget's comm, and what must be said if it goes unanswered. */
interface KernelAsk {
  /** The custom message to send, carrying `request`. */
  readonly message: Record<string, JSONValue>;
  /** The `event` of the kernel's answer. */
  readonly event: string;
  readonly request: number;
  readonly signal: AbortSignal;
  /** The error when the widget closes (its kernel stopped) before the answer. */
  readonly closed: () => Error;
  /** How long to wait, and the error when the kernel does not answer in time. */
  readonly timeout?: { readonly ms: number; readonly error: () => Error };
}

/**
 * Send a custom message to the kernel's side of a widget and wait for the answer with the same
 * `request` number: its content and buffers. Settles once; the listeners go with it.
 */
function askKernel(
  model: DOMWidgetModel,
  ask: KernelAsk
): Promise<{ answer: Record<string, unknown>; buffers: unknown }> {
  return new Promise((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      model.off('msg:custom', onMessage);
      model.off('comm:close destroy', onClose);
      ask.signal.removeEventListener('abort', onAbort);
    };
    const onMessage = (content: unknown, buffers: unknown): void => {
      const answer = (content ?? {}) as Record<string, unknown>;
      if (answer.event !== ask.event || answer.request !== ask.request) {
        return;
      }
      done();
      resolve({ answer, buffers });
    };
    const onClose = (): void => {
      done();
      reject(ask.closed());
    };
    const onAbort = (): void => {
      done();
      reject(ask.signal.reason);
    };
    if (ask.signal.aborted) {
      reject(ask.signal.reason);
      return;
    }
    const timeout = ask.timeout;
    const timer = timeout
      ? setTimeout(() => {
          done();
          reject(timeout.error());
        }, timeout.ms)
      : undefined;
    model.on('msg:custom', onMessage);
    model.once('comm:close destroy', onClose);
    ask.signal.addEventListener('abort', onAbort);
    model.send(ask.message, {});
  });
}

/** A picture as the kernel sends it: base64 bytes and their sha-256 ('' when it sent none). */
interface KernelPicture {
  readonly data: string;
  readonly sha256: string;
}

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * The picture's bytes, asked of the kernel with a custom message (`{method: "picture"}`): the
 * widget carries only a preview, and the full picture crosses the comm only when the chat needs
 * it to draw views.
 */
async function askPicture(
  model: DOMWidgetModel,
  request: number,
  signal: AbortSignal,
  address: string | undefined
): Promise<KernelPicture> {
  const { answer, buffers } = await askKernel(model, {
    // A set's picture other than the one shown is named by its address.
    message: { method: 'picture', request, ...(address === undefined ? {} : { address }) },
    event: 'picture',
    request,
    signal,
    closed: () => new WidgetPictureError('The Vision widget closed (its kernel stopped).')
  });
  if (typeof answer.problem === 'string' && answer.problem) {
    throw new WidgetPictureError(
      `The kernel sent no picture: ${answer.problem.slice(0, MAX_PROBLEM_LENGTH)}`
    );
  }
  const bytes = Array.isArray(buffers) ? bytesOf(buffers[0]) : null;
  if (!bytes || !bytes.byteLength) {
    throw new WidgetPictureError('The kernel sent no picture bytes for this Vision widget.');
  }
  // The kernel's fingerprint of these bytes (the figure server checks it against them); only
  // `pictureRead` needs it, so a picture without one still draws views.
  const sha256 =
    typeof answer.sha256 === 'string' && SHA256.test(answer.sha256) ? answer.sha256 : '';
  return { data: bytesToBase64(bytes), sha256 };
}

/**
 * Send marks to the kernel (`{method: "write"}`) and wait for its answer (`{event: "written"}`).
 * The kernel takes them only if `base` is still its record and the deadline has not passed, so a
 * write the chat gave up on is never applied later. Nothing changes in the page before the
 * kernel says yes: on a refusal the widget goes on showing the kernel's marks.
 */
async function writeRecord(
  model: DOMWidgetModel,
  request: number,
  record: VisionRecord,
  base: unknown,
  signal: AbortSignal,
  timeoutMs: number,
  address: string | undefined
): Promise<void> {
  const { answer } = await askKernel(model, {
    message: {
      method: 'write',
      request,
      ...(address === undefined ? {} : { address }),
      // The kernel ignores the write after the deadline, so giving up at the timeout is final.
      deadline: Date.now() + timeoutMs,
      base: toJson(base),
      record: toJson(record)
    },
    event: 'written',
    request,
    signal,
    closed: () =>
      new WidgetWriteError(
        'The Vision widget closed (its kernel stopped or restarted), so these marks were not applied; run its cell again.'
      ),
    timeout: {
      ms: timeoutMs,
      error: () =>
        new WidgetWriteError(
          `The kernel did not answer within ${timeoutMs / 1000} s (it is busy running a cell, or stopped), so these marks were not applied; try again once it is idle.`
        )
    }
  });
  if (answer.ok !== true) {
    const problem =
      typeof answer.problem === 'string' && answer.problem
        ? answer.problem.slice(0, MAX_PROBLEM_LENGTH).replace(/[.\s]+$/, '')
        : 'no reason given';
    throw new WidgetWriteError(`The kernel refused these marks: ${problem}.`);
  }
  // The kernel sent the record's update before this answer; the model applies updates
  // asynchronously, so wait until it holds the marks.
  await model.state_change.catch(() => undefined);
}

/** The model event fired when a model's kernel is out of reach (its argument: the reason). */
export const GONE_EVENT = 'figure-chat:gone';

/** A model whose kernel went away: why, and the record its views last held. */
export interface GoneModel {
  readonly reason: GoneReason;
  /** The model's `_record` then (untrusted): what the person saw, saved or not. */
  readonly record: unknown;
}

/** Live Vision models; owned by the kernel-bridge plugin. */
export class LiveVisionModels implements LiveVisionWidgets {
  private readonly _models = new Map<string, DOMWidgetModel>();
  /** Models whose kernel went away, by id: kept for the notice their saved output shows. */
  private readonly _gone = new Map<string, GoneModel>();
  private readonly _changed = new Signal<this, string>(this);
  /**
   * The picture bytes per model and picture, fetched once. Per picture, not per model: a set's
   * shown picture changes on Next, and the chat names any picture of it by address.
   */
  private readonly _pictures = new WeakMap<DOMWidgetModel, Map<string, Promise<KernelPicture>>>();
  private _requests = 0;

  /** Emits a model id when its model arrives or goes away. */
  get changed(): ISignal<this, string> {
    return this._changed;
  }

  /** The model with this id while it can reach its kernel. */
  get(id: string): DOMWidgetModel | undefined {
    return this._models.get(id);
  }

  /** Why the model with this id lost its kernel, if it was live in this page and did. */
  gone(id: string): GoneModel | undefined {
    return this._gone.get(id);
  }

  /** The model as the chat's vision tools share it. */
  widget(id: string): LiveVisionWidget | undefined {
    const model = this._models.get(id);
    if (!model) {
      return undefined;
    }
    return {
      record: () => model.get('_record') as unknown,
      write: (record, base, signal, address) =>
        // The kernel checks it again (`check-record`) before `v.marks` takes it; the classes go
        // with the marks, or it would refuse every labelled one.
        writeRecord(
          model,
          ++this._requests,
          {
            image: record.image,
            ...(record.classes ? { classes: record.classes } : {}),
            marks: record.marks,
            lastId: record.lastId
          },
          base,
          signal,
          WRITE_TIMEOUT_MS,
          address
        ),
      pictureData: async (signal, address) => (await this._picture(model, signal, address)).data,
      pictureRead: async (signal, address) => {
        const picture = await this._picture(model, signal, address);
        if (!picture.sha256) {
          throw new WidgetPictureError('The kernel sent the picture without its sha-256.');
        }
        return picture;
      }
    };
  }

  /** A picture of the model's, asked of its kernel once (per picture, see `_pictures`). */
  private _picture(
    model: DOMWidgetModel,
    signal: AbortSignal,
    address: string | undefined
  ): Promise<KernelPicture> {
    let cache = this._pictures.get(model);
    if (!cache) {
      cache = new Map();
      this._pictures.set(model, cache);
    }
    const key = address ?? `shown:${String(model.get('_address'))}`;
    let picture = cache.get(key);
    if (!picture) {
      const asked = askPicture(model, ++this._requests, signal, address);
      // A failed or cancelled request is asked again next time.
      asked.catch(() => cache.delete(key));
      cache.set(key, asked);
      picture = asked;
    }
    return picture;
  }

  /**
   * Track a model while it can reach its kernel. Once it cannot (restart, shut down, comm closed)
   * it is dropped at once, so its outputs switch to the saved picture and no view of it takes an
   * edit that would reach no kernel.
   */
  add(model: DOMWidgetModel): void {
    const id = model.model_id;
    this._models.set(id, model);
    this._gone.delete(id);
    watchKernel(model, reason => {
      if (this._models.get(id) !== model) {
        return;
      }
      this._models.delete(id);
      this._gone.set(id, { reason, record: model.get('_record') as unknown });
      model.trigger(GONE_EVENT, reason);
      this._changed.emit(id);
    });
    if (this._models.get(id) === model) {
      this._changed.emit(id);
    }
  }
}
