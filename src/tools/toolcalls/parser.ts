/**
 * Recovers tool calls that a model server left in the assistant's text, while the text streams.
 *
 * Text before a `<` is visible at once; a `<` waits until it is clearly not the start of call
 * markup; a block of call markup is read only when its closing tag could be present. Every
 * decision looks only at text already received, so any split of the same reply into chunks gives
 * the same result.
 *
 * Only the undecided tail of the reply is kept, and chunks inside a block are joined only when its
 * closing tag shows up: re-reading a growing string on every chunk would copy the whole reply each
 * time (V8 flattens concatenated strings on search), which is quadratic for a large SVG.
 */
import { dsmlMarked, dsmlPlain, DSML_MARKER } from './dsml';
import { toolCallTag } from './toolCallTag';
import type {
  BlockParse,
  CallProgress,
  CallSyntax,
  ParsedToolCall,
  ToolCallParseResult
} from './types';
import { matchAt, streamedUtf8Length } from './scan';

const SYNTAXES: readonly CallSyntax[] = [toolCallTag, dsmlMarked, dsmlPlain];

/**
 * How much of an open block is kept to read its first call's name from. Every syntax names the
 * call within its first few dozen characters; a name further in is not waited for (the call is
 * then shown when it is complete).
 */
const NAME_WINDOW = 512;

