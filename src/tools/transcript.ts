/**
 * The conversation as stored in a notebook's metadata under `figure_chat` (SPEC section 4.1).
 *
 * Every schema is `passthrough`: fields this version does not know are kept on load and written
 * back unchanged. Parsing is per message, so one malformed entry becomes an "unreadable entry"
 * instead of losing the conversation.
 */
import { z } from 'zod';

import { isRecord } from './guards';

/** The metadata key that holds the conversation. */
export const METADATA_KEY = 'figure_chat';

/** The stored format's version. */
export const TRANSCRIPT_VERSION = 1;

/** A tool call as the model made it: arguments are a JSON object. */
export const StoredToolCall = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown())
  })
  .passthrough();
export type StoredToolCall = z.infer<typeof StoredToolCall>;

/** A picture's fingerprint, kept in vision results instead of pixels. */
export const PictureFingerprint = z
  .object({
    address: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    width: z.number().int().positive(),
    height: z.number().int().positive()
  })
  .passthrough();
export type PictureFingerprint = z.infer<typeof PictureFingerprint>;

export const UserMessage = z
  .object({
    id: z.string().min(1),
    role: z.literal('user'),
    content: z.string(),
    created: z.string().optional(),
    attachments: z.array(z.string()).optional()
  })
  .passthrough();
export type UserMessage = z.infer<typeof UserMessage>;

export const AssistantMessage = z
  .object({
    id: z.string().min(1),
    role: z.literal('assistant'),
    content: z.string(),
    status: z.enum(['completed', 'interrupted']),
    created: z.string().optional(),
    tool_calls: z.array(StoredToolCall).optional(),
    /**
     * What the model thought before answering (`reasoning_content`, `reasoning` or `<think>` text),
     * kept apart from the answer. Additive to format v1: older readers keep it as an unknown field.
     */
    reasoning: z.string().optional()
  })
  .passthrough();
export type AssistantMessage = z.infer<typeof AssistantMessage>;

export const ToolMessage = z
  .object({
    id: z.string().min(1),
    role: z.literal('tool'),
    tool_call_id: z.string().min(1),
    status: z.enum(['completed', 'failed', 'interrupted']),
    content: z.string(),
    created: z.string().optional(),
    picture: PictureFingerprint.optional(),
    /**
     * The record a vision call started from, when the picture's marks live outside the
     * conversation (a Vision output from kernel code, which a person edits too): the fold and the
     * replay start from it, so the transcript shows what the model saw. JSON marks, never pixels;
     * untrusted, checked like any record. Additive to format v1.
     */
    record: z.record(z.string(), z.unknown()).optional()
  })
  .passthrough();
export type ToolMessage = z.infer<typeof ToolMessage>;

export const StoredMessage = z.discriminatedUnion('role', [
  UserMessage,
  AssistantMessage,
  ToolMessage
]);
export type StoredMessage = z.infer<typeof StoredMessage>;

/** The whole `figure_chat` value, strictly typed (used for the exported JSON Schema). */
export const Transcript = z
  .object({
    version: z.literal(TRANSCRIPT_VERSION),
    messages: z.array(StoredMessage)
  })
  .passthrough();
export type Transcript = z.infer<typeof Transcript>;

/** A stored entry that could not be read: kept verbatim, shown as an "unreadable entry" card. */
export interface UnreadableEntry {
  readonly role: 'unreadable';
  readonly index: number;
  readonly raw: unknown;
  readonly reason: string;
}

/** A transcript as loaded: readable messages and unreadable entries, in stored order. */
export interface LoadedTranscript {
  /** Top-level fields other than `version` and `messages`, written back untouched. */
  readonly extra: Record<string, unknown>;
  readonly entries: ReadonlyArray<StoredMessage | UnreadableEntry>;
  /** Set when the whole value was unusable (wrong type, unknown version). */
  readonly problem?: string;
}

/**
 * Read a `figure_chat` value from untrusted metadata. Never throws: what cannot be read is
 * reported entry by entry.
 */
export function loadTranscript(value: unknown): LoadedTranscript {
  if (value === undefined || value === null) {
    return { extra: {}, entries: [] };
  }
  if (!isRecord(value)) {
    return { extra: {}, entries: [], problem: 'figure_chat metadata is not an object' };
  }
  const { version, messages, ...extra } = value;
  if (version !== TRANSCRIPT_VERSION) {
    return {
      extra,
      entries: [],
      problem:
        typeof version === 'string' && Number(version) === TRANSCRIPT_VERSION
          ? // Another program wrote the number as text: say so, not "version "1" … reads 1".
            `figure_chat metadata stores its version as the text "${version}" instead of the number ${TRANSCRIPT_VERSION}`
          : `figure_chat metadata has version ${JSON.stringify(version)}; this Figure Chat reads version ${TRANSCRIPT_VERSION}`
    };
  }
  if (!Array.isArray(messages)) {
    return { extra, entries: [], problem: 'figure_chat.messages is not a list' };
  }
  const entries = messages.map((raw, index): StoredMessage | UnreadableEntry => {
    const parsed = StoredMessage.safeParse(raw);
    if (parsed.success) {
      return parsed.data;
    }
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    return { role: 'unreadable', index, raw, reason: `${issue?.message ?? 'invalid'}${where}` };
  });
  return { extra, entries };
}

/**
 * The value to write back: readable messages as they are (unknown fields included), unreadable
 * entries verbatim, so saving never loses what another program wrote.
 */
export function storeTranscript(
  extra: Record<string, unknown>,
  entries: ReadonlyArray<StoredMessage | UnreadableEntry>
): Record<string, unknown> {
  return {
    ...extra,
    version: TRANSCRIPT_VERSION,
    messages: entries.map(entry => (entry.role === 'unreadable' ? entry.raw : entry))
  };
}

/** Whether an entry was readable. */
export function isReadable(entry: StoredMessage | UnreadableEntry): entry is StoredMessage {
  return entry.role !== 'unreadable';
}
