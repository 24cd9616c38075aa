/** Stored messages for chat-layer tests, built the way the agent writes them. */
import type {
  AssistantMessage,
  StoredToolCall,
  ToolMessage,
  UserMessage
} from '../../tools/transcript';

export function user(id: string, content: string, attachments?: string[]): UserMessage {
  return { id, role: 'user', content, ...(attachments ? { attachments } : {}) };
}

export function assistant(
  id: string,
  content: string,
  toolCalls: StoredToolCall[] = [],
  status: AssistantMessage['status'] = 'completed'
): AssistantMessage {
  return {
    id,
    role: 'assistant',
    content,
    status,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {})
  };
}

export function call(id: string, name: string, args: Record<string, unknown> = {}): StoredToolCall {
  return { id, name, arguments: args };
}

export function result(
  id: string,
  toolCallId: string,
  content: string,
  status: ToolMessage['status'] = 'completed'
): ToolMessage {
  return { id, role: 'tool', tool_call_id: toolCallId, status, content };
}

/** A small valid figure with backticks in a comment (to test fences). */
export function figureSvg(label: string, padding = 0): string {
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" viewBox="0 0 120 40">' +
    `<!-- \`\`\`\` ${'·'.repeat(padding)} -->` +
    `<rect x="1" y="1" width="118" height="38" fill="none" stroke="#333"/>` +
    `<text x="60" y="25" text-anchor="middle">${label}</text></svg>`
  );
}

/** Freeze a value and everything in it, so a test fails on any mutation. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) {
      deepFreeze((value as Record<string, unknown>)[key]);
    }
  }
  return value;
}
