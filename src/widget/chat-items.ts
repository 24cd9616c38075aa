/**
 * How one chat message looks: a header with the author ("You", the model's name, or "via <agent>"
 * on another agent's turn), the time and a copy button; the text (Markdown for the model, plain for the user); code blocks that scroll,
 * with copy / insert below / replace cell buttons; errors with Retry and a Settings link.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import type { AssistantMessage, UserMessage } from '../tools/transcript';
import { agentLabel, type AgentLabel } from './agent-label';
import { ChatMarkdown, type ChatMarkdownOptions } from './markdown-view';
import { renderThinking } from './thinking';

/**
 * An error's text: its first paragraph is what a person reads; the rest (a server's validation
 * dump, tens of lines of field paths) waits behind "Show details" so it never fills the chat.
 */
function errorText(text: string, trans: TranslationBundle): HTMLElement {
  const error = document.createElement('div');
  error.className = 'jp-FigureChat-error';
  error.setAttribute('role', 'alert');
  const split = text.indexOf('\n\n');
  if (split < 0) {
    error.textContent = text;
    return error;
  }
  const summary = document.createElement('div');
  summary.textContent = text.slice(0, split);
  const details = document.createElement('details');
  details.className = 'jp-FigureChat-errorDetails';
  const show = document.createElement('summary');
  show.textContent = trans.__('Show details');
  const body = document.createElement('pre');
  body.textContent = text.slice(split + 2);
  details.append(show, body);
  error.append(summary, details);
  return error;
}

/**
 * Where an agent's name goes in a translated text. The name is not given to the translation's
 * own `%1` formatting, which rewrites `%%` in what it inserts; a cleaned name has no NUL.
 */
const NAME = '\u0000';

function withName(template: string, name: string): string {
  return template.replace(NAME, () => name);
}

/** What message elements need from the chat. */
export interface MessageActions {
  readonly trans: TranslationBundle;
  /** The model's name as shown on its messages. */
  modelName(): string;
  copy(text: string): void;
  insertCode(code: string, mode: 'below' | 'replace'): void;
  retry(message: AssistantMessage): void;
  openSettings(): void;
}

function header(
  author: string,
  created: string | undefined,
  text: () => string,
  actions: MessageActions,
  agent: AgentLabel | null = null
): HTMLElement {
  const { trans } = actions;
  const element = document.createElement('div');
  element.className = 'jp-FigureChat-messageHeader';
  const name = document.createElement('span');
  name.className = 'jp-FigureChat-author';
  // Text only, never markup: the agent named itself.
  name.textContent = agent ? withName(trans.__('via %1', NAME), agent.shown) : author;
  if (agent) {
    name.classList.add('jp-FigureChat-agent');
    name.title = withName(trans.__('Called over MCP by %1', NAME), agent.full);
  }
  element.append(name);
  const date = created ? new Date(created) : null;
  if (date && !Number.isNaN(date.getTime())) {
    const time = document.createElement('time');
    time.className = 'jp-FigureChat-time';
    time.dateTime = date.toISOString();
    time.textContent = date.toLocaleString(undefined, {
      dateStyle: 'short',
      timeStyle: 'short'
    });
    element.append(time);
  }
  const copy = document.createElement('button');
  copy.type = 'button';
  copy.className = 'jp-FigureChat-copyMessage jp-FigureChat-iconButton';
  copy.textContent = trans.__('Copy');
  copy.title = trans.__('Copy this message as text');
  copy.onclick = () => actions.copy(text());
  element.append(copy);
  return element;
}

/**
 * A message with its header. The header sits outside the message element, so the message's text
 * is exactly what was said.
 */
function entry(kind: 'user' | 'assistant', head: HTMLElement, message: HTMLElement): HTMLElement {
  const element = document.createElement('div');
  element.className = `jp-FigureChat-entry jp-FigureChat-entry-mod-${kind}`;
  element.append(head, message);
  return element;
}

/** A user message. */
export function renderUserMessage(message: UserMessage, actions: MessageActions): HTMLElement {
  const element = document.createElement('div');
  element.className = 'jp-FigureChat-message jp-FigureChat-message-mod-user';
  const text = document.createElement('div');
  text.className = 'jp-FigureChat-userText';
  text.textContent = message.content;
  element.append(text);
  for (const address of message.attachments ?? []) {
    const chip = document.createElement('span');
    chip.className = 'jp-FigureChat-attachment';
    chip.textContent = address;
    element.append(chip);
  }
  const head = header(actions.trans.__('You'), message.created, () => message.content, actions);
  return entry('user', head, element);
}

