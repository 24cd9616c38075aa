/**
 * The conversation as Markdown: one heading per turn (the model's own headings are moved below
 * it, so they never collide), user and assistant text, other tool calls as readable one-line
 * summaries, and no transport markup. Figures are their `alt` plus a fenced `svg` block, so the
 * Markdown stands alone; with {@link ExportAssets} (pictures written beside the Markdown),
 * figures and vision views are images that any Markdown preview shows.
 */
import { pinTargets, type PinTarget } from './pin-source';
import { figureFromCall } from './svg';
import { stripTransportMarkup } from './toolcalls';
import type { StoredMessage, ToolMessage, UnreadableEntry } from './transcript';

/** A fence longer than any run of backticks in `text`. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), match => match[0].length));
  return '`'.repeat(longest + 1);
}

function quote(text: string): string {
  return text
    .split('\n')
    .map(line => `> ${line}`)
    .join('\n');
}

function argumentSummary(args: Record<string, unknown>): string {
  const text = JSON.stringify(args);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Pictures written beside the Markdown, by call id, as paths relative to the Markdown file. */
export interface ExportAssets {
  figure(callId: string): string | undefined;
  views(callId: string): ReadonlyArray<{ readonly path: string; readonly caption: string }>;
}

/** A file name part of letters, digits, `_` and `-` only, so every file system takes it. */
export function safeFileName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

/** The stem of export file names: the notebook's name without `.ipynb`, made safe. */
export function exportStem(notebookPath: string): string {
  const name = notebookPath.split(/[\\/]/).pop() ?? '';
  return safeFileName(name.replace(/\.ipynb$/i, '')) || 'notebook';
}

/**
 * How one exporter draws pictures: the figure server's own renderer for the CLI, the figure
 * server over HTTP for the browser. Each throws with a message a person can act on when it
 * cannot draw (a refused SVG, a missing or changed picture).
 */
export interface AssetDrawer<T> {
  figure(target: Extract<PinTarget, { kind: 'figure' }>): Promise<T>;
  view(target: Extract<PinTarget, { kind: 'vision' }>): Promise<{ data: T; caption: string }>;
}

/** The pictures of an export, drawn: files to write, what could not be drawn, and the links. */
export interface DrawnAssets<T> {
  readonly files: ReadonlyArray<{ readonly name: string; readonly data: T }>;
  /** One line per figure or view that could not be drawn, naming it and why. */
  readonly failures: readonly string[];
  /** The links for {@link exportMarkdown}, as paths under `folder` (`''`: beside the Markdown). */
  links(folder: string): ExportAssets;
}

/**
 * Draw every figure (`.svg`) and view (`.png`) of a conversation for an export, with names made of
 * the notebook's stem, a running number and the call id, so the same conversation always gives
 * the same names. Both the CLI and the chat's Export button use this; only drawing differs.
 */
export async function drawExportAssets<T>(
  messages: readonly StoredMessage[],
  stem: string,
  drawer: AssetDrawer<T>
): Promise<DrawnAssets<T>> {
  const files: Array<{ name: string; data: T }> = [];
  const figures = new Map<string, string>();
  const views = new Map<string, Array<{ path: string; caption: string }>>();
  const failures: string[] = [];
  let figureCount = 0;
  let viewCount = 0;
  for (const target of pinTargets(messages)) {
    const call = target.source.call;
    try {
      if (target.kind === 'figure') {
        const data = await drawer.figure(target);
        figureCount += 1;
        const name = `${stem}-figure-${String(figureCount).padStart(3, '0')}-${safeFileName(call)}.svg`;
        files.push({ name, data });
        figures.set(call, name);
        continue;
      }
      const { data, caption } = await drawer.view(target);
      viewCount += 1;
      const name = `${stem}-view-${String(viewCount).padStart(3, '0')}-${safeFileName(call)}-${target.index + 1}.png`;
      files.push({ name, data });
      const list = views.get(call) ?? [];
      list.push({ path: name, caption });
      views.set(call, list);
    } catch (error) {
      const what = target.kind === 'figure' ? 'figure' : `view ${target.index + 1}`;
      failures.push(`${what} of call ${call}: ${error instanceof Error ? error.message : error}`);
    }
  }
  return {
    files,
    failures,
    links: folder => {
      const under = (name: string): string => (folder ? `${folder}/${name}` : name);
      return {
        figure: id => {
          const name = figures.get(id);
          return name === undefined ? undefined : under(name);
        },
        views: id => (views.get(id) ?? []).map(view => ({ ...view, path: under(view.path) }))
      };
    }
  };
}

