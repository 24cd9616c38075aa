import { DSML_MARKER, parseToolCallsFromText, ToolCallTextParser } from '../tools/toolcalls';
import type { ToolCallParseResult } from '../tools/toolcalls';

const M = DSML_MARKER;

const SVG =
  '  \n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><text>a &amp; b</text>' +
  '<g></g></svg>\n ';

const MARKUP =
  /<\/?(?:tool_call|function_calls|invoke|parameter|arg_key|arg_value)\b|\uff5cDSML\uff5c/;

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Streams the chunks, checking that what was shown so far is always a prefix of the end text. */
function streamed(chunks: string[]): ToolCallParseResult {
  const parser = new ToolCallTextParser();
  let shown = '';
  const prefixes: string[] = [];
  for (const chunk of chunks) {
    shown += parser.push(chunk);
    prefixes.push(shown);
  }
  const result = parser.finish();
  for (const p of prefixes) {
    if (!result.text.startsWith(p)) {
      throw new Error(`shown text ${JSON.stringify(p)} is not a prefix of the final text`);
    }
  }
  return result;
}

function splitAt(text: string, points: number[]): string[] {
  const sorted = [...points].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const p of sorted) {
    chunks.push(text.slice(from, p));
    from = p;
  }
  chunks.push(text.slice(from));
  return chunks;
}

/** Replies in every syntax, each with an SVG argument, complete and cut off. */
const SAMPLES: Record<string, string> = {
  hermes:
    'Here:\n<tool_call>\n' +
    JSON.stringify({ name: 'present_svg', arguments: { svg: SVG, alt: 'A box' } }) +
    '\n</tool_call>\nDone.',
  hermesStringArgs:
    '<tool_call>' +
    JSON.stringify({ name: 'present_svg', arguments: JSON.stringify({ svg: SVG, alt: 'b' }) }) +
    '</tool_call> tail',
  dsmlTags:
    `Drawing <${M}function_calls>\n<${M}invoke name="present_svg">\n` +
    `<${M}parameter name="svg" string="true">${SVG}</${M}parameter>\n` +
    `<${M}parameter name="alt" string="true">Box</${M}parameter>\n` +
    `<${M}parameter name="n">4</${M}parameter>\n` +
    `</${M}invoke>\n</${M}function_calls> after`,
  dsmlJson:
    `x <${M}function_calls><${M}invoke name="present_svg">` +
    JSON.stringify({ svg: SVG, alt: 'j' }) +
    `</${M}invoke></${M}function_calls> y`,
  plainDsml:
    'p <function_calls>\n<invoke name="present_svg">\n' +
    `<parameter name="svg" string="true">${SVG}</parameter>\n` +
    '<parameter name="alt" string="false">"quoted"</parameter>\n' +
    '</invoke>\n<invoke name="vision_list">{"image": "a.png"}</invoke>\n</function_calls> q',
  glm:
    'Marks <tool_call>vision_mark\n<arg_key>marks</arg_key>\n<arg_value>[{"at": "1,2"}]</arg_value>\n' +
    `<arg_key>svg</arg_key>\n<arg_value>${SVG}</arg_value>\n` +
    '<arg_key>r</arg_key><arg_value>5</arg_value></tool_call> done',
  mixed:
    'a <b>bold</b> `<tool_call>` and < c ' +
    '<tool_call>{"name": "notebook_read", "arguments": {}}</tool_call>' +
    `<tool_call>present_svg<arg_key>svg</arg_key><arg_value>${SVG}</arg_value></tool_call>` +
    ` <${M}function_calls><${M}invoke name="vision_list"></${M}invoke></${M}function_calls> z <`,
  cutHermes: 'Intro <tool_call>{"name": "present_svg", "arguments": {"svg": "<svg><g></g>',
  cutGlm: `Intro <tool_call>present_svg\n<arg_key>svg</arg_key><arg_value>${SVG}</arg_v`,
  cutDsml: `Intro <${M}function_calls><${M}invoke name="present_svg"><${M}parameter name="svg" string="true">${SVG}`,
  badJson: 'Intro <tool_call>{"name": "x", "arguments": {"a": 1</tool_call> after',
  bareOpener: 'Intro <tool_call>'
};

