/**
 * Which figure or view of a stored conversation to pin: found by call id (and view index), or the
 * latest one when none is named. Pure: the same transcript always names the same thing.
 */
import type { BundleSource } from './bundle';
import { figureFromCall } from './svg';
import type { PictureFingerprint, StoredMessage } from './transcript';
import {
  isVisionTool,
  planVisionCall,
  recordFor,
  walkVisionCalls,
  type ViewSpec,
  type VisionRecord
} from './vision';

/** Something that can be pinned into the notebook. */
export type PinTarget =
  | {
      readonly kind: 'figure';
      readonly svg: string;
      readonly alt: string;
      readonly source: BundleSource;
    }
  | {
      readonly kind: 'vision';
      readonly picture: PictureFingerprint;
      readonly record: VisionRecord;
      readonly spec: ViewSpec;
      /** Which of the call's views (0 for the first). */
      readonly index: number;
      readonly source: BundleSource;
    };

/** The request: a call id and a view index, or nothing for the latest figure or view. */
export interface PinRequest {
  readonly call?: string;
  readonly view?: number;
}

export type PinLookup = { ok: true; value: PinTarget } | { ok: false; error: string };

function visionTargets(messages: readonly StoredMessage[]): PinTarget[] {
  const targets: PinTarget[] = [];
  const messageOf = new Map<string, string>();
  for (const message of messages) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? []) {
        messageOf.set(call.id, message.id);
      }
    }
  }
  walkVisionCalls(messages, (call, result, before) => {
    if (!result.picture || !isVisionTool(call.name) || result.status !== 'completed') {
      return;
    }
    try {
      const record = recordFor(before, result.picture.address);
      const plan = planVisionCall(call.name, call.args, record, result.picture);
      plan.views.forEach((spec, index) => {
        targets.push({
          kind: 'vision',
          picture: result.picture as PictureFingerprint,
          record: plan.record,
          spec,
          index,
          source: { message: messageOf.get(result.tool_call_id) ?? '', call: result.tool_call_id }
        });
      });
    } catch {
      // A call the fold cannot replay has no view to pin; its card says why.
    }
  });
  return targets;
}

/** Every figure and view of a conversation, in call order. */
export function pinTargets(messages: readonly StoredMessage[]): PinTarget[] {
  const completed = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool' && message.status === 'completed') {
      completed.add(message.tool_call_id);
    }
  }
  const vision = visionTargets(messages);
  const targets: PinTarget[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant') {
      continue;
    }
    for (const call of message.tool_calls ?? []) {
      if (!completed.has(call.id)) {
        continue;
      }
      const figure = figureFromCall(call);
      if (figure) {
        targets.push({
          kind: 'figure',
          svg: figure.svg,
          alt: figure.alt,
          source: { message: message.id, call: call.id }
        });
      }
      targets.push(...vision.filter(target => target.source.call === call.id));
    }
  }
  return targets;
}

/** Find what to pin; an error names what is missing. */
export function findPinTarget(messages: readonly StoredMessage[], request: PinRequest): PinLookup {
  const targets = pinTargets(messages);
  if (request.call === undefined) {
    const last = targets[targets.length - 1];
    return last
      ? { ok: true, value: last }
      : { ok: false, error: 'This conversation has no figure or view to insert yet.' };
  }
  const ofCall = targets.filter(target => target.source.call === request.call);
  if (!ofCall.length) {
    return {
      ok: false,
      error: `No completed figure or view with call id ${request.call} in this notebook's conversation.`
    };
  }
  const index = request.view ?? 0;
  const found = ofCall.find(target => (target.kind === 'figure' ? 0 : target.index) === index);
  return found
    ? { ok: true, value: found }
    : {
        ok: false,
        error: `Call ${request.call} has ${ofCall.length} view${ofCall.length === 1 ? '' : 's'}; view ${index} does not exist.`
      };
}
