/**
 * What a tool handler may use besides its arguments: the one interface every host of the tool
 * registry implements (the chat session today; any host that holds a notebook and reaches the
 * figure server). Handlers see it as `context.host`.
 */
import type { PictureFingerprint, StoredMessage } from './transcript';
import type { VisionRecord } from './vision';

/** One notebook cell as nbformat JSON (`id`, `cell_type`, `source`, `outputs`…), untrusted. */
export type NotebookCellJson = Readonly<Record<string, unknown>>;

/**
 * A picture whose marks live outside the conversation: a Vision output made by kernel code. The
 * chat's vision tools work on this one record, so what a person clicked in the widget is what the
 * model sees, and what the model marks shows in the widget and in the kernel's `v.marks`.
 */
export interface SharedVisionRecord {
  /** The picture (address = the record's `image`), as its output stores it. Untrusted, parsed. */
  readonly picture: PictureFingerprint;
  /**
   * Where the record lives: a running Vision widget (edits reach the kernel), or only the saved
   * output (the kernel is gone: changes stay in the chat until the cell runs again).
   */
  readonly where: 'widget' | 'output';
  /** The record now, as its holder has it; untrusted, the caller checks it. */
  record(): unknown;
  /**
   * Write the record back to the widget and wait until the kernel takes it; rejects with the
   * kernel's refusal (or a timeout) as a message for the model. Saved outputs have none.
   */
  readonly write?: (record: VisionRecord, signal: AbortSignal) => Promise<void> | void;
  /**
   * The picture's base64 bytes, from whoever holds them (the kernel, for a widget); undefined
   * when no one does any more (then views cannot be drawn, and the tools say so).
   */
  pictureData(signal: AbortSignal): Promise<string | undefined>;
}

/** A Vision widget model alive in this page. */
export interface LiveVisionWidget {
  /** The record the model holds now (untrusted). */
  record(): unknown;
  /*
   * `address`, on `write` and `pictureData`: a picture of a `VisionSet` other than the one it
   * shows (the bundle's `set` lists them). The page sends it with the request (`{"method":
   * "write" | "picture", "address"}`), and the kernel answers for that picture.
   */
  /**
   * Send the record to the kernel, which takes it only if `base` is still its record; resolves
   * once the model holds it, rejects with the kernel's refusal or when it does not answer.
   */
  write(record: VisionRecord, base: unknown, signal: AbortSignal, address?: string): Promise<void>;
  /** The picture's base64 bytes, asked of the kernel (once per picture). */
  pictureData(signal: AbortSignal, address?: string): Promise<string>;
  /**
   * The picture's base64 bytes with the sha-256 the kernel gives them (one request with
   * `pictureData`): how the chat fingerprints a set picture the saved output has no fingerprint
   * of yet. The figure server takes the bytes only if they have that sha-256.
   */
  pictureRead(signal: AbortSignal, address?: string): Promise<{ data: string; sha256: string }>;
}

/** The Vision widget models of this page, by model id (provided by the kernel bridge). */
export interface LiveVisionWidgets {
  /** The model with this id, while its comm is open. */
  widget(modelId: string): LiveVisionWidget | undefined;
}

/** The vision state a host keeps: the calls and results that the vision records fold from. */
export interface ToolHostVision {
  /** The readable messages of the conversation so far. */
  messages(): StoredMessage[];
  /** The object whose lifetime per-conversation caches (the fold, batch records) follow. */
  readonly owner: object;
  /**
   * The shared record of a picture a Vision output holds, found by its picture address or by the
   * output's own `cell:<id>/<n>` address (both as `notebook_read` lists them); null for any
   * other picture, whose record the conversation keeps.
   */
  shared?(address: string): SharedVisionRecord | null;
  /**
   * The shared record of a `VisionSet` picture whose fingerprint the set's output does not hold
   * yet (its kernel had not read it when the output was written): the set's kernel is asked for
   * the picture now, and its bytes give the fingerprint. Null for any other address; rejects with
   * a message for the model saying what to do when no running kernel holds the set or the kernel
   * cannot read the picture.
   */
  readShared?(address: string, signal: AbortSignal): Promise<SharedVisionRecord | null>;
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
