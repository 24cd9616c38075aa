/**
 * The pure parts of the chat UI: Markdown cut into blocks (incremental rendering and the per-message
 * cap), duplicate ids shown and paired by position, typed settings from the schema, registrations
 * that can be taken back, and a newer version's conversation left alone.
 */
import { buildChatItems, countDuplicateIds } from '../chat/cards';
import { Conversation } from '../chat/conversation';
import {
  MARKDOWN_BLOCK_LIMIT,
  MARKDOWN_CHAR_LIMIT,
  planMarkdown,
  splitBlocks,
  withoutUnfinishedTag
} from '../chat/markdown-blocks';
import { defaultSettings, parseSettings } from '../chat/settings';
import { ToolRegistry, DuplicateToolError } from '../tools/registry';
import { loadTranscript } from '../tools/transcript';
import { notebookReadTool } from '../chat/tools/notebook-read';

describe('splitBlocks', () => {
  it('ends a block at a blank line, but not inside a code fence', () => {
    const text = 'Para one\nstill one\n\n```py\na = 1\n\nb = 2\n```\n\nopen par';
    const { blocks, open } = splitBlocks(text);
    expect(blocks).toEqual(['Para one\nstill one\n\n', '```py\na = 1\n\nb = 2\n```\n\n']);
    expect(open).toBe('open par');
    expect(blocks.join('') + open).toBe(text);
  });

  it('keeps finished blocks identical as text is appended (they are rendered once)', () => {
    const text = '# Title\n\nSome words.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nEnd';
    let previous: string[] = [];
    for (let i = 1; i <= text.length; i++) {
      const { blocks } = splitBlocks(text.slice(0, i));
      expect(blocks.slice(0, previous.length)).toEqual(previous);
      previous = [...blocks];
    }
    expect(previous).toHaveLength(3);
  });
});

describe('planMarkdown', () => {
  it('renders whole blocks up to the cap and leaves the rest as plain text', () => {
    const row = '| cell | cell |\n';
    const table = '| a | b |\n|---|---|\n' + row.repeat(400_000 / row.length);
    const text = 'Intro\n\n' + table;
    const plan = planMarkdown(text, false);
    expect(plan.blocks).toEqual(['Intro\n\n']);
    expect(plan.rest).toBe(table);
    expect(plan.blocks.join('').length).toBeLessThanOrEqual(MARKDOWN_BLOCK_LIMIT);
  });

  it('renders many small blocks up to the total cap', () => {
    const paragraph = 'word '.repeat(20) + '\n\n';
    const text = paragraph.repeat(Math.ceil((MARKDOWN_CHAR_LIMIT * 1.5) / paragraph.length));
    const plan = planMarkdown(text, false);
    const rendered = plan.blocks.join('').length;
    expect(rendered).toBeLessThanOrEqual(MARKDOWN_CHAR_LIMIT);
    expect(rendered).toBeGreaterThan(MARKDOWN_CHAR_LIMIT - paragraph.length);
    expect(plan.blocks.join('') + plan.rest).toBe(text);
  });

  it('costs no more than the cap for a 20 MB message', () => {
    const text = 'x'.repeat(20_000_000);
    const started = Date.now();
    const plan = planMarkdown(text, false);
    expect(plan.blocks).toEqual([]);
    expect(plan.rest.length).toBe(text.length);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('holds back a half-written tag while streaming', () => {
    expect(withoutUnfinishedTag('Here: <svg width="1')).toBe('Here: ');
    expect(withoutUnfinishedTag('a < b and c')).toBe('a < b and c');
    const plan = planMarkdown('Look\n\nnow <sv', true);
    expect(plan.blocks).toEqual(['Look\n\n', 'now ']);
    expect(plan.lastOpen).toBe(true);
    expect(planMarkdown('now <sv', false).blocks).toEqual(['now <sv']);
  });
});

describe('duplicate message ids', () => {
  const turn = [
    { id: 'u1', role: 'user', content: 'draw' },
    {
      id: 'a1',
      role: 'assistant',
      content: 'here',
      status: 'completed',
      tool_calls: [{ id: 'c1', name: 'notebook_read', arguments: {} }]
    },
    { id: 't1', role: 'tool', tool_call_id: 'c1', status: 'completed', content: 'first' }
  ];
  const second = JSON.parse(JSON.stringify(turn));
  second[2].content = 'second';
  const loaded = loadTranscript({ version: 1, messages: [...turn, ...second] });

  it('shows every entry and pairs tool results by position', () => {
    const items = buildChatItems(loaded.entries);
    expect(items.map(item => item.kind)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
      'tool'
    ]);
    const results = items.flatMap(item => (item.kind === 'tool' ? [item.result?.content] : []));
    expect(results).toEqual(['first', 'second']);
    expect(countDuplicateIds(loaded.entries)).toBe(3);
  });

  it('still shows a result no call took', () => {
    const stray = loadTranscript({
      version: 1,
      messages: [
        ...turn,
        { id: 't9', role: 'tool', tool_call_id: 'c1', status: 'completed', content: 'extra' }
      ]
    });
    const kinds = buildChatItems(stray.entries).map(item => item.kind);
    expect(kinds).toEqual(['user', 'assistant', 'tool', 'orphan-result']);
  });
});

describe('settings parsed from the schema', () => {
  it('takes its defaults from schema/plugin.json', () => {
    const schema = require('../../schema/plugin.json') as {
      properties: Record<string, { default: unknown }>;
    };
    const defaults = defaultSettings();
    for (const [key, property] of Object.entries(schema.properties)) {
      expect(defaults[key as keyof typeof defaults]).toEqual(property.default);
    }
    expect(defaults.allowRemoteImages).toBe(false);
  });

  it('keeps values that fit and ignores, by name, values that do not', () => {
    const { settings, ignored } = parseSettings({
      model: 'llama',
      maxToolRounds: 'many',
      temperature: 9,
      allowRemoteImages: true
    });
    expect(settings.model).toBe('llama');
    expect(settings.allowRemoteImages).toBe(true);
    expect(settings.maxToolRounds).toBe(defaultSettings().maxToolRounds);
    expect(ignored.sort()).toEqual(['maxToolRounds', 'temperature']);
  });

  it('refuses a schema whose defaults do not fit', () => {
    expect(() => defaultSettings({ properties: { model: { default: 3 } } })).toThrow(
      /schema\/plugin.json defaults/
    );
  });
});

describe('registrations return a disposable', () => {
  it('removes the tool again, and the name can be registered anew', () => {
    const registry = new ToolRegistry();
    const registration = registry.register(notebookReadTool);
    expect(registry.names).toEqual(['notebook_read']);
    expect(() => registry.register(notebookReadTool)).toThrow(DuplicateToolError);
    registration.dispose();
    expect(registration.isDisposed).toBe(true);
    expect(registry.names).toEqual([]);
    registry.register(notebookReadTool);
    registration.dispose();
    expect(registry.names).toEqual(['notebook_read']);
  });
});

describe('a conversation from a newer version', () => {
  it('is marked newer, so "New" leaves it alone', () => {
    const conversation = new Conversation();
    conversation.load({ version: 999, messages: [], future: { keep: true } });
    expect(conversation.problem).toMatch(/999/);
    expect(conversation.isNewer).toBe(true);
    conversation.load({ version: 1, messages: [] });
    expect(conversation.isNewer).toBe(false);
  });
});
