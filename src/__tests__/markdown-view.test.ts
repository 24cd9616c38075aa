/**
 * @jest-environment jsdom
 *
 * ChatMarkdown shows the newest text of a stored message however its renders and updates
 * interleave. Seen in collaboration: the second client got an answer written mid-stream, then the
 * finished one while the first was still being rendered, and kept showing the first for good.
 */
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { TranslationBundle } from '@jupyterlab/translation';

import { ChatMarkdown, RenderQueue } from '../widget/markdown-view';

const trans = { __: (text: string) => text } as unknown as TranslationBundle;

/** A Markdown parser whose first render waits until `release` is called; later ones do not. */
function heldParser(): { parser: IRenderMime.IMarkdownParser; release: () => void } {
  let release = (): void => undefined;
  let first = true;
  const parser = {
    render(source: string): Promise<string> {
      const html = `<p>${source}</p>`;
      if (!first) {
        return Promise.resolve(html);
      }
      first = false;
      return new Promise(resolve => {
        release = () => resolve(html);
      });
    }
  };
  return { parser, release: () => release() };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) {
    await new Promise(resolve => setTimeout(resolve, 5));
  }
  expect(condition()).toBe(true);
}

function markdown(parser: IRenderMime.IMarkdownParser, queue: RenderQueue): ChatMarkdown {
  return new ChatMarkdown({
    parser,
    sanitizer: { sanitize: (html: string) => html } as IRenderMime.ISanitizer,
    queue,
    trans,
    allowRemoteImages: () => false,
    onRendered: () => undefined,
    // In view at once: rendered as soon as the queue runs.
    whenNear: (_node, render) => render()
  });
}

describe('ChatMarkdown', () => {
  it('shows a stored message changed while its first render is still running', async () => {
    const queue = new RenderQueue();
    const { parser, release } = heldParser();
    const view = markdown(parser, queue);
    document.body.append(view.node);

    view.update('I read the notebook: ', false);
    // The queue has started the render of that text, which now waits on the parser.
    await until(() => !queue.idle);
    await new Promise(resolve => setTimeout(resolve, 10));
    view.update('I read the notebook: it has cells.', false);
    release();

    await until(() => queue.idle);
    expect(view.node.textContent).toContain('I read the notebook: it has cells.');
    expect(view.node.querySelectorAll('.jp-FigureChat-block')).toHaveLength(1);
    queue.dispose();
  });

  it('shows the newest of a streamed message changed while a render is running', async () => {
    const queue = new RenderQueue();
    const { parser, release } = heldParser();
    const view = markdown(parser, queue);
    document.body.append(view.node);

    view.update('Hello', true);
    await until(() => !queue.idle);
    await new Promise(resolve => setTimeout(resolve, 10));
    view.update('Hello, world.', false);
    release();

    await until(() => queue.idle);
    expect(view.node.textContent).toContain('Hello, world.');
    queue.dispose();
  });
});
