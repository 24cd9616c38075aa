/**
 * The vision records, rebuilt from the transcript and nothing else (SPEC 8):
 *
 * - a `vision_mark` / `vision_update` call is pending;
 * - its completed tool result commits it, through the same `applyMarkArgs` / `applyUpdateArgs`
 *   the live call used; a failed or interrupted result drops it;
 * - the end of a turn (the next user message) drops what is still pending, and so does the end of
 *   the transcript for a call that never got a result.
 *
 * A call names its picture, or means the picture last used in the conversation: the picture of the
 * latest completed vision result, or a later user attachment. Picture sizes come from the results'
 * `picture` fingerprints. Nothing from the transcript is trusted: a call that does not apply is
 * reported as a problem and changes nothing.
 */
import type { PictureFingerprint, StoredMessage } from '../transcript';
import { parseVisionArgs } from './core';
import { VisionError } from './errors';
import { type VisionRecord } from './marks';
import { applyMarkArgs, applyUpdateArgs, emptyRecord } from './record';
import { isVisionTool, type VisionToolName } from './schemas';
import { validateRecord } from './validate';

/** Something in the transcript the fold could not use. */
export interface FoldProblem {
  readonly messageId: string;
  readonly callId?: string;
  readonly message: string;
}

/** What the fold knows after a run of messages. */
export interface VisionFoldState {
  /** Records by picture address (only pictures that have been marked). */
  readonly records: ReadonlyMap<string, VisionRecord>;
  /** The latest fingerprint seen per picture address. */
  readonly pictures: ReadonlyMap<string, PictureFingerprint>;
  /** The picture an omitted `image` means now. */
  readonly current?: string;
  /** Vision calls waiting for their result. */
  readonly pending: ReadonlyMap<string, PendingCall>;
  readonly problems: readonly FoldProblem[];
}

/** A vision call made but not yet answered. */
export interface PendingCall {
  readonly name: VisionToolName;
  readonly args: Record<string, unknown>;
}

interface MutableState {
  records: Map<string, VisionRecord>;
  pictures: Map<string, PictureFingerprint>;
  current?: string;
  pending: Map<string, PendingCall>;
  problems: FoldProblem[];
}

function emptyState(): MutableState {
  return { records: new Map(), pictures: new Map(), pending: new Map(), problems: [] };
}

function cloneState(state: MutableState): MutableState {
  return {
    records: new Map(state.records),
    pictures: new Map(state.pictures),
    current: state.current,
    pending: new Map(state.pending),
    problems: [...state.problems]
  };
}

/** The record of a picture in a fold state (an empty one when it has no marks yet). */
export function recordFor(state: VisionFoldState, address: string): VisionRecord {
  return state.records.get(address) ?? emptyRecord(address);
}

/** Resolve the picture of a call: its `image` argument, or the picture last used. */
export function pictureOfCall(
  state: VisionFoldState,
  args: Record<string, unknown>
): string | undefined {
  return typeof args.image === 'string' ? args.image : state.current;
}

function commit(
  state: MutableState,
  message: StoredMessage & { role: 'tool' },
  call: PendingCall
): void {
  const problem = (text: string): void => {
    state.problems.push({ messageId: message.id, callId: message.tool_call_id, message: text });
  };
  const named = typeof call.args.image === 'string' ? call.args.image : undefined;
  const fingerprint = message.picture;
  // A shared record (a Vision output's) is found by its picture or by its output's address, so
  // the result may name the picture where the call named the output.
  const shared = message.record !== undefined && fingerprint !== undefined;
  if (!shared && named !== undefined && fingerprint && fingerprint.address !== named) {
    problem(
      `${call.name} names ${named} but its result is for ${fingerprint.address}; call ignored.`
    );
    return;
  }
  const address = fingerprint?.address ?? named ?? state.current;
  if (address === undefined) {
    problem(`${call.name} names no picture and none was used before; call ignored.`);
    return;
  }
  if (fingerprint) {
    state.pictures.set(address, fingerprint);
  }
  state.current = address;
  if (call.name !== 'vision_mark' && call.name !== 'vision_update') {
    return;
  }
  const size = state.pictures.get(address);
  if (!size) {
    problem(`${call.name} on ${address} has no picture size in its result; call ignored.`);
    return;
  }
  let record = state.records.get(address) ?? emptyRecord(address);
  try {
    if (shared) {
      // The call started from the marks a person may have changed outside the conversation.
      record = validateRecord(message.record, size);
      if (record.image !== address) {
        throw new VisionError('bad-args', `its record is for ${record.image}.`);
      }
    }
    const next =
      call.name === 'vision_mark'
        ? applyMarkArgs(record, parseVisionArgs(call.name, call.args), size).record
        : applyUpdateArgs(record, parseVisionArgs(call.name, call.args), size).record;
    state.records.set(address, next);
  } catch (error) {
    if (!(error instanceof VisionError)) {
      throw error;
    }
    problem(`${call.name} on ${address} does not apply: ${error.message}`);
  }
}

