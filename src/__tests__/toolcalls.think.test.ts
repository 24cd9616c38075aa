/**
 * `<think>` reasoning left in the answer's text: split from the answer at every split point, only
 * when it opens the reply; and tool-call JSON with raw control characters inside strings.
 */
import { ThinkTagSplitter, parseToolJson, splitThinkText } from '../tools/toolcalls';

function splitAt(text: string, cuts: number[]): { content: string; reasoning: string } {
  const splitter = new ThinkTagSplitter();
  let content = '';
  let reasoning = '';
  let from = 0;
  for (const cut of [...cuts, text.length]) {
    const part = splitter.push(text.slice(from, cut));
    content += part.content;
    reasoning += part.reasoning;
    from = cut;
  }
  const rest = splitter.finish();
  return { content: content + rest.content, reasoning: reasoning + rest.reasoning };
}

describe('ThinkTagSplitter', () => {
  const cases: Array<[string, string, { content: string; reasoning: string }]> = [
    [
      'opening think',
      '<think>\nPlan it.\n</think>\n\nThe answer.',
      { content: 'The answer.', reasoning: '\nPlan it.\n' }
    ],
    ['leading whitespace', '\n <think>x</think>y', { content: 'y', reasoning: 'x' }],
    ['no think', 'Plain <b>answer</b>', { content: 'Plain <b>answer</b>', reasoning: '' }],
    [
      'think mid-answer stays visible',
      'Use <think> tags.',
      { content: 'Use <think> tags.', reasoning: '' }
    ],
    [
      'unclosed think is reasoning',
      '<think>still going',
      { content: '', reasoning: 'still going' }
    ],
    ['a partial opener is text', '<thin', { content: '<thin', reasoning: '' }],
    [
      'a partial closer inside',
      '<think>a </thi b</think>c',
      { content: 'c', reasoning: 'a </thi b' }
    ],
    [
      'tool markup after think',
      '<think>t</think><tool_call>{}',
      { content: '<tool_call>{}', reasoning: 't' }
    ]
  ];
  it.each(cases)('%s: the same at every split point', (_label, text, expected) => {
    expect(splitThinkText(text)).toEqual(expected);
    for (let cut = 0; cut <= text.length; cut++) {
      expect(splitAt(text, [cut])).toEqual(expected);
    }
    expect(
      splitAt(
        text,
        [...text].map((_c, i) => i)
      )
    ).toEqual(expected);
  });
});

describe('parseToolJson', () => {
  it('accepts raw control characters inside strings, byte for byte', () => {
    expect(parseToolJson('{"a":"x\ny\u0015z\t"}')).toEqual({ a: 'x\ny\u0015z\t' });
    expect(parseToolJson('{"a":"q\\"\n"}')).toEqual({ a: 'q"\n' });
  });

  it('still refuses what is not JSON', () => {
    expect(() => parseToolJson('{"a":')).toThrow(SyntaxError);
    expect(() => parseToolJson('{"a":\u0001"x"}')).toThrow(SyntaxError);
  });
});
