/**
 * The agent loop: one user turn, streamed from the model, with tool rounds until the model answers
 * without calling a tool (or a guard stops it). Everything is written into the conversation as it
 * happens, so persistence keeps a turn cut off at any point, marked interrupted.
 *
 * The parts live beside it by feature: `agent-reply` streams one reply, `agent-tool-round` runs
 * its tools, `agent-refusals` works around what a model refuses.
 */
import type { AgentDeps } from './agent-deps';
import { appendAssistant, now } from './agent-messages';
import { applyRefusal, checkImagesOnce } from './agent-refusals';
import { streamReply } from './agent-reply';
import { runTools, type RoundViews } from './agent-tool-round';
import { writeUnreadableResults } from './agent-unreadable';
import { newMessageId, type Conversation } from './conversation';
import { ModelQuirkMemory } from './model-quirks';

export type { AgentDeps, AgentSettings } from './agent-deps';
export { NOTICES } from './agent-refusals';
export {
  EMPTY_STREAM_WITH_TOOLS,
  MAX_ANSWER_CHARS,
  SYSTEM_PROMPT,
  WRITING_STEP_BYTES
} from './agent-reply';
export { VIEWS_NOT_SENT_TEXT } from './agent-tool-round';

/** Each refusal can be worked around once per reply: images, temperature, tools. */
const MAX_RETRIES = 3;

/**
 * Run one user turn. Resolves when the turn ends: answered, stopped, failed (an error card is on
 * the last assistant message), or out of tool rounds.
 */
export async function runTurn(
  conversation: Conversation,
  deps: AgentDeps,
  text: string,
  attachments: string[],
  signal: AbortSignal
): Promise<void> {
  conversation.append({
    id: newMessageId('u'),
    role: 'user',
    content: text,
    created: now(),
    ...(attachments.length ? { attachments } : {})
  });
  const quirks = (deps.quirks ?? new ModelQuirkMemory()).of(
    deps.settings.endpoint,
    deps.settings.model
  );
  let views: RoundViews = { images: [], messageIds: [] };
  // An unreadable tool call is given back to the model once per turn; the second ends the turn.
  let corrected = false;
  try {
    for (let round = 0; ; round++) {
      if (signal.aborted) {
        return;
      }
      await checkImagesOnce(conversation, deps, quirks, views, signal);
      if (signal.aborted) {
        return;
      }
      let reply = await streamReply(conversation, deps, quirks, views, signal, !corrected);
      for (let retry = 0; reply.kind === 'retry' && retry < MAX_RETRIES; retry++) {
        applyRefusal(conversation, quirks, reply.refusal, views);
        reply = await streamReply(conversation, deps, quirks, views, signal, !corrected);
      }
      if (reply.kind === 'retry') {
        // Every workaround was tried and the server still refuses: show its refusal.
        appendAssistant(conversation, {
          error: `The model server kept refusing the request (${reply.refusal}). Check the model in Settings → Figure Chat.`
        });
        return;
      }
      const unreadable = reply.unreadable ?? [];
      if (reply.aborted || reply.error || (reply.calls.length === 0 && !unreadable.length)) {
        return;
      }
      corrected ||= unreadable.length > 0;
      if (round + 1 >= deps.settings.maxToolRounds) {
        await runTools(conversation, deps, quirks, reply.calls, signal);
        if (signal.aborted) {
          return;
        }
        writeUnreadableResults(conversation, unreadable);
        appendAssistant(conversation, {
          error: `Stopped after ${deps.settings.maxToolRounds} tool rounds without a final answer. Ask the model to continue, or raise "Max tool rounds" in Settings → Figure Chat.`
        });
        return;
      }
      views = await runTools(conversation, deps, quirks, reply.calls, signal);
      if (signal.aborted) {
        return;
      }
      writeUnreadableResults(conversation, unreadable);
    }
  } finally {
    conversation.setLive({});
  }
}
