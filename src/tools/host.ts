/**
 * What a tool handler may use besides its arguments: the one interface every host of the tool
 * registry implements (the chat session today; any host that holds a notebook and reaches the
 * figure server). Handlers see it as `context.host`.
 */
import type { StoredMessage } from './transcript';

/** One notebook cell as nbformat JSON (`id`, `cell_type`, `source`, `outputs`…), untrusted. */
export type NotebookCellJson = Readonly<Record<string, unknown>>;

/** The vision state a host keeps: the calls and results that the vision records fold from. */
export interface ToolHostVision {
  /** The readable messages of the conversation so far. */
  messages(): StoredMessage[];
  /** The object whose lifetime per-conversation caches (the fold, batch records) follow. */
  readonly owner: object;
}

/** The host of a tool call. */
export interface ToolHost {
  /** Which host this is, for messages and for tools that need one kind of host. */
  readonly kind: string;
  /** The notebook's cells, or null when no notebook is open. */
  cells(): ReadonlyArray<NotebookCellJson> | null;
  /**
   * The base64 bytes of a picture this host holds (a `cell:` image output), or undefined when
   * the figure server reads it itself (a workspace path). Throws an Error naming what is missing.
   */
  pictureData(address: string): string | undefined;
  /** POST to a figure-server route; rejects with an Error carrying the server's message. */
  request<T>(route: string, body: unknown, signal: AbortSignal): Promise<T>;
  /** The conversation's vision state. */
  readonly vision: ToolHostVision;
}
