/**
 * Reading a streamed answer: SSE framing whatever the chunk boundaries, structured tool calls
 * joined by index, text tool calls through the tool-call parser, truncated JSON reported, and the
 * `complete` flag that tells a finished stream from a cut one.
 */
import { ChatStreamAccumulator, ModelStreamError, SseDecoder } from '../chat/stream';
import { DONE, answer, finishChunk, rechunk, sse, textChunk, toolCallChunk } from './helpers/sse';

function decodeAll(chunks: ReadonlyArray<string>): string[] {
  const decoder = new SseDecoder();
  return [...chunks.flatMap(chunk => decoder.push(chunk)), ...decoder.flush()];
}

function accumulate(chunks: ReadonlyArray<string>, prefix = 'call'): ChatStreamAccumulator {
  const accumulator = new ChatStreamAccumulator(prefix);
  for (const payload of decodeAll(chunks)) {
    accumulator.push(payload);
  }
  return accumulator;
}

describe('SseDecoder', () => {
  const stream = [
    ': keep-alive comment\n\n',
    'event: message\nid: 7\ndata: {"a":1}\n\n',
    'data: {"b":"é ✓ 𝛼"}\r\n\r\n',
    'data: first line\ndata: second line\n\n',
    'data: cr only\r\r',
    'data:no-space\n\n',
    DONE
  ].join('');
  const expected = [
    '{"a":1}',
    '{"b":"é ✓ 𝛼"}',
    'first line\nsecond line',
    'cr only',
    'no-space',
    '[DONE]'
  ];

  it('finds the same payloads at every split point', () => {
    expect(decodeAll([stream])).toEqual(expected);
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(decodeAll([stream.slice(0, cut), stream.slice(cut)])).toEqual(expected);
    }
    expect(decodeAll(rechunk([stream]))).toEqual(expected);
    expect(decodeAll(rechunk([stream], [1]))).toEqual(expected);
  });

  it('joins the data lines of one event when lines end in CRLF', () => {
    const crlf = 'data: {"x":\r\ndata: 1}\r\n\r\ndata: [DONE]\r\n\r\n';
    expect(decodeAll([crlf])).toEqual(['{"x":\n1}', '[DONE]']);
    expect(decodeAll(rechunk([crlf], [1]))).toEqual(['{"x":\n1}', '[DONE]']);
  });

  it('finds the same payloads in an LF-only stream (its fast path) at every split point', () => {
    const lf = [
      ': keep-alive comment\n\n',
      'event: message\nid: 7\ndata: {"a":1}\n\n\n',
      'data: first line\ndata: second line\n\n',
      'data:no-space\n\n\n\n',
      'data:  two spaces\n\n',
      DONE
    ].join('');
    const payloads = ['{"a":1}', 'first line\nsecond line', 'no-space', ' two spaces', '[DONE]'];
    for (let cut = 0; cut <= lf.length; cut++) {
      expect(decodeAll([lf.slice(0, cut), lf.slice(cut)])).toEqual(payloads);
    }
    expect(decodeAll(rechunk([lf], [1]))).toEqual(payloads);
  });

  it('keeps a last event that lacks its blank line until flush', () => {
    const decoder = new SseDecoder();
    expect(decoder.push('data: {"tail":true}')).toEqual([]);
    expect(decoder.flush()).toEqual(['{"tail":true}']);
    expect(decoder.flush()).toEqual([]);
  });
});

