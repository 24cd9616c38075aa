import { DSML_MARKER, parseToolCallsFromText, ToolCallTextParser } from '../tools/toolcalls';
import type { CallProgress, ToolCallParseResult } from '../tools/toolcalls';

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

/** The calls in progress after the chunks arrived (the stream not finished). */
function progressAfter(chunks: string[]): CallProgress[] {
  const parser = new ToolCallTextParser();
  for (const chunk of chunks) {
    parser.push(chunk);
  }
  return parser.progress();
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

      it('reports the calls in progress the same at every split point and every prefix', () => {
        const whole = progressAfter([sample]);
        for (let i = 0; i <= sample.length; i++) {
          expect(progressAfter([sample.slice(0, i), sample.slice(i)])).toEqual(whole);
        }
        const parser = new ToolCallTextParser();
        let names: string[] = [];
        let done = 0;
        for (let k = 1; k <= sample.length; k++) {
          parser.push(sample[k - 1]);
          const progress = parser.progress();
          expect(progress).toEqual(progressAfter([sample.slice(0, k)]));
          // Finished calls are only ever added, and a name once given never changes; a call in
          // progress may vanish when its markup turns out malformed (its card goes away).
          const finished = progress.filter(call => call.complete).length;
          expect(finished).toBeGreaterThanOrEqual(done);
          done = finished;
          progress.forEach((call, index) => names[index] && expect(call.name).toBe(names[index]));
          names = progress.map(call => call.name);
        }
        const final = parser.finish();
        expect(
          parser
            .progress()
            .filter(call => call.complete)
            .map(call => call.name)
        ).toEqual(final.calls.map(call => call.name));
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
      expect(progressAfter([...reply])).toEqual(progressAfter([reply]));
      for (let round = 0; round < 5; round++) {
        const points = Array.from({ length: 1 + Math.floor(next() * 6) }, () =>
          Math.floor(next() * (reply.length + 1))
        );
        expect(streamed(splitAt(reply, points))).toEqual(whole);
      }
    }
  });
});

describe('a call in progress', () => {
  /** The progress after each prefix of `reply`, streamed one character at a time. */
  function progressByPrefix(reply: string): CallProgress[][] {
    const parser = new ToolCallTextParser();
    return [...reply].map(c => {
      parser.push(c);
      return parser.progress();
    });
  }

  /** The length of the shortest prefix after which the first call has a name. */
  function nameKnownAt(reply: string): number {
    return progressByPrefix(reply).findIndex(progress => !!progress[0]?.name) + 1;
  }

  it('is named as soon as the name is whole: Hermes at its closing quote', () => {
    const reply = SAMPLES.hermes;
    expect(nameKnownAt(reply)).toBe(reply.indexOf('present_svg"') + 'present_svg"'.length);
    expect(nameKnownAt('<tool_call>{"function": {"name": "vision_list", "arguments": {}}}')).toBe(
      '<tool_call>{"function": {"name": "vision_list"'.length
    );
  });

  it('is named as soon as the name is whole: DSML at the end of the invoke tag', () => {
    for (const reply of [SAMPLES.dsmlTags, SAMPLES.plainDsml]) {
      expect(nameKnownAt(reply)).toBe(reply.indexOf('name="present_svg">') + 19);
    }
  });

  it('is named as soon as the block is one: GLM once an argument follows the name', () => {
    const reply = SAMPLES.glm;
    expect(nameKnownAt(reply)).toBe(reply.indexOf('<arg_key>') + '<arg_key>'.length);
  });

  it('is not named when the name is not first (it shows once complete)', () => {
    const reply = '<tool_call>{"arguments": {"svg": "<svg/>"}, "name": "present_svg"}</tool_call>';
    const byPrefix = progressByPrefix(reply);
    expect(byPrefix[reply.length - 2]).toEqual([
      { name: '', bytes: reply.length - 1, complete: false }
    ]);
    expect(byPrefix[reply.length - 1]).toEqual([
      { name: 'present_svg', bytes: reply.length, complete: true }
    ]);
  });

  it('counts the UTF-8 bytes of its markup so far', () => {
    const reply = SAMPLES.dsmlTags;
    const start = reply.indexOf('<');
    const byPrefix = progressByPrefix(reply);
    byPrefix.forEach((progress, k) => {
      if (progress.length && !progress[0].complete) {
        expect(progress[0].bytes).toBe(Buffer.byteLength(reply.slice(start, k + 1)));
      }
    });
    const end = reply.indexOf(' after');
    expect(byPrefix[byPrefix.length - 1]).toEqual([
      { name: 'present_svg', bytes: Buffer.byteLength(reply.slice(start, end)), complete: true }
    ]);
  });

  it('lists finished calls before the one in progress, so ids follow call order', () => {
    const reply = SAMPLES.mixed;
    const cut = reply.indexOf('<arg_value>') + 20;
    expect(progressAfter([reply.slice(0, cut)]).map(call => [call.name, call.complete])).toEqual([
      ['notebook_read', true],
      ['present_svg', false]
    ]);
  });
});
