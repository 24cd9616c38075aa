/**
 * Recovers tool calls that a model server left in the assistant's text, while the text streams.
 *
 * The parser keeps the whole reply and a position up to which everything is decided. Text before
 * a `<` is visible at once; a `<` waits until it is clearly not the start of call markup; a block of
 * call markup is read only when its closing tag could be present. Every decision looks only at
 * text already received, so any split of the same reply into chunks gives the same result.
 */
import { dsmlMarked, dsmlPlain, DSML_MARKER } from './dsml';
import { toolCallTag } from './toolCallTag';
import type { BlockParse, CallSyntax, ParsedToolCall, ToolCallParseResult } from './types';
import { matchAt } from './scan';

const SYNTAXES: readonly CallSyntax[] = [toolCallTag, dsmlMarked, dsmlPlain];

/** A block of call markup whose closing tag has not been read yet. */
interface OpenBlock {
  syntax: CallSyntax;
  bodyStart: number;
  /** Where to look for the closing tag next; occurrences before it were already tried. */
  searchFrom: number;
}

/** What a `<` in visible text turns out to be. */
type Opening =
  { kind: 'prose' } | { kind: 'hold'; syntax?: CallSyntax } | { kind: 'call'; syntax: CallSyntax };

/**
 * Streaming parser for tool calls written as text (Hermes/Qwen, DeepSeek DSML, GLM-4.5/4.6).
 *
 * Feed chunks with {@link ToolCallTextParser.push}; each call returns only the visible text that
 * has become safe to show. Call {@link ToolCallTextParser.finish} once at the end of the stream.
 */
export class ToolCallTextParser {
  /**
   * Adds a chunk of the reply.
   *
   * @returns the visible text newly decided: call markup is withheld, and so is a trailing `<…`
   * that might still become call markup. The returns concatenated are always a prefix of
   * `finish().text`.
   */
  push(chunk: string): string {
    if (this._finished) {
      throw new Error('ToolCallTextParser: push() after finish()');
    }
    this._buffer += chunk;
    this._advance();
    return this._takeNewText();
  }

  /**
   * Ends the stream and returns the whole result. A call still open at this point is reported
   * in `errors` (not returned as a call) and its markup is not shown.
   */
  finish(): ToolCallParseResult {
    if (!this._finished) {
      this._finished = true;
      this._finishPending();
    }
    return { text: this._visible, calls: [...this._calls], errors: [...this._errors] };
  }

  /** Reads as far as the received text allows. */
  private _advance(): void {
    for (;;) {
      if (this._block && !this._tryCloseBlock(this._block)) {
        return;
      }
      if (!this._scanText()) {
        return;
      }
    }
  }

  /** Moves visible text forward; true when it stopped at the start of a block of call markup. */
  private _scanText(): boolean {
    const text = this._buffer;
    for (;;) {
      const lt = text.indexOf('<', this._pos);
      if (lt === -1) {
        this._visible += text.slice(this._pos);
        this._pos = text.length;
        return false;
      }
      this._visible += text.slice(this._pos, lt);
      this._pos = lt;
      const opening = this._classify(lt);
      if (opening.kind === 'hold') {
        return false;
      }
      if (opening.kind === 'call') {
        const bodyStart = lt + opening.syntax.opener.length;
        this._block = { syntax: opening.syntax, bodyStart, searchFrom: bodyStart };
        return true;
      }
      this._visible += '<';
      this._pos = lt + 1;
    }
  }

  private _classify(lt: number): Opening {
    const text = this._buffer;
    // A tag right after a backtick is being quoted in Markdown, never emitted as a call.
    if (lt > 0 && text[lt - 1] === '`') {
      return { kind: 'prose' };
    }
    let hold: Opening | null = null;
    for (const syntax of SYNTAXES) {
      const m = matchAt(text, lt, syntax.opener);
      if (m === 'partial') {
        hold ??= { kind: 'hold' };
      } else if (m === 'yes') {
        const look = syntax.confirm(text, lt + syntax.opener.length);
        if (look === 'call') {
          return { kind: 'call', syntax };
        }
        if (look === 'more') {
          hold = { kind: 'hold', syntax };
        }
      }
    }
    return hold ?? { kind: 'prose' };
  }

  /** Reads the open block if its closing tag may have arrived; true when the block is done. */
  private _tryCloseBlock(block: OpenBlock): boolean {
    const text = this._buffer;
    const closer = block.syntax.closer;
    const found = text.indexOf(closer, block.searchFrom) !== -1;
    const result = found ? block.syntax.parse(text, block.bodyStart) : null;
    if (result === null || result.kind === 'incomplete') {
      block.searchFrom = Math.max(block.bodyStart, text.length - closer.length + 1);
      return false;
    }
    this._record(result);
    this._pos = result.end;
    this._block = null;
    return true;
  }

  /** Settles what is still undecided once no more text will come. */
  private _finishPending(): void {
    if (this._block) {
      const { syntax, bodyStart } = this._block;
      this._block = null;
      const result = syntax.parse(this._buffer, bodyStart);
      this._record(result);
      if (result.kind === 'incomplete') {
        this._errors.push(cutOff(syntax.closer, result.callName));
        this._pos = this._buffer.length;
        return;
      }
      this._pos = result.end;
      this._advance();
      this._finishPending();
      return;
    }
    if (this._pos < this._buffer.length) {
      const opening = this._classify(this._pos);
      if (opening.kind === 'hold' && opening.syntax) {
        // A complete opening tag followed by too little to tell: the call was cut off.
        this._errors.push(cutOff(opening.syntax.closer));
      } else {
        this._visible += this._buffer.slice(this._pos);
      }
      this._pos = this._buffer.length;
    }
  }

  private _record(result: BlockParse): void {
    this._calls.push(...result.calls);
    this._errors.push(...result.errors);
  }

  private _takeNewText(): string {
    const fresh = this._visible.slice(this._returned);
    this._returned = this._visible.length;
    return fresh;
  }

  private _buffer = '';
  /** Everything before this index is decided (visible text or consumed markup). */
  private _pos = 0;
  private _visible = '';
  private _returned = 0;
  private _block: OpenBlock | null = null;
  private _calls: ParsedToolCall[] = [];
  private _errors: string[] = [];
  private _finished = false;
}

function cutOff(closer: string, callName?: string): string {
  return callName
    ? `The model's tool call to ${callName} was cut off before ${closer}.`
    : `The model's tool call was cut off before ${closer}.`;
}

/**
 * Parses a complete reply at once; the same result as pushing it through a
 * {@link ToolCallTextParser} in any chunks.
 */
export function parseToolCallsFromText(text: string): ToolCallParseResult {
  const parser = new ToolCallTextParser();
  parser.push(text);
  return parser.finish();
}

const STRAY_DSML_TAG = new RegExp(`</?${DSML_MARKER}[A-Za-z_]+(?:\\s[^<>]*)?>`, 'g');

/**
 * The text of a reply without any tool-call transport markup, for display and exports.
 *
 * Besides the markup of calls (complete or cut off) it drops stray tags carrying the DSML marker,
 * which never belong to prose.
 */
export function stripTransportMarkup(text: string): string {
  return parseToolCallsFromText(text).text.replace(STRAY_DSML_TAG, '');
}