/** Headings inside a turn start at this level (the turn's own heading is `##`). */
const FIRST_INNER_LEVEL = 3;

/** Move the model's Markdown headings below the turn heading (outside code fences). */
function demoteHeadings(text: string): string {
  let fence: string | null = null;
  return text
    .split('\n')
    .map(line => {
      const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (opener) {
        if (fence === null) {
          fence = opener;
        } else if (opener.startsWith(fence)) {
          fence = null;
        }
        return line;
      }
      const heading = fence === null ? /^\s{0,3}(#{1,6})(\s|$)/.exec(line) : null;
      if (!heading) {
        return line;
      }
      const level = Math.min(6, heading[1].length + FIRST_INNER_LEVEL - 1);
      return line.replace(heading[1], '#'.repeat(level));
    })
    .join('\n');
}

/** A Markdown image; the alt text on one line, without brackets that would end it. */
function image(alt: string, path: string): string {
  const text = alt.replace(/\s+/g, ' ').replace(/([\\[\]])/g, '\\$1');
  return `![${text}](${path.split('/').map(encodeURIComponent).join('/')})`;
}

/** Export the readable part of a conversation (unreadable entries are named, not dumped). */
export function exportMarkdown(
  transcript: {
    entries: ReadonlyArray<StoredMessage | UnreadableEntry>;
  },
  assets?: ExportAssets
): string {
  const results = new Map<string, ToolMessage>();
  for (const entry of transcript.entries) {
    if (entry.role === 'tool') {
      results.set(entry.tool_call_id, entry);
    }
  }
  const parts: string[] = ['# Figure Chat conversation'];
  let turn = 0;
  const startTurn = (): void => {
    turn += 1;
    parts.push(`## Turn ${turn}`);
  };
  for (const entry of transcript.entries) {
    switch (entry.role) {
      case 'user': {
        startTurn();
        const attachments = entry.attachments?.length
          ? `\n\nAttached: ${entry.attachments.map(a => `\`${a}\``).join(', ')}`
          : '';
        parts.push(`**User:**\n\n${demoteHeadings(entry.content)}${attachments}`);
        break;
      }
      case 'assistant': {
        if (turn === 0) {
          startTurn();
        }
        const lines: string[] = ['**Assistant:**'];
        const text = demoteHeadings(stripTransportMarkup(entry.content).trim());
        if (text) {
          lines.push(text);
        }
        for (const call of entry.tool_calls ?? []) {
          const result = results.get(call.id);
          const status = result?.status ?? 'interrupted';
          const figure = status === 'completed' ? figureFromCall(call) : null;
          const figureFile = figure ? assets?.figure(call.id) : undefined;
          if (figure && figureFile !== undefined) {
            lines.push(`**Figure:** ${figure.alt}\n\n${image(figure.alt, figureFile)}`);
          } else if (figure) {
            const fence = fenceFor(figure.svg);
            lines.push(`**Figure:** ${figure.alt}\n\n${fence}svg\n${figure.svg}\n${fence}`);
          } else {
            const summary = `**Tool \`${call.name}\`** (${status}): \`${argumentSummary(call.arguments)}\``;
            lines.push(result ? `${summary}\n\n${quote(result.content)}` : summary);
            for (const view of assets?.views(call.id) ?? []) {
              lines.push(`${image(view.caption, view.path)}\n\n_${view.caption}_`);
            }
          }
        }
        if (entry.status === 'interrupted') {
          lines.push(`_(interrupted${typeof entry.error === 'string' ? `: ${entry.error}` : ''})_`);
        }
        parts.push(lines.join('\n\n'));
        break;
      }
      case 'tool':
        break;
      case 'unreadable':
        parts.push(`_(unreadable entry ${entry.index}: ${entry.reason})_`);
        break;
    }
  }
  return `${parts.join('\n\n')}\n`;
}
