/**
 * Reasoning that a model server left in the answer's text as `<think>…</think>` (Ollama before
 * 0.12.4, vLLM without a reasoning parser, llama.cpp with `--reasoning-format none`, LM Studio
 * with separate reasoning off), split from the answer while the text streams.
 *
 * Only a `<think>` that opens the reply (after optional whitespace) is reasoning: the same tag in
 * the middle of an answer is the model talking about the tag, and stays visible. Every decision
 * looks only at text already received, so any split of the reply into chunks gives the same
 * result (the same rule as the tool-call text parser).
 */

const OPENER = '<think>';
const CLOSER = '</think>';

/** Text newly decided by a push: answer text and reasoning text. */
export interface ThinkSplit {
  content: string;
  reasoning: string;
}

/** Where the splitter is in the reply. */
type Phase =
  /** Nothing but whitespace yet: a `<think>` may still open the reply. */
  | 'start'
  | 'thinking'
  /** Just after `</think>`: the whitespace that separates reasoning from answer is dropped. */
  | 'after'
  | 'answer';

/** The length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialTagAtEnd(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (tag.startsWith(text.slice(text.length - n))) {
      return n;
    }
  }
  return 0;
}

/** Streaming splitter of `<think>` reasoning from answer text. */
export class ThinkTagSplitter {
  private _phase: Phase = 'start';
  /** Text received but not decided yet (a possible tag, or leading whitespace). */
  private _held = '';
  private _finished = false;

  private _opened = false;

  /** Whether the reply opened with `<think>`. */
  get opened(): boolean {
    return this._opened;
  }

  /** Adds a chunk; returns the answer and reasoning text it decided. */
  push(chunk: string): ThinkSplit {
    if (this._finished) {
      throw new Error('ThinkTagSplitter: push() after finish()');
    }
    const out: ThinkSplit = { content: '', reasoning: '' };
    let text = this._held + chunk;
    this._held = '';
    while (text) {
      text = this._step(text, out);
    }
    return out;
  }

  /** Ends the reply: whatever is held is decided with no more text to come. */
  finish(): ThinkSplit {
    const out: ThinkSplit = { content: '', reasoning: '' };
    if (!this._finished) {
      this._finished = true;
      const held = this._held;
      this._held = '';
      if (this._phase === 'thinking') {
        // An unclosed think block (the reply was cut, or the model never closed it) is reasoning.
        out.reasoning = held;
      } else if (this._phase !== 'after') {
        out.content = held;
      }
    }
    return out;
  }

  /** Decides a prefix of `text`; returns the rest still to decide ('' when all is decided or held). */
  private _step(text: string, out: ThinkSplit): string {
    switch (this._phase) {
      case 'start': {
        const lead = /^\s*/.exec(text)?.[0].length ?? 0;
        const rest = text.slice(lead);
        if (rest.startsWith(OPENER)) {
          this._phase = 'thinking';
          this._opened = true;
          return rest.slice(OPENER.length);
        }
        if (rest === '' || OPENER.startsWith(rest)) {
          this._held = text;
          return '';
        }
        this._phase = 'answer';
        return text;
      }
      case 'thinking': {
        const close = text.indexOf(CLOSER);
        if (close >= 0) {
          out.reasoning += text.slice(0, close);
          this._phase = 'after';
          return text.slice(close + CLOSER.length);
        }
        const keep = partialTagAtEnd(text, CLOSER);
        out.reasoning += text.slice(0, text.length - keep);
        this._held = text.slice(text.length - keep);
        return '';
      }
      case 'after': {
        const rest = text.replace(/^\s+/, '');
        if (rest) {
          this._phase = 'answer';
        }
        return rest;
      }
      case 'answer':
        out.content += text;
        return '';
    }
  }
}

/** Splits a whole reply at once; the same result as any chunking through the splitter. */
export function splitThinkText(text: string): ThinkSplit {
  const splitter = new ThinkTagSplitter();
  const first = splitter.push(text);
  const last = splitter.finish();
  return { content: first.content + last.content, reasoning: first.reasoning + last.reasoning };
}