function foldMessage(state: MutableState, message: StoredMessage): void {
  switch (message.role) {
    case 'user': {
      // A new turn: whatever the last one left unanswered will never commit.
      state.pending.clear();
      const attachments = message.attachments ?? [];
      if (attachments.length > 0) {
        state.current = attachments[attachments.length - 1];
      }
      return;
    }
    case 'assistant':
      for (const call of message.tool_calls ?? []) {
        if (isVisionTool(call.name)) {
          state.pending.set(call.id, { name: call.name, args: call.arguments });
        }
      }
      return;
    case 'tool': {
      const call = state.pending.get(message.tool_call_id);
      if (!call) {
        return;
      }
      state.pending.delete(message.tool_call_id);
      if (message.status === 'completed') {
        commit(state, message, call);
      }
      return;
    }
  }
}

function freeze(state: MutableState): VisionFoldState {
  return state;
}

/** Fold a whole transcript into vision records. Pure: the same messages give the same state. */
export function foldVisionRecords(messages: readonly StoredMessage[]): VisionFoldState {
  const state = emptyState();
  for (const message of messages) {
    foldMessage(state, message);
  }
  return freeze(state);
}

/**
 * Call `visit` for every vision call as it commits, with the state just before it (what the live
 * call saw). Used to re-render the views of a saved conversation.
 */
export function walkVisionCalls(
  messages: readonly StoredMessage[],
  visit: (
    call: PendingCall,
    result: StoredMessage & { role: 'tool' },
    before: VisionFoldState
  ) => void
): VisionFoldState {
  const state = emptyState();
  for (const message of messages) {
    if (message.role === 'tool' && message.status === 'completed') {
      const call = state.pending.get(message.tool_call_id);
      if (call) {
        visit(call, message, cloneState(state));
      }
    }
    foldMessage(state, message);
  }
  return freeze(state);
}

interface CacheEntry {
  /** Messages folded into `state`: all but the last seen, which may still be streaming. */
  settled: number;
  lastId?: string;
  state: MutableState;
}

/**
 * An incremental fold: each read folds only the messages appended since the last read by the same
 * caller. The last message is folded afresh every time, because a streaming assistant message
 * grows in place; if the folded prefix no longer matches (a new conversation), it starts over.
 */
export class VisionFold {
  private readonly _cache = new Map<string, CacheEntry>();

  /** The fold state of `messages`, as `foldVisionRecords(messages)` would give it. */
  read(key: string, messages: readonly StoredMessage[]): VisionFoldState {
    let entry = this._cache.get(key);
    const prefixHolds =
      entry !== undefined &&
      entry.settled <= messages.length &&
      (entry.settled === 0 || messages[entry.settled - 1].id === entry.lastId);
    if (!entry || !prefixHolds) {
      entry = { settled: 0, state: emptyState() };
      this._cache.set(key, entry);
    }
    const settle = Math.max(entry.settled, messages.length - 1);
    for (let i = entry.settled; i < settle; i++) {
      foldMessage(entry.state, messages[i]);
    }
    entry.settled = settle;
    entry.lastId = settle > 0 ? messages[settle - 1].id : undefined;
    const state = cloneState(entry.state);
    for (let i = settle; i < messages.length; i++) {
      foldMessage(state, messages[i]);
    }
    return freeze(state);
  }

  /** Drop a caller's cache (its notebook closed). */
  forget(key: string): void {
    this._cache.delete(key);
  }
}
