/**
 * The stored format (SPEC section 4.1) round-trips: unknown fields kept at the top level, in
 * messages, tool calls and picture fingerprints; unreadable entries kept verbatim in place; an
 * unknown version or a value of the wrong shape reported as a problem, never thrown.
 */
import { Conversation } from '../chat/conversation';
import {
  TRANSCRIPT_VERSION,
  isReadable,
  loadTranscript,
  storeTranscript,
  type StoredMessage
} from '../tools/transcript';
import { figureSvg } from './helpers/transcripts';

const sha = 'a'.repeat(64);

function stored(): Record<string, unknown> {
  return {
    version: 1,
    written_by: { program: 'another-tool', version: '9.1' },
    messages: [
      {
        id: 'm1',
        role: 'user',
        content: 'Sketch the pipeline',
        created: '2026-11-30T14:00:00Z',
        attachments: ['cell:5f3c/0'],
        mood: 'curious'
      },
      {
        id: 'm2',
        role: 'assistant',
        content: 'Here it is.',
        status: 'completed',
        tokens: { in: 10, out: 20 },
        tool_calls: [
          {
            id: 'c1',
            name: 'present_svg',
            arguments: { svg: figureSvg('three stages'), alt: 'Three stages', extra: [1] },
            provider_id: 'x-99'
          },
          { id: 'c2', name: 'vision_mark', arguments: { marks: [{ at: '1,2', caption: 'é' }] } }
        ]
      },
      {
        id: 'm3',
        role: 'tool',
        tool_call_id: 'c1',
        status: 'completed',
        content: 'SVG presented inline: Three stages'
      },
      {
        id: 'm4',
        role: 'tool',
        tool_call_id: 'c2',
        status: 'completed',
        content: 'Marked 1 point',
        picture: { address: 'cell:5f3c/0', sha256: sha, width: 640, height: 480, format: 'png' }
      },
      { id: 'm5', role: 'assistant', content: 'Cut', status: 'streaming' },
      42,
      { role: 'user', content: 'no id' },
      { id: 'm8', role: 'narrator', content: 'unknown role' },
      {
        id: 'm9',
        role: 'tool',
        tool_call_id: 'c2',
        status: 'completed',
        content: 'x',
        picture: { sha256: 'nope' }
      },
      {
        id: 'm10',
        role: 'assistant',
        content: 'After the damage.',
        status: 'interrupted',
        error: 'HTTP 502'
      }
    ]
  };
}

describe('loadTranscript / storeTranscript', () => {
  it('writes back exactly what it read, unknown fields and unreadable entries included', () => {
    const original = stored();
    const snapshot = JSON.parse(JSON.stringify(original)) as Record<string, unknown>;
    const loaded = loadTranscript(original);
    expect(loaded.problem).toBeUndefined();
    expect(loaded.extra).toEqual({ written_by: { program: 'another-tool', version: '9.1' } });
    expect(
      loaded.entries.map(entry => (isReadable(entry) ? entry.id : `unreadable@${entry.index}`))
    ).toEqual([
      'm1',
      'm2',
      'm3',
      'm4',
      'unreadable@4',
      'unreadable@5',
      'unreadable@6',
      'unreadable@7',
      'unreadable@8',
      'm10'
    ]);
    const back = storeTranscript(loaded.extra, loaded.entries);
    expect(back).toEqual(snapshot);
    // And through JSON, as the notebook file holds it.
    expect(JSON.parse(JSON.stringify(back))).toEqual(snapshot);
    // Loading did not change the input.
    expect(original).toEqual(snapshot);
  });

  it('keeps unreadable entries verbatim and says why they could not be read', () => {
    const loaded = loadTranscript(stored());
    const unreadable = loaded.entries.filter(entry => !isReadable(entry));
    expect(unreadable.map(entry => (isReadable(entry) ? null : entry.raw))).toEqual([
      { id: 'm5', role: 'assistant', content: 'Cut', status: 'streaming' },
      42,
      { role: 'user', content: 'no id' },
      { id: 'm8', role: 'narrator', content: 'unknown role' },
      {
        id: 'm9',
        role: 'tool',
        tool_call_id: 'c2',
        status: 'completed',
        content: 'x',
        picture: { sha256: 'nope' }
      }
    ]);
    for (const entry of unreadable) {
      expect(isReadable(entry) ? '' : entry.reason).not.toBe('');
    }
    const m5 = unreadable[0];
    expect(isReadable(m5) ? '' : m5.reason).toContain('status');
  });

  it('keeps unknown fields on readable messages as typed values', () => {
    const loaded = loadTranscript(stored());
    const m2 = loaded.entries[1] as StoredMessage & Record<string, unknown>;
    expect(m2.tokens).toEqual({ in: 10, out: 20 });
    const calls = m2.role === 'assistant' ? (m2.tool_calls ?? []) : [];
    expect((calls[0] as Record<string, unknown>).provider_id).toBe('x-99');
    const m4 = loaded.entries[3];
    expect(m4.role === 'tool' && m4.picture).toEqual({
      address: 'cell:5f3c/0',
      sha256: sha,
      width: 640,
      height: 480,
      format: 'png'
    });
  });

  it('reports a value it cannot read as a problem instead of throwing', () => {
    expect(loadTranscript(undefined)).toEqual({ extra: {}, entries: [] });
    expect(loadTranscript(null)).toEqual({ extra: {}, entries: [] });
    const newer = loadTranscript({ version: 2, messages: [{ id: 'x' }], layout: 'tree' });
    expect(newer.entries).toEqual([]);
    expect(newer.problem).toBe(
      `figure_chat metadata has version 2; this Figure Chat reads version ${TRANSCRIPT_VERSION}`
    );
    expect(newer.extra).toEqual({ layout: 'tree' });
    expect(loadTranscript({ messages: [] }).problem).toContain('version undefined');
    // A version written as text says so, instead of 'has version "1"; … reads version 1'.
    expect(loadTranscript({ version: '1', messages: [] }).problem).toBe(
      'figure_chat metadata stores its version as the text "1" instead of the number 1'
    );
    expect(loadTranscript('figures').problem).toBe('figure_chat metadata is not an object');
    expect(loadTranscript([1]).problem).toBe('figure_chat metadata is not an object');
    expect(loadTranscript({ version: 1, messages: {} }).problem).toBe(
      'figure_chat.messages is not a list'
    );
  });

  it('round-trips through a Conversation, and a new message keeps the old ones untouched', () => {
    const conversation = new Conversation();
    const original = stored();
    conversation.load(original);
    expect(conversation.problem).toBeUndefined();
    conversation.append({ id: 'm11', role: 'user', content: 'More' });
    const back = conversation.toStored();
    const messages = back.messages as unknown[];
    expect(messages).toHaveLength(11);
    expect(messages.slice(0, 10)).toEqual(original.messages);
    expect(back.written_by).toEqual(original.written_by);
    expect(back.version).toBe(1);
    conversation.dispose();
  });

  it('reports an unreadable stored value through the Conversation too', () => {
    const conversation = new Conversation();
    conversation.load({ version: 3, messages: [] });
    expect(conversation.problem).toMatch(/version 3/);
    expect(conversation.entries).toEqual([]);
    conversation.dispose();
  });
});