describe('ChatStreamAccumulator', () => {
  it('streams visible text and reports what each chunk added', () => {
    const accumulator = new ChatStreamAccumulator();
    const added = decodeAll(answer('Hel', 'lo ', 'world')).map(payload =>
      accumulator.push(payload)
    );
    expect(added).toEqual(['Hel', 'lo ', 'world', '', '']);
    expect(accumulator.visible).toBe('Hello world');
    expect(accumulator.finish()).toEqual({
      content: 'Hello world',
      reasoning: '',
      calls: [],
      errors: [],
      finishReason: 'stop',
      complete: true
    });
  });

  it('joins structured tool calls by index, even interleaved', () => {
    const chunks = [
      textChunk('Checking.'),
      toolCallChunk(0, { id: 'call_a', name: 'notebook_read', arguments: '' }),
      toolCallChunk(1, { id: 'call_b', name: 'present_svg', arguments: '{"svg":"<svg' }),
      toolCallChunk(0, { arguments: '{"cells"' }),
      toolCallChunk(1, { arguments: ' xmlns=\\"http://www.w3.org/2000/svg\\"/>",' }),
      toolCallChunk(0, { arguments: ':[1,2]}' }),
      toolCallChunk(1, { arguments: '"alt":"A dot"}' }),
      finishChunk('tool_calls'),
      DONE
    ];
    for (const split of [chunks, rechunk(chunks)]) {
      const result = accumulate(split).finish();
      expect(result.content).toBe('Checking.');
      expect(result.calls).toEqual([
        { id: 'call_a', name: 'notebook_read', arguments: { cells: [1, 2] } },
        {
          id: 'call_b',
          name: 'present_svg',
          arguments: { svg: '<svg xmlns="http://www.w3.org/2000/svg"/>', alt: 'A dot' }
        }
      ]);
      expect(result.errors).toEqual([]);
      expect(result.finishReason).toBe('tool_calls');
    }
  });

  it('names calls that came without an id and treats empty arguments as {}', () => {
    const result = accumulate(
      [toolCallChunk(0, { name: 'notebook_read' }), finishChunk('tool_calls')],
      'm1_c'
    ).finish();
    expect(result.calls).toEqual([{ id: 'm1_c_1', name: 'notebook_read', arguments: {} }]);
    expect(result.complete).toBe(true);
  });

  it('accepts arguments sent as an object (some servers do)', () => {
    const chunk = sse({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              { index: 0, id: 'x', function: { name: 'echo', arguments: { text: 'hi' } } }
            ]
          },
          finish_reason: 'tool_calls'
        }
      ]
    });
    expect(accumulate([chunk]).finish().calls).toEqual([
      { id: 'x', name: 'echo', arguments: { text: 'hi' } }
    ]);
  });

  it('takes text tool calls out of the visible text, in any chunking', () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"><text>a &amp; b</text></svg>';
    const reply =
      'Here it is.<tool_call>\n' +
      JSON.stringify({ name: 'present_svg', arguments: { svg, alt: 'Two letters' } }) +
      '\n</tool_call>';
    const chunks = [textChunk(reply), finishChunk('stop'), DONE];
    for (const split of [chunks, rechunk(chunks)]) {
      const accumulator = accumulate(split, 'm2_c');
      expect(accumulator.visible).not.toContain('tool_call');
      const result = accumulator.finish();
      expect(result.content).toBe('Here it is.');
      expect(result.calls).toEqual([
        { id: 'm2_c_t1', name: 'present_svg', arguments: { svg, alt: 'Two letters' } }
      ]);
      expect(result.errors).toEqual([]);
    }
    // Streamed one character per content delta.
    const perCharacter = [...reply].map(textChunk);
    const result = accumulate([...perCharacter, finishChunk('stop')], 'm2_c').finish();
    expect(result.content).toBe('Here it is.');
    expect(result.calls[0].arguments.svg).toBe(svg);
  });

  it('reports truncated structured tool-call JSON as an error, not a call', () => {
    const result = accumulate([
      toolCallChunk(0, { id: 'c', name: 'present_svg', arguments: '{"svg":"<svg xmlns' }),
      finishChunk('length'),
      DONE
    ]).finish();
    expect(result.calls).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toContain('present_svg had truncated or invalid JSON arguments');
    expect(result.complete).toBe(true);
    expect(result.finishReason).toBe('length');
  });

  it('reports JSON arguments that are not an object', () => {
    const result = accumulate([
      toolCallChunk(0, { id: 'c', name: 'echo', arguments: '[1,2]' }),
      finishChunk('tool_calls')
    ]).finish();
    expect(result.calls).toEqual([]);
    expect(result.errors[0]).toContain('echo had truncated or invalid JSON arguments');
  });

  it('reports a text tool call cut off by the end of the stream', () => {
    const result = accumulate([
      textChunk('Drawing.<tool_call>{"name":"present_svg","arguments":{"svg":"<svg'),
      DONE
    ]).finish();
    expect(result.calls).toEqual([]);
    expect(result.content).toBe('Drawing.');
    expect(result.errors.join(' ')).toMatch(/cut off/);
  });

  it('is complete after [DONE] or a finish reason, and not otherwise', () => {
    expect(accumulate([textChunk('a'), DONE]).finish().complete).toBe(true);
    expect(accumulate([textChunk('a'), finishChunk('stop')]).finish().complete).toBe(true);
    const cut = accumulate([textChunk('a'), textChunk('b')]).finish();
    expect(cut.complete).toBe(false);
    expect(cut.finishReason).toBeNull();
    expect(cut.content).toBe('ab');
  });

  it('throws a ModelStreamError on a malformed chunk or an error chunk', () => {
    const accumulator = new ChatStreamAccumulator();
    expect(() => accumulator.push('{"choices": [')).toThrow(ModelStreamError);
    expect(() => accumulator.push('{"choices": [')).toThrow(
      /malformed stream chunk: \{"choices": \[/
    );
    expect(() => accumulator.push('[1]')).toThrow(ModelStreamError);
    expect(() => accumulator.push('{"error":{"message":"model overloaded"}}')).toThrow(
      'The model server reported an error: model overloaded'
    );
  });
});
