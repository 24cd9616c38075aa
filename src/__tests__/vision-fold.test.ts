import {
  emptyRecord,
  foldVisionRecords,
  planVisionCall,
  recordFor,
  VisionError,
  VisionFold,
  type VisionRecord,
  type VisionToolName
} from '../tools/vision';
import type { PictureFingerprint, StoredMessage, ToolMessage } from '../tools/transcript';

const SIZES: Record<string, { width: number; height: number }> = {
  'a.png': { width: 400, height: 300 },
  'cell:abc/0': { width: 64, height: 48 }
};

function fingerprint(address: string): PictureFingerprint {
  return { address, sha256: 'ab'.repeat(32), ...SIZES[address] };
}

/** A live session: runs calls the way the chat does and writes the transcript as it goes. */
class Live {
  readonly messages: StoredMessage[] = [];
  readonly records = new Map<string, VisionRecord>();
  current?: string;
  private n = 0;

  user(attachments?: string[]): void {
    this.messages.push({
      id: `m${++this.n}`,
      role: 'user',
      content: 'go',
      ...(attachments ? { attachments } : {})
    });
    if (attachments?.length) {
      this.current = attachments[attachments.length - 1];
    }
  }

  /** One assistant message whose calls all run, in order. */
  assistant(calls: Array<[VisionToolName, Record<string, unknown>]>): void {
    const ids = calls.map(() => `c${++this.n}`);
    this.messages.push({
      id: `m${++this.n}`,
      role: 'assistant',
      content: '',
      status: 'completed',
      tool_calls: calls.map(([name, args], i) => ({ id: ids[i], name, arguments: args }))
    });
    calls.forEach(([name, args], i) => this.messages.push(this.run(ids[i], name, args)));
  }

  private run(id: string, name: VisionToolName, args: Record<string, unknown>): ToolMessage {
    const base = { id: `m${++this.n}`, role: 'tool' as const, tool_call_id: id };
    const address = typeof args.image === 'string' ? args.image : this.current;
    if (address === undefined || !(address in SIZES)) {
      return { ...base, status: 'failed', content: 'Tool error: no picture' };
    }
    try {
      const before = this.records.get(address) ?? emptyRecord(address);
      const plan = planVisionCall(name, args, before, SIZES[address]);
      this.records.set(address, plan.record);
      this.current = address;
      return { ...base, status: 'completed', content: plan.text, picture: fingerprint(address) };
    } catch (error) {
      if (!(error instanceof VisionError)) {
        throw error;
      }
      return { ...base, status: 'failed', content: `Tool error: ${error.message}` };
    }
  }
}

function liveRecords(live: Live): Map<string, VisionRecord> {
  return new Map([...live.records].filter(([, record]) => record.lastId > 0));
}

function foldedRecords(messages: readonly StoredMessage[]): Map<string, VisionRecord> {
  return new Map(foldVisionRecords(messages).records);
}

