import {
  DSML_MARKER,
  parseToolCallsFromText,
  stripTransportMarkup,
  ToolCallTextParser
} from '../tools/toolcalls';
import type { ToolCallParseResult } from '../tools/toolcalls';

const M = DSML_MARKER;

/** SVG with its own closing tags, an entity, and whitespace at both ends. */
const SVG =
  '  \n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><text>a &amp; b</text>' +
  '<g></g></svg>\n ';

/** Every transport tag that must never reach visible text in these samples. */
const MARKUP =
  /<\/?(?:tool_call|function_calls|invoke|parameter|arg_key|arg_value)\b|\uff5cDSML\uff5c/;

function streamed(chunks: string[]): ToolCallParseResult {
  const parser = new ToolCallTextParser();
  let shown = '';
  for (const chunk of chunks) {
    shown += parser.push(chunk);
  }
  const result = parser.finish();
  expect(result.text.startsWith(shown)).toBe(true);
  return result;
}

function hermes(name: string, args: unknown): string {
  return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
}

function glm(name: string, pairs: [string, string][]): string {
  const body = pairs.map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>\n`);
  return `<tool_call>${name}\n${body.join('')}</tool_call>`;
}

function dsmlTags(marker: string, name: string, params: [string, string, string?][]): string {
  const body = params
    .map(([k, v, flag]) => {
      const attr = flag === undefined ? '' : ` string="${flag}"`;
      return `<${marker}parameter name="${k}"${attr}>${v}</${marker}parameter>\n`;
    })
    .join('');
  return (
    `<${marker}function_calls>\n<${marker}invoke name="${name}">\n${body}` +
    `</${marker}invoke>\n</${marker}function_calls>`
  );
}

function dsmlJson(marker: string, name: string, args: unknown): string {
  return (
    `<${marker}function_calls>\n<${marker}invoke name="${name}">\n${JSON.stringify(args)}\n` +
    `</${marker}invoke>\n</${marker}function_calls>`
  );
}

describe('Hermes/Qwen <tool_call>{json}</tool_call>', () => {
  it('recovers the call and the SVG byte for byte, keeping the text around it', () => {
    const reply = `Here it is.\n${hermes('present_svg', { svg: SVG, alt: 'A box' })}\nDone.`;
    const result = parseToolCallsFromText(reply);
    expect(result.text).toBe('Here it is.\n\nDone.');
    expect(streamed([...reply])).toEqual(result);
    expect(result.errors).toEqual([]);
    expect(result.calls).toHaveLength(1);
    expect(result.calls[0].name).toBe('present_svg');
    expect(result.calls[0].arguments.svg === SVG).toBe(true);
    expect(result.calls[0].arguments.alt).toBe('A box');
  });

  it('accepts arguments given as a JSON string, and "parameters" as an alias', () => {
    const asString = `<tool_call>${JSON.stringify({
      name: 'present_svg',
      arguments: JSON.stringify({ svg: SVG, alt: 'x' })
    })}</tool_call>`;
    const asParameters = `<tool_call>${JSON.stringify({
      name: 'vision_list',
      parameters: { image: 'a.png' }
    })}</tool_call>`;
    const result = parseToolCallsFromText(asString + asParameters);
    expect(result.errors).toEqual([]);
    expect(result.calls.map(c => c.name)).toEqual(['present_svg', 'vision_list']);
    expect(result.calls[0].arguments.svg === SVG).toBe(true);
    expect(result.calls[1].arguments).toEqual({ image: 'a.png' });
    expect(result.text).toBe('');
  });

  it('finds the end of the JSON even when a string argument contains </tool_call>', () => {
    const svg = '<svg><text>&lt;/tool_call&gt; and </tool_call></text></svg>';
    const result = parseToolCallsFromText(`a${hermes('present_svg', { svg, alt: 'q' })}b`);
    expect(result.calls[0].arguments.svg === svg).toBe(true);
    expect(result.text).toBe('ab');
  });

  it('reports invalid JSON as an error, hides the markup and keeps the following text', () => {
    const result = parseToolCallsFromText(
      'before <tool_call>{"name": "present_svg", "arguments": {"svg": }}</tool_call> after'
    );
    expect(result.calls).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatch(/not valid JSON/);
    expect(result.text).toBe('before  after');
  });

  it('reports a call without a name', () => {
    const result = parseToolCallsFromText('<tool_call>{"arguments": {}}</tool_call>');
    expect(result.calls).toEqual([]);
    expect(result.errors[0]).toMatch(/no "name"/);
  });
});

describe('DeepSeek DSML', () => {
  for (const [label, marker] of [
    ['with the marker', M],
    ['without the marker', '']
  ] as const) {
    describe(label, () => {
      it('reads parameter tags: string="true" raw, otherwise JSON with a raw fallback', () => {
        const reply =
          'Drawing.\n' +
          dsmlTags(marker, 'present_svg', [
            ['svg', SVG, 'true'],
            ['alt', ' spaced alt ', 'true'],
            ['count', '3', 'false'],
            ['options', '{"a": [1, true]}'],
            ['word', 'not json']
          ]) +
          '\nThat is all.';
        const result = parseToolCallsFromText(reply);
        expect(result.errors).toEqual([]);
        expect(result.text).toBe('Drawing.\n\nThat is all.');
        expect(streamed([...reply])).toEqual(result);
        expect(result.calls).toHaveLength(1);
        const args = result.calls[0].arguments;
        expect(result.calls[0].name).toBe('present_svg');
        expect(args.svg === SVG).toBe(true);
        expect(args.alt).toBe(' spaced alt ');
        expect(args.count).toBe(3);
        expect(args.options).toEqual({ a: [1, true] });
        expect(args.word).toBe('not json');
      });

      it('reads one JSON object as the body of the invoke', () => {
        const result = parseToolCallsFromText(
          `x ${dsmlJson(marker, 'present_svg', { svg: SVG, alt: 'Box' })} y`
        );
        expect(result.errors).toEqual([]);
        expect(result.calls).toEqual([
          { name: 'present_svg', arguments: { svg: SVG, alt: 'Box' } }
        ]);
        expect(result.calls[0].arguments.svg === SVG).toBe(true);
        expect(result.text).toBe('x  y');
      });

      it('reads several invokes in one block, in order', () => {
        const block =
          `<${marker}function_calls>` +
          `<${marker}invoke name="vision_list"><${marker}parameter name="image" string="true">` +
          `a.png</${marker}parameter></${marker}invoke>` +
          `<${marker}invoke name="notebook_read">{}</${marker}invoke>` +
          `</${marker}function_calls>`;
        const result = parseToolCallsFromText(block);
        expect(result.calls).toEqual([
          { name: 'vision_list', arguments: { image: 'a.png' } },
          { name: 'notebook_read', arguments: {} }
        ]);
      });

      it('closes a parameter only at its own closing tag', () => {
        const svg = `<svg><text></${marker}invoke></text></svg>`;
        const result = parseToolCallsFromText(
          dsmlTags(marker, 'present_svg', [['svg', svg, 'true']])
        );
        expect(result.errors).toEqual([]);
        expect(result.calls[0].arguments.svg === svg).toBe(true);
      });
    });
  }

  it('reports an invoke without a name', () => {
    const result = parseToolCallsFromText(
      '<function_calls><invoke><parameter name="a">1</parameter></invoke></function_calls>'
    );
    expect(result.calls).toEqual([]);
    expect(result.errors[0]).toMatch(/no name=/);
    expect(result.text).toBe('');
  });
});

describe('GLM-4.5/4.6 <tool_call>NAME<arg_key>…', () => {
  it('reads several pairs: strings raw, JSON objects, arrays, numbers and booleans parsed', () => {
    const reply =
      'Marking.\n' +
      glm('vision_mark', [
        ['image', 'cell:abc/0'],
        ['marks', '[{"at": "10,20", "caption": "eye"}]'],
        ['view', 'map'],
        ['r', '12'],
        ['flag', 'true'],
        ['opts', '{"k": null}'],
        ['quoted', '"kept as written"'],
        ['svg', SVG]
      ]) +
      '\nDone.';
    const result = parseToolCallsFromText(reply);
    expect(result.errors).toEqual([]);
    expect(result.text).toBe('Marking.\n\nDone.');
    expect(streamed([...reply])).toEqual(result);
    expect(result.calls).toHaveLength(1);
    const { name, arguments: args } = result.calls[0];
    expect(name).toBe('vision_mark');
    expect(args.image).toBe('cell:abc/0');
    expect(args.marks).toEqual([{ at: '10,20', caption: 'eye' }]);
    expect(args.view).toBe('map');
    expect(args.r).toBe(12);
    expect(args.flag).toBe(true);
    expect(args.opts).toEqual({ k: null });
    expect(args.quoted).toBe('"kept as written"');
    expect(args.svg === SVG).toBe(true);
  });

  it('closes a value only at </arg_value>, even if it contains </tool_call>', () => {
    const svg = '<svg><desc></tool_call></arg_key></desc></svg>';
    const result = parseToolCallsFromText(
      glm('present_svg', [
        ['svg', svg],
        ['alt', 'a']
      ])
    );
    expect(result.errors).toEqual([]);
    expect(result.calls[0].arguments.svg === svg).toBe(true);
    expect(result.calls[0].arguments.alt).toBe('a');
  });

  it('keeps a key such as __proto__ as an ordinary argument', () => {
    const result = parseToolCallsFromText(glm('t', [['__proto__', '{"polluted": true}']]));
    const args = result.calls[0].arguments;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(args, '__proto__')).toBe(true);
  });

  it('reads a call with no arguments', () => {
    expect(parseToolCallsFromText('<tool_call>notebook_read\n</tool_call>').calls).toEqual([
      { name: 'notebook_read', arguments: {} }
    ]);
  });
});

describe('several calls in one reply', () => {
  it('returns them in order with all text around them and no markup', () => {
    const reply =
      'First a figure. ' +
      hermes('present_svg', { svg: SVG, alt: 'one' }) +
      ' Then marks: ' +
      glm('vision_mark', [['marks', '[]']]) +
      ' and a DSML one ' +
      dsmlTags(M, 'vision_show', [['at', '["#1"]']]) +
      dsmlJson('', 'vision_list', {}) +
      ' end.';
    const result = parseToolCallsFromText(reply);
    expect(result.errors).toEqual([]);
    expect(result.calls.map(c => c.name)).toEqual([
      'present_svg',
      'vision_mark',
      'vision_show',
      'vision_list'
    ]);
    expect(result.calls[2].arguments).toEqual({ at: ['#1'] });
    expect(result.text).toBe('First a figure.  Then marks:  and a DSML one  end.');
    expect(streamed([...reply])).toEqual(result);
    expect(MARKUP.test(result.text)).toBe(false);
  });
});

describe('cut-off calls', () => {
  const cases: [string, string, RegExp][] = [
    ['Hermes', hermes('present_svg', { svg: SVG, alt: 'x' }), /cut off before <\/tool_call>/],
    ['GLM', glm('present_svg', [['svg', SVG]]), /present_svg was cut off before <\/tool_call>/],
    [
      'DSML',
      dsmlTags(M, 'present_svg', [['svg', SVG, 'true']]),
      /present_svg was cut off before <\/\uff5cDSML\uff5cfunction_calls>/
    ],
    [
      'plain DSML',
      dsmlJson('', 'present_svg', { svg: SVG }),
      /present_svg was cut off before <\/function_calls>/
    ]
  ];
  for (const [label, call, message] of cases) {
    it(`${label}: a truncation is an error, never visible text, and only a closed invoke is a call`, () => {
      const opener = call.slice(0, call.indexOf('>') + 1);
      // In DSML an invoke that closed before the cut is a finished call; the rest is not.
      const invokeEnd = /<\/[^<>]*invoke>/.exec(call);
      const invokeDone = invokeEnd ? invokeEnd.index + invokeEnd[0].length : Infinity;
      for (let cut = opener.length; cut < call.length; cut++) {
        const result = parseToolCallsFromText(`Intro. ${call.slice(0, cut)}`);
        expect(result.calls).toHaveLength(cut < invokeDone ? 0 : 1);
        expect(result.text).toBe('Intro. ');
        expect(result.errors).toHaveLength(1);
        expect(result.errors[0]).toMatch(/cut off before/);
      }
      const mid = parseToolCallsFromText(`Intro. ${call.slice(0, call.length - 40)}`);
      expect(mid.errors[0]).toMatch(message);
      expect(mid.calls).toEqual([]);
    });
  }

  it('keeps the calls already finished inside a cut-off DSML block', () => {
    const whole = dsmlTags(M, 'vision_list', [['image', 'a.png', 'true']]);
    const firstInvokeEnd = whole.indexOf(`</${M}invoke>`) + `</${M}invoke>`.length;
    const result = parseToolCallsFromText(
      whole.slice(0, firstInvokeEnd) + `<${M}invoke name="present_svg"><${M}parameter name="svg"`
    );
    expect(result.calls).toEqual([{ name: 'vision_list', arguments: { image: 'a.png' } }]);
    expect(result.errors).toEqual([
      `The model's tool call to present_svg was cut off before </${M}function_calls>.`
    ]);
  });

  it('reports a bare opening tag at the very end', () => {
    const result = parseToolCallsFromText('Let me draw.\n<tool_call>\n');
    expect(result.text).toBe('Let me draw.\n');
    expect(result.errors).toEqual(["The model's tool call was cut off before </tool_call>."]);
  });
});

