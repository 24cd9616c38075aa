/**
 * An assistant message's Markdown, rendered safely and incrementally. Text goes through
 * JupyterLab's Markdown parser and sanitizer, then through `blockRemoteResources` while still
 * inert, and only then into the page. Finished blocks are rendered once; while a reply streams only
 * its open block is rendered again. Past `MARKDOWN_CHAR_LIMIT` the rest is plain text behind a
 * button. All rendering goes through a `RenderQueue`, which yields to the browser between jobs so
 * no single task grows with the conversation. A stored message far from the visible area shows its
 * text as it is (found by find-in-page, read by screen readers) and is rendered only when it comes
 * near: a reopened 200-message conversation no longer parses and sanitizes every answer while its
 * figures and views are being drawn.
 */
import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { TranslationBundle } from '@jupyterlab/translation';

import { MARKDOWN_CHAR_LIMIT, planMarkdown } from '../chat/markdown-blocks';
import { blockRemoteResources, loadBlocked } from './privacy';

/** Plain text shown per click on "show more". */
export const PLAIN_TEXT_STEP = 100_000;

/** Plain text shown at once past the Markdown cap. */
export const PLAIN_TEXT_PREVIEW = 2_000;

/** Main-thread time one queue turn may take before it yields (well under a 50 ms long task). */
const QUEUE_SLICE_MS = 30;

/** Runs render jobs newest first, yielding to the browser between slices. */
export class RenderQueue {
  private readonly _jobs = new Map<object, () => Promise<void>>();
  private _running = false;
  private _disposed = false;

  /** Schedule a job for an owner, replacing any pending job of the same owner. */
  schedule(owner: object, job: () => Promise<void>): void {
    this._jobs.delete(owner);
    this._jobs.set(owner, job);
    if (!this._running) {
      this._running = true;
      setTimeout(() => void this._run(), 0);
    }
  }

  /** Resolve once every scheduled job has run (tests and benchmarks wait on it). */
  get idle(): boolean {
    return !this._running;
  }

  dispose(): void {
    this._disposed = true;
    this._jobs.clear();
  }

  private async _run(): Promise<void> {
    const started = performance.now();
    while (this._jobs.size && !this._disposed) {
      // Newest first: the end of the conversation is what the reader sees.
      const owner = [...this._jobs.keys()].pop() as object;
      const job = this._jobs.get(owner) as () => Promise<void>;
      this._jobs.delete(owner);
      try {
        await job();
      } catch (error) {
        console.error('Figure Chat: a message could not be rendered', error);
      }
      if (performance.now() - started > QUEUE_SLICE_MS) {
        break;
      }
    }
    if (this._jobs.size && !this._disposed) {
      setTimeout(() => void this._run(), 0);
    } else {
      this._running = false;
    }
  }
}

/** What a Markdown view needs. */
export interface ChatMarkdownOptions {
  readonly parser: IRenderMime.IMarkdownParser | null;
  readonly sanitizer: IRenderMime.ISanitizer;
  readonly queue: RenderQueue;
  readonly trans: TranslationBundle;
  allowRemoteImages(): boolean;
  /** Called after the rendered height may have changed. */
  onRendered(): void;
  /**
   * Call `render` once `node` comes near the visible area (at once where that cannot be told).
   * Without it, every message is rendered at once.
   */
  whenNear?(node: HTMLElement, render: () => void): void;
}

/** The rendered Markdown of one message. */
export class ChatMarkdown {
  readonly node: HTMLElement;
  private readonly _blocks: Array<{ text: string; element: HTMLElement }> = [];
  private readonly _rest: HTMLElement;
  private _text = '';
  private _streaming = false;
  private _restText = '';
  private _restShown = 0;
  /** The text as it is, shown until the first render (null once rendered, or never needed). */
  private _waiting: HTMLElement | null = null;

  constructor(private readonly _options: ChatMarkdownOptions) {
    this.node = document.createElement('div');
    this.node.className = 'jp-FigureChat-markdown jp-RenderedHTMLCommon';
    this._rest = document.createElement('div');
    this._rest.className = 'jp-FigureChat-plainRest';
    this._rest.hidden = true;
    this.node.append(this._rest);
    this.node.addEventListener('click', event => {
      const target = event.target;
      if (target instanceof Element) {
        const blocked = target.closest('.jp-FigureChat-blocked');
        if (blocked && loadBlocked(blocked)) {
          this._options.onRendered();
        }
      }
    });
  }

  /** The text shown. */
  get text(): string {
    return this._text;
  }

  /** Show a (longer) text; only what changed is rendered again, later, off this task. */
  update(text: string, streaming: boolean): void {
    if (text === this._text && streaming === this._streaming) {
      return;
    }
    this._text = text;
    this._streaming = streaming;
    const { whenNear } = this._options;
    if (this._waiting && !streaming) {
      // Still waiting to come near: only the text as it is changes.
      this._waiting.textContent = text.slice(0, MARKDOWN_CHAR_LIMIT);
      return;
    }
    if (!this._waiting && !this._blocks.length && !streaming && whenNear) {
      // A finished message not rendered yet (a stored one): its text now, Markdown when near.
      const plain = document.createElement('div');
      plain.className = 'jp-FigureChat-block jp-FigureChat-block-mod-waiting';
      plain.textContent = text.slice(0, MARKDOWN_CHAR_LIMIT);
      this._rest.before(plain);
      this._waiting = plain;
      whenNear(this.node, () => this._schedule());
      return;
    }
    this._schedule();
  }

