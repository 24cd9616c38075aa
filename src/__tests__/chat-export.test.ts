/**
 * Markdown export (SPEC sections 5 and 7): a completed `present_svg` becomes its alt plus a fenced
 * `svg` block (the fence longer than any backtick run inside), a failed one stays an ordinary
 * failure, interrupted answers and calls are marked, and no transport markup survives.
 */
import { DSML_MARKER } from '../tools/toolcalls';
import { exportMarkdown } from '../tools/export';
import type { StoredMessage, UnreadableEntry } from '../tools/transcript';
import { assistant, call, figureSvg, result, user } from './helpers/transcripts';

const M = DSML_MARKER;
const svg = figureSvg('stages');
const badSvg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';

function conversation(): Array<StoredMessage | UnreadableEntry> {
  const unreadable: UnreadableEntry = {
    role: 'unreadable',
    index: 8,
    raw: { bad: true },
    reason: 'Invalid input at role'
  };
  return [
    user('u1', 'Sketch the pipeline', ['cell:abc/0']),
    assistant(
      'a1',
      `Here it is.<${M}function_calls>\n<${M}invoke name="present_svg">\n<${M}parameter name="alt" string="true">Three stages</${M}parameter>\n</${M}invoke>\n</${M}function_calls>`,
      [
        call('c1', 'present_svg', { svg, alt: 'Three stages' }),
        call('c2', 'present_svg', { svg: badSvg, alt: 'A trap' }),
        call('c3', 'notebook_read', { cells: [1] })
      ]
    ),
    result('t1', 'c1', 'SVG presented inline: Three stages'),
    result(
      't2',
      'c2',
      'Tool error: SVG contains <script>; remove scripts — figures must be static',
      'failed'
    ),
    result('t3', 'c3', 'cell 1: code\nprint(1)'),
    assistant('a2', `Done. A stray </${M}invoke> tag.`),
    user('u2', 'Again'),
    assistant(
      'a3',
      'Partial answer<tool_call>{"name":"present_svg","arguments":{"svg":"<svg',
      [],
      'interrupted'
    ),
    unreadable,
    {
      ...assistant(
        'a4',
        'Trying once more.',
        [call('c4', 'present_svg', { svg, alt: 'Cut off' })],
        'interrupted'
      ),
      error: 'HTTP 502'
    }
  ];
}

describe('exportMarkdown', () => {
  const markdown = exportMarkdown({ entries: conversation() });

  it('writes a completed figure as its alt and a fenced svg block, byte for byte', () => {
    // The figure holds a run of four backticks, so the fence has five.
    expect(svg).toContain('````');
    expect(markdown).toContain(`**Figure:** Three stages\n\n\`\`\`\`\`svg\n${svg}\n\`\`\`\`\``);
    expect(markdown.split(svg)).toHaveLength(2);
  });

  it('writes a failed figure as an ordinary failure with its error, not as a figure', () => {
    expect(markdown).not.toContain('**Figure:** A trap');
    expect(markdown).not.toContain('```svg\n' + badSvg);
    expect(markdown).toContain('**Tool `present_svg`** (failed)');
    expect(markdown).toContain(
      '> Tool error: SVG contains <script>; remove scripts — figures must be static'
    );
  });

  it('summarises other tool calls with their result quoted', () => {
    expect(markdown).toContain(
      '**Tool `notebook_read`** (completed): `{"cells":[1]}`\n\n> cell 1: code\n> print(1)'
    );
  });

  it('marks interrupted answers and calls, with the error when there is one', () => {
    expect(markdown).toContain('Partial answer\n\n_(interrupted)_');
    expect(markdown).toContain('**Tool `present_svg`** (interrupted)');
    expect(markdown).not.toContain('**Figure:** Cut off');
    expect(markdown).toContain('_(interrupted: HTTP 502)_');
  });

  it('leaves no transport markup', () => {
    expect(markdown).not.toMatch(
      /<\/?tool_call>|function_calls|<\/?invoke|<\/?parameter|\uff5cDSML\uff5c/
    );
    expect(markdown).toContain('**Assistant:**\n\nHere it is.\n\n**Figure:**');
    expect(markdown).toContain('Done. A stray  tag.');
  });

  it('keeps the order of the conversation, one heading per turn, and names unreadable entries', () => {
    const headings = markdown.match(/^#+ .*/gm);
    expect(headings).toEqual(['# Figure Chat conversation', '## Turn 1', '## Turn 2']);
    const speakers = markdown.match(/^\*\*(User|Assistant):\*\*$/gm);
    expect(speakers).toEqual([
      '**User:**',
      '**Assistant:**',
      '**Assistant:**',
      '**User:**',
      '**Assistant:**',
      '**Assistant:**'
    ]);
    expect(
      markdown.startsWith(
        '# Figure Chat conversation\n\n## Turn 1\n\n**User:**\n\nSketch the pipeline\n\nAttached: `cell:abc/0`'
      )
    ).toBe(true);
    expect(markdown).toContain('_(unreadable entry 8: Invalid input at role)_');
    expect(markdown).not.toContain('"bad"');
  });

  it("moves the model's headings below the turn heading, but not inside code", () => {
    const text = exportMarkdown({
      entries: [
        user('u1', 'Summarise'),
        assistant('a1', '# Summary\n\n## Details\n\n```md\n# not a heading\n```\n###### deep')
      ]
    });
    expect(text.match(/^#+ .*/gm)).toEqual([
      '# Figure Chat conversation',
      '## Turn 1',
      '### Summary',
      '#### Details',
      '# not a heading',
      '###### deep'
    ]);
    expect(text).toContain('```md\n# not a heading\n```');
  });

  it('shows figures and views as images when their files are given', () => {
    const text = exportMarkdown(
      {
        entries: [
          user('u1', 'Draw'),
          assistant('a1', '', [
            call('c1', 'present_svg', { svg, alt: 'Three [stages]' }),
            call('c2', 'vision_show', { image: 'p.png' })
          ]),
          result('t1', 'c1', 'shown'),
          result('t2', 'c2', 'Map of p.png')
        ]
      },
      {
        figure: id => (id === 'c1' ? 'chat assets/figure-001-c1.svg' : undefined),
        views: id =>
          id === 'c2' ? [{ path: 'chat assets/view-001-c2-1.png', caption: 'Map' }] : []
      }
    );
    expect(text).toContain('![Three \\[stages\\]](chat%20assets/figure-001-c1.svg)');
    expect(text).not.toContain('```svg');
    expect(text).toContain('![Map](chat%20assets/view-001-c2-1.png)');
  });
});
