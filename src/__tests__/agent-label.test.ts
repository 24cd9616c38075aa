/**
 * @jest-environment jsdom
 *
 * An agent's turn names its agent in the header ("via <name>"). The name comes from an MCP
 * client, or from a saved notebook's metadata on replay: markup stays text, a very long name is
 * cut, and characters that would change how the header reads (controls, line breaks, direction
 * overrides) are dropped.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import { MAX_AGENT_NAME } from '../tools/agent-turn';
import type { AssistantMessage } from '../tools/transcript';
import { agentLabel, SHOWN_AGENT_NAME } from '../widget/agent-label';
import { AssistantMessageView, type MessageActions } from '../widget/chat-items';
import { RenderQueue } from '../widget/markdown-view';

/** JupyterLab's formatting of `%1` (Gettext.strfmt), untranslated. */
function format(text: string, ...args: unknown[]): string {
  return text
    .replace(/%%/g, '%% ')
    .replace(/%(\d+)/g, (_match, index: string) => String(args[Number(index) - 1]))
    .replace(/%% /g, '%');
}

const trans: TranslationBundle = {
  __: format,
  _n: (one, many, n, ...args) => format(n === 1 ? one : many, ...args),
  _p: (_context, text, ...args) => format(text, ...args),
  _np: (_context, one, many, n, ...args) => format(n === 1 ? one : many, ...args),
  gettext: format,
  ngettext: (one, many, n, ...args) => format(n === 1 ? one : many, ...args),
  pgettext: (_context, text, ...args) => format(text, ...args),
  npgettext: (_context, one, many, n, ...args) => format(n === 1 ? one : many, ...args),
  dcnpgettext: (_domain, _context, one, many, n, ...args) => format(n === 1 ? one : many, ...args)
};

function turn(agent?: unknown): AssistantMessage {
  return {
    id: 'a1',
    role: 'assistant',
    content: '',
    status: 'completed',
    tool_calls: [{ id: 'c1', name: 'present_svg', arguments: {} }],
    ...(agent === undefined ? {} : { agent })
  };
}

/** The header's author element of an assistant message as the chat renders it. */
function author(message: AssistantMessage): HTMLElement {
  const actions: MessageActions = {
    trans,
    modelName: () => 'Model',
    copy: () => undefined,
    insertCode: () => undefined,
    retry: () => undefined,
    openSettings: () => undefined
  };
  const queue = new RenderQueue();
  const view = new AssistantMessageView(message, actions, {
    parser: null,
    sanitizer: { sanitize: (html: string) => html },
    queue,
    trans,
    allowRemoteImages: () => false,
    onRendered: () => undefined
  });
  view.update(message, false);
  queue.dispose();
  const element = view.node.querySelector<HTMLElement>('.jp-FigureChat-author');
  if (!element) {
    throw new Error('no author in the header');
  }
  return element;
}

describe('an agent turn names its agent', () => {
  it('shows "via <name>" on the header of an agent turn, the model name otherwise', () => {
    const agent = author(turn({ name: 'Terminal agent', via: 'mcp' }));
    expect(agent.textContent).toBe('via Terminal agent');
    expect(agent.classList.contains('jp-FigureChat-agent')).toBe(true);
    expect(agent.title).toBe('Called over MCP by Terminal agent');
    const model = author(turn());
    expect(model.textContent).toBe('Model');
    expect(model.classList.contains('jp-FigureChat-agent')).toBe(false);
  });

  it('keeps markup in a name as text', () => {
    const name = '<img src=x onerror="alert(1)"><b>b</b>';
    const element = author(turn({ name, via: 'mcp' }));
    expect(element.textContent).toBe(`via ${name}`);
    expect(element.children).toHaveLength(0);
    expect(element.closest('.jp-FigureChat-entry')?.querySelector('img, b')).toBeNull();
  });

  it('shows a name with % signs as it is (not through the translation formatting)', () => {
    expect(author(turn({ name: 'a %% b %1', via: 'mcp' })).textContent).toBe('via a %% b %1');
  });

  it('cuts a very long name in the header and in the tooltip', () => {
    const name = 'agent-'.repeat(20_000);
    const element = author(turn({ name, via: 'mcp' }));
    expect(element.textContent).toBe(`via ${name.slice(0, SHOWN_AGENT_NAME)}…`);
    expect(element.title).toBe(`Called over MCP by ${name.slice(0, MAX_AGENT_NAME)}`);
    // Code points, not UTF-16 units: no half of a surrogate pair is left at the cut.
    const emoji = agentLabel(turn({ name: '😀'.repeat(60), via: 'mcp' }));
    expect(emoji?.shown).toBe(`${'😀'.repeat(SHOWN_AGENT_NAME)}…`);
  });

  it('drops control, line-breaking and direction-changing characters', () => {
    const name = 'Evil\u0000\u0007\nagent\u202egnp.exe\u2066\u200b\u0085\u2028end\t';
    expect(author(turn({ name, via: 'mcp' })).textContent).toBe('via Evil agent gnp.exe end');
  });

  it('names no agent for a name that is not a non-empty string', () => {
    for (const agent of [
      null,
      'Terminal',
      { via: 'mcp' },
      { name: 42 },
      { name: '\u0000 \u202e' }
    ]) {
      expect(agentLabel(turn(agent))).toBeNull();
    }
  });
});
