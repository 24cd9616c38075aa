/**
 * Stored conversations for the browser benchmarks: user questions, answers in Markdown, `present_svg`
 * figures and `vision_show` close-ups of the tour notebook's picture, in the stored format (SPEC 4).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How many of each a benchmark conversation holds. */
export interface ConversationSize {
  readonly messages: number;
  readonly figures: number;
  readonly views: number;
}

/** The tour notebook, with a generated conversation in place of its own. */
export function benchNotebook(size: ConversationSize): Record<string, unknown> {
  const top = join(__dirname, '..', '..');
  const example = JSON.parse(readFileSync(join(top, 'examples', 'figure-chat-tour.ipynb'), 'utf8'));
  const stored = example.metadata.figure_chat.messages as Array<Record<string, unknown>>;
  const picture = stored.find(m => m.picture)?.picture as Record<string, unknown>;
  const svg = readFileSync(join(top, 'ui-tests', 'model', 'figure.svg'), 'utf8');
  example.metadata.figure_chat = { version: 1, messages: conversation(size, svg, picture) };
  return example;
}

function conversation(
  size: ConversationSize,
  svg: string,
  picture: Record<string, unknown>
): unknown[] {
  const messages: unknown[] = [];
  let figure = 0;
  let view = 0;
  // Figures and views spread evenly over the whole conversation, the last turn holding one, so the
  // newest screenful shows some, as a long real conversation would.
  const slots = size.figures + size.views;
  const turns = Math.max(slots, (size.messages - slots) / 2);
  const step = (count: number, total: number, at: number): boolean =>
    Math.floor(((at + 1) * count) / total) > Math.floor((at * count) / total);
  let slotIndex = 0;
  for (let turn = 0; messages.length < size.messages; turn++) {
    messages.push({
      id: `u${turn}`,
      role: 'user',
      content: `Question ${turn}: what about part ${turn}?`
    });
    const slot = turn < turns && step(slots, turns, turn);
    const wantView = slot && step(size.views, slots, slotIndex);
    if (slot) {
      slotIndex += 1;
    }
    if (wantView && view < size.views) {
      view += 1;
      messages.push({
        id: `a${turn}`,
        role: 'assistant',
        content: `A close-up ${view}.`,
        status: 'completed',
        tool_calls: [
          {
            id: `v${view}`,
            name: 'vision_show',
            arguments: { image: picture.address, at: [`${100 + view * 5},${60 + (view % 40) * 3}`] }
          }
        ]
      });
      messages.push({
        id: `t${turn}`,
        role: 'tool',
        tool_call_id: `v${view}`,
        status: 'completed',
        content: `Close-up ${view}.`,
        picture
      });
    } else if (slot && figure < size.figures) {
      figure += 1;
      messages.push({
        id: `a${turn}`,
        role: 'assistant',
        content: `Here is figure ${figure}.`,
        status: 'completed',
        tool_calls: [
          {
            id: `f${figure}`,
            name: 'present_svg',
            arguments: {
              svg: svg.replace('Pipeline', `Pipeline ${figure}`),
              alt: `Figure ${figure}`
            }
          }
        ]
      });
      messages.push({
        id: `t${turn}`,
        role: 'tool',
        tool_call_id: `f${figure}`,
        status: 'completed',
        content: `SVG presented inline: Figure ${figure}`
      });
    } else {
      messages.push({
        id: `a${turn}`,
        role: 'assistant',
        content: `Answer ${turn} with **Markdown** and a list:\n\n- one\n- two\n\n\`\`\`python\nprint(${turn})\n\`\`\``,
        status: 'completed'
      });
    }
  }
  return messages.slice(0, size.messages);
}