/** A block of call markup, starting at `_buffer[0]`, whose closing tag has not been read yet. */
interface OpenBlock {
  syntax: CallSyntax;
  bodyStart: number;
  /** Where to look for the closing tag next in `_buffer`; earlier occurrences were tried. */
  searchFrom: number;
  /** The last characters received, enough to see a closing tag split across chunks. */
  probe: string;
  /** Chunks received since the last look at the block, not yet added to `_buffer`. */
  pending: string[];
  /** The block's first characters (up to {@link NAME_WINDOW}), to read its first call's name. */
  head: string;
  /** The first call's name once known. */
  name: string | undefined;
  /** UTF-8 bytes of the block received so far. */
  bytes: number;
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
    if (this._result) {
      throw new Error('ToolCallTextParser: push() after finish()');
    }
    const block = this._block;
    if (block) {
      const keep = block.syntax.closer.length - 1;
      const probe = block.probe + chunk;
      block.probe = probe.slice(-keep);
      block.pending.push(chunk);
      block.bytes += streamedUtf8Length(chunk);
      if (block.name === undefined && block.head.length < NAME_WINDOW) {
        block.head += chunk.slice(0, NAME_WINDOW - block.head.length);
        block.name = block.syntax.firstName(block.head, block.bodyStart);
      }
      if (!probe.includes(block.syntax.closer)) {
        return '';
      }
      this._buffer += block.pending.join('');
      block.pending = [];
    } else {
      this._buffer += chunk;
    }
    this._advance();
    return this._takeFresh();
  }

  /**
   * The calls seen so far, finished or in progress, in call order (at most `limit` of them, from
   * the first): what to show while the model is still writing them. Like the visible text, it
   * depends only on the text received, never on how it was split into chunks.
   */
  progress(limit = Infinity): CallProgress[] {
    const progress: CallProgress[] = [];
    for (let index = 0; index < this._calls.length && progress.length < limit; index++) {
      progress.push({
        name: this._calls[index].name,
        bytes: this._callBytes[index],
        complete: true
      });
    }
    const block = this._block;
    if (block && !this._result && progress.length < limit) {
      progress.push({ name: block.name ?? '', bytes: block.bytes, complete: false });
    }
    return progress;
  }

  /**
   * Ends the stream and returns the whole result. A call still open at this point is reported
   * in `errors` (not returned as a call) and its markup is not shown.
   */
  finish(): ToolCallParseResult {
    if (!this._result) {
      if (this._block) {
        this._buffer += this._block.pending.join('');
        this._block.pending = [];
      }
      this._finishPending();
      this._takeFresh();
      this._result = { text: this._shown.join(''), calls: this._calls, errors: this._errors };
    }
    return {
      text: this._result.text,
      calls: [...this._result.calls],
      errors: [...this._result.errors]
    };
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

  /**
   * Moves visible text forward and drops it from the buffer; true when it stopped at the start
   * of a block of call markup, which then begins the buffer.
   */
  private _scanText(): boolean {
    const text = this._buffer;
    let pos = 0;
    let opening: Opening = { kind: 'prose' };
    for (;;) {
      const lt = text.indexOf('<', pos);
      if (lt === -1) {
        this._fresh += text.slice(pos);
        pos = text.length;
        break;
      }
      this._fresh += text.slice(pos, lt);
      pos = lt;
      opening = this._classify(text, lt);
      if (opening.kind !== 'prose') {
        break;
      }
      this._fresh += '<';
      pos = lt + 1;
    }
    this._drop(pos);
    if (opening.kind !== 'call') {
      return false;
    }
    const bodyStart = opening.syntax.opener.length;
    const head = this._buffer.slice(0, NAME_WINDOW);
    this._block = {
      syntax: opening.syntax,
      bodyStart,
      searchFrom: bodyStart,
      probe: '',
      pending: [],
      head,
      name: opening.syntax.firstName(head, bodyStart),
      bytes: streamedUtf8Length(this._buffer)
    };
    return true;
  }

  private _classify(text: string, lt: number): Opening {
    const before = lt > 0 ? text[lt - 1] : this._before;
    // A tag right after a backtick is being quoted in Markdown, never emitted as a call.
    if (before === '`') {
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
      block.probe = text.slice(block.searchFrom);
      return false;
    }
    this._record(result, text.slice(0, result.end));
    this._block = null;
    this._drop(result.end);
    return true;
  }

  /** Settles what is still undecided once no more text will come. */
  private _finishPending(): void {
    if (this._block) {
      const { syntax, bodyStart } = this._block;
      this._block = null;
      const result = syntax.parse(this._buffer, bodyStart);
      this._record(
        result,
        result.kind === 'complete' ? this._buffer.slice(0, result.end) : this._buffer
      );
      if (result.kind === 'incomplete') {
        this._errors.push(cutOff(syntax.closer, result.callName));
        this._drop(this._buffer.length);
        return;
      }
      this._drop(result.end);
      this._advance();
      this._finishPending();
      return;
    }
    if (this._buffer.length > 0) {
      const opening = this._classify(this._buffer, 0);
      if (opening.kind === 'hold' && opening.syntax) {
        // A complete opening tag followed by too little to tell: the call was cut off.
        this._errors.push(cutOff(opening.syntax.closer));
      } else {
        this._fresh += this._buffer;
      }
      this._drop(this._buffer.length);
    }
  }

  /** Forgets the first `count` characters of the buffer, which are decided. */
  private _drop(count: number): void {
    if (count > 0) {
      this._before = this._buffer[count - 1];
      this._buffer = this._buffer.slice(count);
    }
  }

  /** Keeps a block's calls and errors; `markup` is the block's text, for its size. */
  private _record(result: BlockParse, markup: string): void {
    const bytes = result.calls.length ? streamedUtf8Length(markup) : 0;
    result.calls.forEach((call, index) => {
      this._calls.push(call);
      this._callBytes.push(index === 0 ? bytes : 0);
    });
    this._errors.push(...result.errors);
  }

  private _takeFresh(): string {
    const fresh = this._fresh;
    this._fresh = '';
    if (fresh) {
      this._shown.push(fresh);
    }
    return fresh;
  }

  /** The undecided rest of the reply (or the open block, from its opening tag). */
  private _buffer = '';
  /** The character just before `_buffer`, for telling quoted tags from calls. */
  private _before = '';
  private _fresh = '';
  private _shown: string[] = [];
  private _block: OpenBlock | null = null;
  private _calls: ParsedToolCall[] = [];
  /** The size of each call's markup (a block's whole size goes to its first call). */
  private _callBytes: number[] = [];
  private _errors: string[] = [];
  private _result: ToolCallParseResult | null = null;
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
