/**
 * Shapes shared by the tool-call text parsers (SPEC section 5).
 */

/** A tool call recovered from the assistant's text, whatever syntax the model used. */
export interface ParsedToolCall {
  /** The tool's name, as the model wrote it. */
  name: string;
  /** The arguments as a JSON object; string values are exactly the bytes the model sent. */
  arguments: Record<string, unknown>;
}

/** What a whole reply holds once its transport markup is taken out. */
export interface ToolCallParseResult {
  /** The visible text: everything except the markup of tool calls (and of cut-off calls). */
  text: string;
  /** Complete tool calls, in the order the model made them. */
  calls: ParsedToolCall[];
  /** One readable sentence per call that could not be recovered (cut off, malformed). */
  errors: string[];
}

/**
 * A call as far as its markup has arrived, for showing progress while the model writes it. Every
 * call the parser has seen start has one, in call order: the finished calls, then at most one in
 * progress.
 */
export interface CallProgress {
  /** The tool's name, once the text shows it whole; '' until then (or if it never comes first). */
  name: string;
  /** UTF-8 bytes of the call's markup so far (for a block of several calls, all on the first). */
  bytes: number;
  /** Whether the call's markup is complete (it is in the result's `calls`). */
  complete: boolean;
}

/**
 * What the text right after an opening tag says about it: a real call, a mention in prose, or
 * not decidable until more text arrives.
 */
export type Lookahead = 'call' | 'prose' | 'more';

/**
 * The outcome of parsing one block of call markup from its opening tag onwards.
 *
 * `complete` ends just after the block's closing tag. `incomplete` means the text ends inside
 * the block; it carries the calls already finished inside it and the name of the call in progress.
 */
export type BlockParse =
  | { kind: 'complete'; end: number; calls: ParsedToolCall[]; errors: string[] }
  | { kind: 'incomplete'; calls: ParsedToolCall[]; errors: string[]; callName?: string };

/**
 * One family of call markup: the tag that opens a block, the tag that closes it, and how to read
 * what lies between.
 *
 * Both functions must be monotonic: a decision made on a prefix of the text must be the same on
 * any longer text. They return `more` / `incomplete` whenever the text ends before they can tell.
 * A `complete` block always ends with `closer`, which the streaming parser relies on to avoid
 * re-parsing a block until its closing tag could be present.
 */
export interface CallSyntax {
  readonly opener: string;
  readonly closer: string;
  confirm(text: string, bodyStart: number): Lookahead;
  parse(text: string, bodyStart: number): BlockParse;
  /**
   * The name of the block's first call, once `text` (the start of the block) shows it whole;
   * undefined until then. Monotonic like the others: a name given for a prefix is given for any
   * longer text.
   */
  firstName(text: string, bodyStart: number): string | undefined;
}
