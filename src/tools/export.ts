/**
 * The conversation as Markdown: user and assistant text, figures as their `alt` plus a fenced
 * `svg` block, other tool calls as readable one-line summaries. No transport markup, no pixels.
 */
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

/** Export the readable part of a conversation (unreadable entries are named, not dumped). */
export function exportMarkdown(transcript: {
  entries: ReadonlyArray<StoredMessage | UnreadableEntry>;
}): string {
  const results = new Map<string, ToolMessage>();
  for (const entry of transcript.entries) {
    if (entry.role === 'tool') {
      results.set(entry.tool_call_id, entry);
    }
  }
  const parts: string[] = ['# Figure Chat conversation'];
  for (const entry of transcript.entries) {
    switch (entry.role) {
      case 'user': {
        const attachments = entry.attachments?.length
          ? `\n\nAttached: ${entry.attachments.map(a => `\`${a}\``).join(', ')}`
          : '';
        parts.push(`## User\n\n${entry.content}${attachments}`);
        break;
      }
      case 'assistant': {
        const lines: string[] = ['## Assistant'];
        const text = stripTransportMarkup(entry.content).trim();
        if (text) {
          lines.push(text);
        }
        for (const call of entry.tool_calls ?? []) {
          const result = results.get(call.id);
          const status = result?.status ?? 'interrupted';
          const figure = status === 'completed' ? figureFromCall(call) : null;
          if (figure) {
            const fence = fenceFor(figure.svg);
            lines.push(`**Figure:** ${figure.alt}\n\n${fence}svg\n${figure.svg}\n${fence}`);
          } else {
            const summary = `**Tool \`${call.name}\`** (${status}): \`${argumentSummary(call.arguments)}\``;
            lines.push(result ? `${summary}\n\n${quote(result.content)}` : summary);
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