  private _schedule(): void {
    this._options.queue.schedule(this, () => this._render());
  }

  private async _render(): Promise<void> {
    const source = this._text;
    const streaming = this._streaming;
    const plan = planMarkdown(source, streaming);
    let sliceStart = performance.now();
    for (let i = 0; i < plan.blocks.length; i++) {
      if (performance.now() - sliceStart > QUEUE_SLICE_MS) {
        // Many blocks (a long stored answer): let the browser paint and handle input between them.
        await new Promise(resolve => setTimeout(resolve, 0));
        sliceStart = performance.now();
      }
      const text = plan.blocks[i];
      const existing = this._blocks[i];
      if (existing && existing.text === text) {
        continue;
      }
      const element = await this._renderBlock(text);
      const current = this._blocks[i];
      if (current) {
        current.element.replaceWith(element);
      } else {
        this._rest.before(element);
      }
      this._blocks[i] = { text, element };
    }
    for (const stale of this._blocks.splice(plan.blocks.length)) {
      stale.element.remove();
    }
    this._showRest(plan.rest);
    // Replaced only now, so the message never shows empty in between.
    this._waiting?.remove();
    this._waiting = null;
    this._options.onRendered();
    if (this._text !== source || this._streaming !== streaming) {
      // Changed while this render awaited the parser: an update then may have only refreshed the
      // waiting text just removed, and scheduled nothing (a collaborator's finished answer,
      // arriving while its mid-stream copy rendered, was never shown).
      this._schedule();
    }
  }

  private async _renderBlock(text: string): Promise<HTMLElement> {
    const element = document.createElement('div');
    element.className = 'jp-FigureChat-block';
    const { parser, sanitizer, trans } = this._options;
    if (!parser) {
      element.textContent = text;
      element.classList.add('jp-FigureChat-block-mod-plain');
      return element;
    }
    const html = sanitizer.sanitize(await parser.render(text));
    // Parsed into an inert template: nothing in it loads until it is filtered and imported.
    const template = document.createElement('template');
    template.innerHTML = html;
    blockRemoteResources(template.content, {
      allowRemoteImages: this._options.allowRemoteImages(),
      label: (kind, host) =>
        kind === 'image'
          ? trans.__('Image from %1 not loaded — click to load', host)
          : trans.__('Media from %1 not loaded — click to load', host),
      relativeLabel: (kind, address) =>
        kind === 'image'
          ? trans.__(
              'Image "%1" not shown: a relative image address, which the chat does not load',
              address
            )
          : trans.__(
              'Media "%1" not shown: a relative address, which the chat does not load',
              address
            ),
      title: url =>
        trans.__(
          'Remote content can tell its server that you read this, and what the model put in its address: %1',
          url.slice(0, 300)
        )
    });
    // Moved, not cloned: the placeholders keep their link to the inert original they load.
    element.append(...Array.from(template.content.childNodes));
    return element;
  }

  private _showRest(rest: string): void {
    if (rest === this._restText) {
      return;
    }
    this._restText = rest;
    this._restShown = 0;
    this._rest.hidden = !rest;
    this._rest.replaceChildren();
    if (rest) {
      this._appendRest();
    }
  }

  private _plain(from: number, length: number): HTMLElement {
    const pre = document.createElement('pre');
    pre.className = 'jp-FigureChat-plainText';
    pre.textContent = this._restText.slice(from, from + length);
    return pre;
  }

  /** The next step of the plain-text rest, and a button for the one after. */
  private _appendRest(): void {
    const { trans } = this._options;
    this._rest.querySelector('.jp-FigureChat-showMore')?.remove();
    if (this._restShown === 0) {
      const note = document.createElement('div');
      note.className = 'jp-FigureChat-plainNote';
      note.textContent = trans.__(
        'This message is long: the part below is shown as plain text (%1 characters).',
        this._restText.length
      );
      this._rest.append(note);
      // A preview at once, so the message never looks empty; more on demand.
      this._rest.append(this._plain(0, PLAIN_TEXT_PREVIEW));
      this._restShown = PLAIN_TEXT_PREVIEW;
    }
    const left = this._restText.length - this._restShown;
    if (left <= 0) {
      return;
    }
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'jp-FigureChat-showMore jp-mod-styled';
    button.textContent = trans.__(
      'Show %1 more characters',
      Math.min(left, PLAIN_TEXT_STEP).toLocaleString()
    );
    button.onclick = () => {
      button.replaceWith(this._plain(this._restShown, PLAIN_TEXT_STEP));
      this._restShown += PLAIN_TEXT_STEP;
      this._appendRest();
      this._options.onRendered();
    };
    this._rest.append(button);
  }
}
