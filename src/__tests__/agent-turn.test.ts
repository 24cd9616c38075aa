/**
 * The stored shape of another agent's call (src/tools/agent-turn): the chat's own format, read
 * back as readable messages with the agent kept, and nothing of a failed call's images.
 */
import { AgentCall, agentTurn } from '../tools/agent-turn';
import { loadTranscript, storeTranscript } from '../tools/transcript';

const IDS = { assistant: 'a1', call: 'c1', tool: 't1', created: '2026-12-03T22:00:00.000Z' };
const PICTURE = { address: 'pics/a.png', sha256: 'a'.repeat(64), width: 40, height: 30 };

describe('agentTurn', () => {
  it('stores the call as an assistant message authored by the agent and its result', () => {
    const call = AgentCall.parse({
      name: 'vision_mark',
      arguments: { image: 'pics/a.png', marks: [{ at: '1,2' }] },
      agent: { name: 'Claude Code', via: 'mcp' }
    });
    const [assistant, tool] = agentTurn(
      call,
      {
        status: 'completed',
        text: 'Marked #1.',
        picture: PICTURE,
        images: [{ png: 'AAAA', width: 4, height: 3, caption: 'map' }]
      },
      IDS
    );
    const stored = storeTranscript({}, [assistant, tool]);
    // Through JSON, as a notebook keeps it, and back through the reader the chat uses.
    const loaded = loadTranscript(JSON.parse(JSON.stringify(stored)));
    expect(loaded.problem).toBeUndefined();
    expect(loaded.entries).toEqual([
      {
        id: 'a1',
        role: 'assistant',
        content: '',
        status: 'completed',
        created: IDS.created,
        tool_calls: [{ id: 'c1', name: 'vision_mark', arguments: call.arguments }],
        agent: { name: 'Claude Code', via: 'mcp' }
      },
      {
        id: 't1',
        role: 'tool',
        tool_call_id: 'c1',
        status: 'completed',
        content: 'Marked #1.',
        created: IDS.created,
        picture: PICTURE
      }
    ]);
    // Views are never stored: no pixels in the notebook.
    expect(JSON.stringify(stored)).not.toContain('AAAA');
  });

  it('refuses calls of tools other agents may not call, and unnamed agents', () => {
    const agent = { name: 'x', via: 'mcp' };
    expect(AgentCall.safeParse({ name: 'notebook_read', arguments: {}, agent }).success).toBe(
      false
    );
    expect(
      AgentCall.safeParse({ name: 'present_svg', arguments: {}, agent: { name: '', via: 'mcp' } })
        .success
    ).toBe(false);
    expect(
      AgentCall.safeParse({
        name: 'present_svg',
        arguments: {},
        agent: { name: 'x'.repeat(101), via: 'mcp' }
      }).success
    ).toBe(false);
  });
});
