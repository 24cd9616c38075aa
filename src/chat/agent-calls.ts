/**
 * A call from another agent (MCP, through the Jupyter server) on a notebook this page has open:
 * run by the registry's handler with the chat session as its host — the same host the chat's own
 * calls have, so the vision records fold with the chat's and a Vision widget's marks — then
 * appended to the conversation as the agent's turn (`src/tools/agent-turn`), which shows it in the
 * sidebar and writes it into the notebook model, saved with the notebook. A failed call is not
 * stored: the agent gets the refusal, the conversation stays as it was.
 */
import { agentTurn, type AgentCall } from '../tools/agent-turn';
import type { LiveVisionWidgets } from '../tools/host';
import type { ToolRegistry } from '../tools/registry';
import { now } from './agent-messages';
import { newMessageId } from './conversation';
import type { ChatSession } from './session';
import { createChatToolHost } from './tools/host';

/** An image the agent gets back: a vision view's copy for the model (JPEG), base64. */
export interface AgentCallImage {
  readonly mime: string;
  readonly data: string;
  readonly width: number;
  readonly height: number;
}

/** What the page answers the server. */
export interface AgentCallAnswer {
  readonly status: 'completed' | 'failed';
  readonly text: string;
  readonly images: AgentCallImage[];
}

/** Resolves once the session has no turn running (the agent's turn never splits the chat's). */
function idle(session: ChatSession, signal: AbortSignal): Promise<void> {
  if (!session.busy) {
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const done = (): void => {
      if (!session.busy) {
        session.busyChanged.disconnect(done);
        signal.removeEventListener('abort', aborted);
        resolve();
      }
    };
    const aborted = (): void => {
      session.busyChanged.disconnect(done);
      reject(signal.reason);
    };
    session.busyChanged.connect(done);
    signal.addEventListener('abort', aborted, { once: true });
  });
}

/**
 * Run `call` in `session` and append it as the agent's turn. The two messages are appended
 * together once the tool has answered, so no other message can come between them.
 */
export async function runAgentCall(
  session: ChatSession,
  registry: ToolRegistry,
  call: AgentCall,
  liveVision: LiveVisionWidgets | null,
  signal: AbortSignal
): Promise<AgentCallAnswer> {
  await idle(session, signal);
  const host = createChatToolHost({
    notebook: () => session.notebookModel,
    conversation: session.conversation,
    request: (route, body, requestSignal) => session.request(route, body, requestSignal),
    liveVision
  });
  const output = await registry.call(call.name, call.arguments, { signal, host });
  if (output.status === 'completed' && !session.isDisposed) {
    const ids = {
      assistant: newMessageId('a'),
      call: newMessageId('c'),
      tool: newMessageId('t'),
      created: now()
    };
    const [assistant, tool] = agentTurn(call, output, ids);
    if (output.images?.length) {
      session.conversation.setViews(ids.call, output.images);
    }
    session.conversation.append(assistant);
    session.conversation.append(tool);
  }
  const images = (output.images ?? []).map(image => ({
    mime: image.model?.mime ?? 'image/png',
    data: image.model?.data ?? image.png,
    width: image.shrunkFrom?.width ?? image.width,
    height: image.shrunkFrom?.height ?? image.height
  }));
  return { status: output.status, text: output.text, images };
}