describe('foldVisionRecords', () => {
  it('commits completed calls, drops failed ones, resolves the last used picture', () => {
    const live = new Live();
    live.user(['a.png']);
    live.assistant([
      ['vision_mark', { marks: [{ at: '10,10' }, { at: '1,1,50,50', colour: 'red' }] }],
      ['vision_mark', { marks: [{ at: '999,1' }] }],
      ['vision_update', { ops: [{ mark: 1, caption: 'one' }] }],
      ['vision_mark', { image: 'cell:abc/0', marks: [{ at: '3,3' }] }],
      ['vision_update', { ops: [{ mark: 1, remove: true }] }],
      ['vision_show', { at: ['#2'] }]
    ]);
    const state = foldVisionRecords(live.messages);
    expect(state.records).toEqual(liveRecords(live));
    expect(recordFor(state, 'a.png').marks.map(m => m.id)).toEqual([1, 2]);
    expect(recordFor(state, 'cell:abc/0').marks).toEqual([]);
    expect(recordFor(state, 'cell:abc/0').lastId).toBe(1);
    expect(state.current).toBe('cell:abc/0');
    expect(state.problems).toEqual([]);
  });

  it('drops a call still pending at the end of a turn or of the transcript', () => {
    const messages: StoredMessage[] = [
      { id: 'u1', role: 'user', content: '', attachments: ['a.png'] },
      {
        id: 'a1',
        role: 'assistant',
        content: '',
        status: 'interrupted',
        tool_calls: [
          { id: 'c1', name: 'vision_mark', arguments: { marks: [{ at: '1,1' }] } },
          { id: 'c2', name: 'vision_mark', arguments: { marks: [{ at: '2,2' }] } }
        ]
      },
      { id: 't1', role: 'tool', tool_call_id: 'c1', status: 'interrupted', content: 'Interrupted' }
    ];
    expect(foldVisionRecords(messages).pending.has('c2')).toBe(true);
    expect(foldVisionRecords(messages).records.size).toBe(0);
    // A result arriving after the next user message belongs to a dead turn.
    const late: StoredMessage[] = [
      ...messages,
      { id: 'u2', role: 'user', content: '' },
      {
        id: 't2',
        role: 'tool',
        tool_call_id: 'c2',
        status: 'completed',
        content: 'ok',
        picture: fingerprint('a.png')
      }
    ];
    const state = foldVisionRecords(late);
    expect(state.records.size).toBe(0);
    expect(state.pending.size).toBe(0);
  });

  it('commits only with a completed result and reports what does not apply', () => {
    const call = (id: string, args: Record<string, unknown>): StoredMessage => ({
      id: `a${id}`,
      role: 'assistant',
      content: '',
      status: 'completed',
      tool_calls: [{ id, name: 'vision_mark', arguments: args }]
    });
    const result = (id: string, status: 'completed' | 'failed', picture = true): StoredMessage => ({
      id: `t${id}`,
      role: 'tool',
      tool_call_id: id,
      status,
      content: '',
      ...(picture ? { picture: fingerprint('a.png') } : {})
    });
    const state = foldVisionRecords([
      { id: 'u', role: 'user', content: '', attachments: ['a.png'] },
      call('c1', { marks: [{ at: '1,1' }] }),
      result('c1', 'failed'),
      call('c2', { marks: [{ at: '2,2' }] }),
      result('c2', 'completed'),
      // Tampered: says completed, but the mark is out of bounds.
      call('c3', { marks: [{ at: '5000,2' }] }),
      result('c3', 'completed'),
      call('c4', { image: 'b.png', marks: [{ at: '2,2' }] }),
      result('c4', 'completed', false)
    ]);
    expect(recordFor(state, 'a.png').marks).toEqual([
      { id: 1, kind: 'point', x: 2, y: 2, r: 6, caption: '', colour: 'green' }
    ]);
    expect(state.problems.map(p => p.callId)).toEqual(['c3', 'c4']);
  });

  it('matches a long randomized live session exactly, and so does the incremental fold', () => {
    let seed = 7;
    // mulberry32: small, deterministic, and good in its low bits (unlike a bare LCG).
    const random = (n: number): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const colours = ['red', 'green', 'blue', 'purple'];
    const live = new Live();
    const fold = new VisionFold();
    for (let turn = 0; turn < 40; turn++) {
      live.user(turn === 0 || random(4) === 0 ? [random(2) ? 'a.png' : 'cell:abc/0'] : undefined);
      const calls: Array<[VisionToolName, Record<string, unknown>]> = [];
      for (let k = random(4); k >= 0; k--) {
        const at = (): string =>
          random(2)
            ? `${random(420)},${random(320)}`
            : `${random(60)},${random(60)},${60 + random(400)},${60 + random(300)}`;
        if (random(2)) {
          calls.push(['vision_mark', { marks: [{ at: at(), colour: colours[random(4)] }] }]);
        } else {
          const op = [
            { remove: true },
            { at: at() },
            { caption: `c${turn}` },
            { colour: colours[random(4)] }
          ][random(4)];
          calls.push(['vision_update', { ops: [{ mark: 1 + random(12), ...op }] }]);
        }
      }
      live.assistant(calls);
      expect(new Map(fold.read('nb', live.messages).records)).toEqual(foldedRecords(live.messages));
    }
    expect(foldedRecords(live.messages)).toEqual(liveRecords(live));
    expect(liveRecords(live).size).toBeGreaterThan(0);
    expect([...live.records.values()].reduce((sum, r) => sum + r.marks.length, 0)).toBeGreaterThan(
      5
    );
  });
});

describe('VisionFold', () => {
  it('re-reads a streaming last message and starts over for a different conversation', () => {
    const fold = new VisionFold();
    const assistant: StoredMessage & { role: 'assistant' } = {
      id: 'a1',
      role: 'assistant',
      content: '',
      status: 'completed',
      tool_calls: []
    };
    const messages: StoredMessage[] = [
      { id: 'u1', role: 'user', content: '', attachments: ['a.png'] },
      assistant
    ];
    expect(fold.read('k', messages).pending.size).toBe(0);
    // The streaming message grows in place.
    assistant.tool_calls?.push({
      id: 'c1',
      name: 'vision_mark',
      arguments: { marks: [{ at: '1,1' }] }
    });
    expect(fold.read('k', messages).pending.has('c1')).toBe(true);
    messages.push({
      id: 't1',
      role: 'tool',
      tool_call_id: 'c1',
      status: 'completed',
      content: '',
      picture: fingerprint('a.png')
    });
    expect(recordFor(fold.read('k', messages), 'a.png').marks).toHaveLength(1);
    const other: StoredMessage[] = [
      { id: 'x1', role: 'user', content: '' },
      { id: 'x2', role: 'user', content: '' }
    ];
    expect(fold.read('k', other).records.size).toBe(0);
    fold.forget('k');
    expect(recordFor(fold.read('k', messages), 'a.png').marks).toHaveLength(1);
  });
});
