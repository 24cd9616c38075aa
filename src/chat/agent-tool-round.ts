/**
 * One tool round of a turn: the calls of a reply run through the registry (mutating ones one at a
 * time), and their results are written as tool messages in call order as they arrive.
 */
import type { ToolImage, ToolOutput } from '../tools/registry';
import type { StoredToolCall, ToolMessage } from '../tools/transcript';
import type { AgentDeps } from './agent-deps';
import { isAbort, now } from './agent-messages';
import { newMessageId, type Conversation } from './conversation';
import type { ModelQuirks } from './model-quirks';

const INTERRUPTED_TOOL_TEXT = 'Tool call was interrupted (stopped by the user).';

/** Added to a tool result whose views did not reach the model as images. */
export const VIEWS_NOT_SENT_TEXT =
  ' (The views were shown to the user; this model does not accept images, so they were not sent to it.)';

/** The views of one tool round: the images, and the tool messages that reported them. */
export interface RoundViews {
  images: ToolImage[];
  messageIds: string[];
}

/** Run the tools of one reply; tool messages are written in call order as results arrive. */
export async function runTools(
  conversation: Conversation,
  deps: AgentDeps,
  quirks: ModelQuirks,
  calls: StoredToolCall[],
  signal: AbortSignal
): Promise<RoundViews> {
  const outputs: Array<ToolOutput | undefined> = calls.map(() => undefined);
  let written = 0;
  const running = new Set(calls.map(call => call.id));
  conversation.setLive({ runningCallIds: new Set(running) });
  const views: RoundViews = { images: [], messageIds: [] };
  const acceptImages = deps.settings.acceptsImages !== 'no' && !quirks.imagesRefused;
  const writeReady = (): void => {
    // One slot per call: stops at the first call still running, or past the last.
    for (let output = outputs[written]; output; output = outputs[written]) {
      const call = calls[written];
      let text = output.text;
      const id = newMessageId('t');
      if (output.images?.length) {
        conversation.setViews(call.id, output.images);
        if (acceptImages) {
          views.images.push(...output.images);
          views.messageIds.push(id);
        } else {
          text += VIEWS_NOT_SENT_TEXT;
        }
      }
      const message: ToolMessage = {
        id,
        role: 'tool',
        tool_call_id: call.id,
        status: output.text === INTERRUPTED_TOOL_TEXT ? 'interrupted' : output.status,
        content: text,
        created: now(),
        ...(output.picture ? { picture: output.picture } : {}),
        ...(output.record ? { record: { ...output.record } } : {})
      };
      conversation.append(message);
      written += 1;
    }
  };
  try {
    await deps.registry.callBatch(calls, { signal, host: deps.toolHost }, (index, output) => {
      outputs[index] = output;
      running.delete(calls[index].id);
      conversation.setLive({ runningCallIds: new Set(running) });
      writeReady();
    });
  } catch (error) {
    if (!isAbort(error, signal)) {
      throw error;
    }
  }
  // Whatever did not finish (Stop) is recorded as interrupted, in call order.
  for (let index = written; index < calls.length; index++) {
    outputs[index] ??= { status: 'failed', text: INTERRUPTED_TOOL_TEXT };
  }
  writeReady();
  return views;
}
