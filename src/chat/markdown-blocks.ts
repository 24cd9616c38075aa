/**
 * Cutting Markdown into blocks so a streaming answer is rendered incrementally: every block but
 * the last is finished (a blank line outside a code fence ended it) and is rendered once; only the
 * open block is rendered again as text arrives. Also the per-message cap on what is rendered as
 * Markdown: rendering cost grows faster than the text (a stored 1 MB table took 16 s), so past
 * the cap the rest is plain text, shown on demand.
 */

/** Characters of one message rendered as Markdown (the longest live answer); the rest is plain. */
export const MARKDOWN_CHAR_LIMIT = 200_000;

/**
 * The longest single block rendered as Markdown. One block is rendered in one main-thread task, and
 * its cost grows faster than its length (tables most of all), so a longer block is plain text.
 */
export const MARKDOWN_BLOCK_LIMIT = 20_000;

/** The blocks of a Markdown text, each with where it starts. */
export interface MarkdownBlocks {
  /** Finished blocks (text includes its trailing blank line). */
  readonly blocks: ReadonlyArray<string>;
  /** The rest: the block still being written (may be empty). */
  readonly open: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Split text into finished blocks and the open rest. A blank line ends a block unless it is inside
 * a fenced code block. Scanning stops once the finished blocks pass `stopAfter` characters (the
 * rest is returned as `open`), so a huge stored message costs no more than the cap.
 */
export function splitBlocks(text: string, stopAfter = Infinity): MarkdownBlocks {
  const blocks: string[] = [];
  let start = 0;
  let fence: string | null = null;
  let position = 0;
  let sawText = false;
  while (position < text.length && position <= stopAfter) {
    // Look for the line's end only as far as the cap could still use: a 20 MB line is not scanned.
    const window = Number.isFinite(stopAfter)
      ? text.slice(position, Math.max(position, stopAfter) + 2)
      : text;
    const found = window.indexOf('\n', window === text ? position : 0);
    if (found < 0) {
      break; // the last line is unfinished (or past the cap): it belongs to the open block
    }
    let end = window === text ? found : position + found;
    const line = text.slice(position, end);
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = null;
      }
    } else if (marker) {
      fence = marker;
    }
    end += 1;
    if (!fence && line.trim() === '') {
      if (sawText) {
        blocks.push(text.slice(start, end));
        start = end;
        sawText = false;
      }
    } else {
      sawText = true;
    }
    position = end;
  }
  return { blocks, open: text.slice(start) };
}

/**
 * While a reply streams, the end of the open block may be half a tag (`<svg wid`): hold it back
 * until its `>` arrives so it does not flash as text.
 */
export function withoutUnfinishedTag(text: string): string {
  const match = /<\/?[A-Za-z!][^<>]*$/.exec(text);
  return match ? text.slice(0, match.index) : text;
}

/** What of a message is rendered as Markdown, and what is left as plain text. */
export interface MarkdownPlan {
  /** Blocks to render as Markdown, in order. */
  readonly blocks: ReadonlyArray<string>;
  /** Whether the last of `blocks` is still being written. */
  readonly lastOpen: boolean;
  /** Text past the cap, offered as plain text. */
  readonly rest: string;
}

/** Decide what of a message is rendered: whole blocks up to the cap, then plain text. */
export function planMarkdown(
  text: string,
  streaming: boolean,
  limit = MARKDOWN_CHAR_LIMIT,
  blockLimit = MARKDOWN_BLOCK_LIMIT
): MarkdownPlan {
  const split = splitBlocks(text, limit);
  const all = split.open ? [...split.blocks, split.open] : [...split.blocks];
  const blocks: string[] = [];
  let used = 0;
  for (let i = 0; i < all.length; i++) {
    const block = all[i];
    if (used + block.length > limit || block.length > blockLimit) {
      // A slice, not a join: the rest of a 20 MB message is not copied.
      return { blocks, lastOpen: false, rest: text.slice(used) };
    }
    used += block.length;
    blocks.push(block);
  }
  const lastOpen = streaming && split.open !== '';
  if (lastOpen) {
    blocks[blocks.length - 1] = withoutUnfinishedTag(blocks[blocks.length - 1]);
  }
  return { blocks, lastOpen, rest: '' };
}