/** Buttons on every code block of rendered Markdown. */
export function decorateCodeBlocks(root: HTMLElement, actions: MessageActions): void {
  const { trans } = actions;
  for (const pre of Array.from(root.querySelectorAll('pre'))) {
    // The plain-text rest of a long message is prose, not code: it wraps, with no cell buttons.
    if (
      pre.parentElement?.classList.contains('jp-FigureChat-code') ||
      pre.classList.contains('jp-FigureChat-plainText')
    ) {
      continue;
    }
    const code = (): string => pre.textContent ?? '';
    const wrapper = document.createElement('div');
    wrapper.className = 'jp-FigureChat-code';
    const bar = document.createElement('div');
    bar.className = 'jp-FigureChat-codeActions';
    const button = (action: string, label: string, title: string, run: () => void) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'jp-FigureChat-iconButton';
      b.dataset.action = action;
      b.textContent = label;
      b.title = title;
      b.onclick = run;
      return b;
    };
    bar.append(
      button('copy', trans.__('Copy'), trans.__('Copy the code'), () => actions.copy(code())),
      button('insert', trans.__('Insert below'), trans.__('Insert into a new cell below'), () =>
        actions.insertCode(code(), 'below')
      ),
      button('replace', trans.__('Replace cell'), trans.__('Replace the active cell'), () =>
        actions.insertCode(code(), 'replace')
      )
    );
    pre.replaceWith(wrapper);
    wrapper.append(bar, pre);
  }
}

/** An assistant message whose Markdown updates in place as it streams. */
export class AssistantMessageView {
  readonly node: HTMLElement;
  private readonly _bubble: HTMLElement;
  private readonly _markdown: ChatMarkdown;
  private readonly _footer: HTMLElement;
  private _thinking: HTMLElement | null = null;
  private _message: AssistantMessage;
  /** What `update` showed last (entries are replaced, never changed in place). */
  private _shown: AssistantMessage | null = null;
  private _live = false;

  constructor(
    message: AssistantMessage,
    private readonly _actions: MessageActions,
    markdown: Omit<ChatMarkdownOptions, 'onRendered'> & { onRendered(): void }
  ) {
    this._message = message;
    this._bubble = document.createElement('div');
    this._bubble.className = 'jp-FigureChat-message jp-FigureChat-message-mod-assistant';
    this.node = entry(
      'assistant',
      header(
        _actions.modelName(),
        message.created,
        () => this._message.content,
        _actions,
        agentLabel(message)
      ),
      this._bubble
    );
    this._markdown = new ChatMarkdown({
      ...markdown,
      onRendered: () => {
        decorateCodeBlocks(this._markdown.node, _actions);
        markdown.onRendered();
      }
    });
    this._footer = document.createElement('div');
    this._bubble.append(this._markdown.node, this._footer);
  }

  /**
   * Show the message as it is now. The chat calls this for every message on every render; a
   * message that did not change (the same stored object, as live as before) is left untouched, so
   * a change at the end of a 1,000-message chat writes nothing into the other 999.
   */
  update(message: AssistantMessage, live: boolean): void {
    if (message === this._shown && live === this._live) {
      return;
    }
    this._shown = message;
    this._live = live;
    this._message = message;
    const { trans } = this._actions;
    this._bubble.dataset.status = live ? 'streaming' : message.status;
    // The reasoning block is rebuilt as it streams; passing the bubble keeps it open if opened.
    const thinking = renderThinking(message, live, trans, this._bubble);
    this._thinking?.remove();
    this._thinking = thinking;
    if (thinking) {
      this._bubble.prepend(thinking);
    }
    this._markdown.node.hidden = !message.content;
    this._markdown.update(message.content, live);
    const footer: HTMLElement[] = [];
    if (typeof message.error === 'string') {
      const error = errorText(message.error, trans);
      const retry = document.createElement('button');
      retry.type = 'button';
      retry.className = 'jp-FigureChat-retry jp-mod-styled';
      retry.textContent = trans.__('Retry');
      retry.onclick = () => this._actions.retry(this._message);
      const settings = document.createElement('button');
      settings.type = 'button';
      settings.className = 'jp-FigureChat-openSettings jp-mod-styled';
      settings.textContent = trans.__('Settings → Figure Chat');
      settings.onclick = () => this._actions.openSettings();
      const row = document.createElement('div');
      row.className = 'jp-FigureChat-errorActions';
      row.append(retry, settings);
      footer.push(error, row);
    } else if (message.status === 'interrupted' && !live) {
      const note = document.createElement('div');
      note.className = 'jp-FigureChat-interrupted';
      note.textContent = trans.__('Interrupted');
      footer.push(note);
    }
    this._footer.replaceChildren(...footer);
  }
}
