/**
 * A tool call the model wrote but the chat could not read (LM Studio passes on a call it could not
 * parse as `<tool_call>["name": "present_svg", …]</tool_call>` text). Once per turn it goes back to
 * the model as a failed tool call with the parse error, so the model can write it again; a second
 * unreadable call ends the turn with the error, as any other.
 */
import type { ToolRegistry } from '../tools/registry';
import type { StoredToolCall, ToolMessage } from '../tools/transcript';
import { now } from './agent-messages';
import { newMessageId, type Conversation } from './conversation';

/** A call that could not be read, and why. */
export interface UnreadableCall {
  readonly call: StoredToolCall;
  readonly error: string;
}

/** What the model is told besides the parse error. */
export const UNREADABLE_CALL_HINT =
  'Nothing ran. Call the tool again with its name and its arguments as one valid JSON object.';

/**
 * The calls standing for the unreadable ones: named after the tool when the error names a
 * registered tool (DSML's "The model's call to present_svg has arguments that are not valid
 * JSON"), else `unreadable_tool_call`; with no arguments, since none could be read.
 */
export function unreadableCalls(
  errors: ReadonlyArray<string>,
  messageId: string,
  registry: ToolRegistry
): UnreadableCall[] {
  const names = registry.specs().map(spec => spec.function.name);
  return errors.map((error, index) => {
    const name =
      names.find(known => new RegExp(`(^|[^\\w])${known}([^\\w]|$)`).test(error)) ??
      'unreadable_tool_call';
    return { call: { id: `${messageId}_u${index + 1}`, name, arguments: {} }, error };
  });
}

/** Write the failed results of unreadable calls, after the results of the calls that ran. */
export function writeUnreadableResults(
  conversation: Conversation,
  unreadable: ReadonlyArray<UnreadableCall>
): void {
  for (const { call, error } of unreadable) {
    const message: ToolMessage = {
      id: newMessageId('t'),
      role: 'tool',
      tool_call_id: call.id,
      status: 'failed',
      content: `Tool error: ${error} ${UNREADABLE_CALL_HINT}`,
      created: now()
    };
    conversation.append(message);
  }
}
