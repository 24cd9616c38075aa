/**
 * The name of the agent whose call a turn is, as the sidebar shows it ("via <name>"). An MCP
 * client names itself, and a saved notebook's metadata can say anything: the name is hostile
 * both live and on replay. So it is only ever set as text, stripped of the characters that would
 * change how the header reads (controls, line breaks, direction overrides, invisible ones), and
 * cut to what a header holds; the tooltip has it up to the stored cap.
 */
import { MAX_AGENT_NAME } from '../tools/agent-turn';
import type { AssistantMessage } from '../tools/transcript';

/** Most characters of the name shown in the header (the rest is in the tooltip). */
export const SHOWN_AGENT_NAME = 40;

/** An agent's name, cleaned: `shown` for the header, `full` for its tooltip. */
export interface AgentLabel {
  readonly shown: string;
  readonly full: string;
}

// C0 and C1 controls, zero-width characters, line and paragraph separators, bidirectional
// embeddings, overrides and isolates (they reorder the text after them), word joiners, the BOM.
const UNSHOWN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]+/g;

/** The first `count` characters (code points, so no half of a surrogate pair is left). */
function head(text: string, count: number): string {
  return Array.from(text).slice(0, count).join('');
}

/**
 * The agent's name of an agent's turn (the message's `agent.name`), cleaned, or null for the
 * model's own turns and for a name that is not a string or is empty once cleaned.
 */
export function agentLabel(message: AssistantMessage): AgentLabel | null {
  const agent: unknown = message.agent;
  if (typeof agent !== 'object' || agent === null || !('name' in agent)) {
    return null;
  }
  const name: unknown = agent.name;
  if (typeof name !== 'string') {
    return null;
  }
  // Bounded before any work: a name in a notebook's metadata may be megabytes long.
  const clean = name
    .slice(0, 4 * MAX_AGENT_NAME)
    .replace(UNSHOWN, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!clean) {
    return null;
  }
  const full = head(clean, MAX_AGENT_NAME);
  const shown = head(full, SHOWN_AGENT_NAME);
  return { full, shown: shown === full ? full : `${shown.trimEnd()}…` };
}