describe('prose and partial tags', () => {
  it('holds back a possible opening tag split across chunks, then releases or hides it', () => {
    const parser = new ToolCallTextParser();
    expect(parser.push('Hello <tool_')).toBe('Hello ');
    expect(parser.push('call>{"name": "a", ')).toBe('');
    expect(parser.push('"arguments": {}}</tool_call> and <')).toBe(' and ');
    expect(parser.push('\uff5cDS')).toBe('');
    expect(parser.push('L? no.')).toBe('<\uff5cDSL? no.');
    expect(parser.push(' x <b')).toBe(' x <b');
    expect(parser.push('>bold <f')).toBe('>bold ');
    expect(parser.push('oo>')).toBe('<foo>');
    expect(parser.finish()).toEqual({
      text: 'Hello  and <\uff5cDSL? no. x <b>bold <foo>',
      calls: [{ name: 'a', arguments: {} }],
      errors: []
    });
  });

  it('releases a trailing partial tag at the end of the stream', () => {
    const parser = new ToolCallTextParser();
    expect(parser.push('a <tool_ca')).toBe('a ');
    expect(parser.finish().text).toBe('a <tool_ca');
  });

  it('keeps tags mentioned in prose visible', () => {
    const prose =
      'Use the <tool_call> tag to call a tool; `<tool_call>{"name": "x"}</tool_call>` is an ' +
      'example, and <function_calls> wraps <invoke> in DSML. a < b > c.';
    const result = parseToolCallsFromText(prose);
    expect(result.text).toBe(prose);
    expect(result.calls).toEqual([]);
    expect(result.errors).toEqual([]);
  });

  it('strips transport markup for exports, including stray DSML tags', () => {
    const reply =
      `Intro ${hermes('present_svg', { svg: SVG, alt: 'a' })} middle </${M}invoke>` +
      ` end <tool_call>{"name": "cut`;
    expect(stripTransportMarkup(reply)).toBe('Intro  middle  end ');
    expect(stripTransportMarkup('plain <b>text</b>')).toBe('plain <b>text</b>');
  });

  it('refuses pushes after finish', () => {
    const parser = new ToolCallTextParser();
    parser.finish();
    expect(() => parser.push('x')).toThrow(/after finish/);
  });
});
