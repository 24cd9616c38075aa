/**
 * A tool call made by another agent (an MCP client of Jupyter, `jupyterlab_figure_chat/mcp`), as
 * the conversation stores it: an assistant message authored by that agent, holding the one call,
 * and its tool result — the shape the chat's own calls have (SPEC 4.1), so the sidebar shows it,
 * exports it and replays it, and the vision records fold it, exactly like the chat's calls. Used
 * by both writers of a notebook: the page that has it open, and the server when it is closed.
 */
import { z } from 'zod';

import type { ToolOutput } from './registry';
import type { AssistantMessage, ToolMessage } from './transcript';

/** The tools other agents may call. */
export const AGENT_TOOLS = [
  'present_svg',
  'vision_mark',
  'vision_update',
  'vision_show',
  'vision_list'
] as const;
export type AgentToolName = (typeof AGENT_TOOLS)[number];

/** Longest agent name kept (an MCP client names itself; the name is shown, so it is bounded). */
export const MAX_AGENT_NAME = 100;

/**
 * Who made the call, stored on the assistant message as `agent` (additive to format v1: older
 * readers keep it as an unknown field). `via` says through which door it came.
 */
export const AgentAuthor = z.object({
  name: z.string().min(1).max(MAX_AGENT_NAME),
  via: z.literal('mcp')
});
export type AgentAuthor = z.infer<typeof AgentAuthor>;

/** One call from another agent: the tool, its arguments (without `notebook`), and who made it. */
export const AgentCall = z.object({
  name: z.enum(AGENT_TOOLS),
  arguments: z.record(z.string(), z.unknown()),
  agent: AgentAuthor
});
export type AgentCall = z.infer<typeof AgentCall>;

/** The ids and time of the two stored messages (each writer makes its own unique ids). */
export interface AgentTurnIds {
  readonly assistant: string;
  readonly call: string;
  readonly tool: string;
  readonly created: string;
}

/**
 * The assistant message and tool result of a completed call. Failed calls are not stored: the
 * agent gets the refusal, and the notebook is left as it was.
 */
export function agentTurn(
  call: AgentCall,
  output: ToolOutput,
  ids: AgentTurnIds
): [AssistantMessage, ToolMessage] {
  const assistant: AssistantMessage = {
    id: ids.assistant,
    role: 'assistant',
    content: '',
    status: 'completed',
    created: ids.created,
    tool_calls: [{ id: ids.call, name: call.name, arguments: call.arguments }],
    agent: { name: call.agent.name, via: call.agent.via }
  };
  const tool: ToolMessage = {
    id: ids.tool,
    role: 'tool',
    tool_call_id: ids.call,
    status: output.status,
    content: output.text,
    created: ids.created,
    ...(output.picture ? { picture: output.picture } : {}),
    ...(output.record ? { record: { ...output.record } } : {})
  };
  return [assistant, tool];
}
