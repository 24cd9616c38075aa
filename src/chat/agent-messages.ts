/** Small pieces every part of the agent turn shares: timestamps, Stop, the assistant message. */
import { newMessageId, type Conversation } from './conversation';

/** A message's creation time. */
export function now(): string {
  return new Date().toISOString();
}

/** Whether a failure is the turn being stopped rather than something going wrong. */
export function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (error instanceof Error && error.name === 'AbortError');
}

/**
 * Add an empty assistant message, marked interrupted until its reply completes, so that a save
 * in the middle of it keeps what arrived, marked as cut off.
 */
export function appendAssistant(
  conversation: Conversation,
  extra: { error?: string } = {}
): string {
  const id = newMessageId('a');
  conversation.append({
    id,
    role: 'assistant',
    content: '',
    status: 'interrupted',
    created: now(),
    ...extra
  });
  return id;
}