describe('splitting a reply into chunks never changes the result', () => {
  for (const [label, sample] of Object.entries(SAMPLES)) {
    describe(label, () => {
      const whole = parseToolCallsFromText(sample);

      it('gives the same result split at every single point', () => {
        for (let i = 0; i <= sample.length; i++) {
          expect(streamed([sample.slice(0, i), sample.slice(i)])).toEqual(whole);
        }
      });

      it('gives the same result one character at a time and at random multi-splits', () => {
        expect(streamed([...sample])).toEqual(whole);
        const next = random(sample.length);
        for (let round = 0; round < 200; round++) {
          const count = 1 + Math.floor(next() * 12);
          const points = Array.from({ length: count }, () =>
            Math.floor(next() * (sample.length + 1))
          );
          expect(streamed(splitAt(sample, points))).toEqual(whole);
        }
      });

      it('never shows markup', () => {
        expect(MARKUP.test(whole.text.replace('`<tool_call>`', ''))).toBe(false);
      });
    });
  }

  it('recovers the SVG byte for byte in every complete sample, streamed one character at a time', () => {
    const complete = ['hermes', 'hermesStringArgs', 'dsmlTags', 'dsmlJson', 'plainDsml', 'glm'];
    for (const label of complete) {
      const result = streamed([...SAMPLES[label]]);
      expect(result.errors).toEqual([]);
      const svgs = result.calls.map(c => c.arguments.svg).filter(s => s !== undefined);
      expect(svgs).toHaveLength(1);
      expect(svgs[0] === SVG).toBe(true);
    }
  });

  it('reads what each sample holds', () => {
    expect(parseToolCallsFromText(SAMPLES.plainDsml)).toEqual({
      text: 'p  q',
      calls: [
        { name: 'present_svg', arguments: { svg: SVG, alt: 'quoted' } },
        { name: 'vision_list', arguments: { image: 'a.png' } }
      ],
      errors: []
    });
    expect(parseToolCallsFromText(SAMPLES.mixed)).toEqual({
      text: 'a <b>bold</b> `<tool_call>` and < c   z <',
      calls: [
        { name: 'notebook_read', arguments: {} },
        { name: 'present_svg', arguments: { svg: SVG } },
        { name: 'vision_list', arguments: {} }
      ],
      errors: []
    });
    for (const label of ['cutHermes', 'cutGlm', 'cutDsml', 'bareOpener']) {
      const result = parseToolCallsFromText(SAMPLES[label]);
      expect(result.text).toBe('Intro ');
      expect(result.calls).toEqual([]);
      expect(result.errors).toHaveLength(1);
      expect(result.errors[0]).toMatch(/cut off before <\//);
    }
    const bad = parseToolCallsFromText(SAMPLES.badJson);
    expect(bad.text).toBe('Intro  after');
    expect(bad.errors[0]).toMatch(/not valid JSON/);
  });

  it('streams a 64 KiB SVG in small chunks', () => {
    const big = `<svg xmlns="http://www.w3.org/2000/svg">${'<rect width="1" height="1"/>'.repeat(2400)}</svg>`;
    const reply = `Big:<tool_call>present_svg<arg_key>svg</arg_key><arg_value>${big}</arg_value></tool_call>.`;
    const parser = new ToolCallTextParser();
    let shown = '';
    for (let i = 0; i < reply.length; i += 3) {
      shown += parser.push(reply.slice(i, i + 3));
    }
    const result = parser.finish();
    expect(shown).toBe('Big:.');
    expect(result.calls[0].arguments.svg === big).toBe(true);
  });
});

describe('random replies built from markup fragments', () => {
  const FRAGMENTS = [
    'text ',
    ' ',
    '\n',
    '<',
    '>',
    '`',
    '<b>',
    '<tool_call>',
    '</tool_call>',
    '<tool_',
    '{"name": "t", "arguments": {"svg": "<g></g>"}}',
    '{"name": ',
    '}',
    '"',
    'name',
    '<arg_key>k</arg_key>',
    '<arg_value>v <g/></arg_value>',
    '<arg_value>',
    '</arg_value>',
    `<${M}function_calls>`,
    `</${M}function_calls>`,
    '<function_calls>',
    '</function_calls>',
    `<${M}invoke name="t">`,
    '<invoke name="t">',
    `</${M}invoke>`,
    '</invoke>',
    `<${M}parameter name="p" string="true">`,
    '<parameter name="p">',
    `</${M}parameter>`,
    '</parameter>',
    '\uff5c',
    M
  ];

  it('parse the same however they are split', () => {
    const next = random(42);
    for (let n = 0; n < 400; n++) {
      const length = 1 + Math.floor(next() * 14);
      const reply = Array.from(
        { length },
        () => FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]
      ).join('');
      const whole = parseToolCallsFromText(reply);
      expect(streamed([...reply])).toEqual(whole);
      for (let round = 0; round < 5; round++) {
        const points = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
          Math.floor(next() * (reply.length + 1))
        );
        expect(streamed(splitAt(reply, points))).toEqual(whole);
      }
    }
  });
});
