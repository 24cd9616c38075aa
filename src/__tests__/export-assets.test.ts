/**
 * `figure-chat export NOTEBOOK --assets DIR` with the real renderer: the Markdown references every
 * figure (.svg) and view (.png) as an image, each file exists beside it and opens; nothing is
 * overwritten silently; without `--assets` the Markdown on standard output stands alone.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import sharp from 'sharp';

import { exportCommand } from '../server/notebook/export-assets';
import { assistant, call, figureSvg, result, user } from './helpers/transcripts';

let root: string;
let notebookPath: string;
const svg = figureSvg('stages');

function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  return exportCommand(argv, {
    stdout: text => (stdout += text),
    stderr: text => (stderr += text)
  }).then(code => ({ code, stdout, stderr }));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'fc-export-'));
  const png = await sharp({
    create: { width: 240, height: 160, channels: 3, background: { r: 30, g: 120, b: 90 } }
  })
    .png()
    .toBuffer();
  writeFileSync(join(root, 'plot.png'), png);
  const picture = {
    address: 'plot.png',
    sha256: createHash('sha256').update(png).digest('hex'),
    width: 240,
    height: 160
  };
  const messages = [
    user('u1', 'Draw and mark'),
    assistant('a1', '# My answer', [
      call('c1', 'present_svg', { svg, alt: 'Three stages' }),
      call('c2', 'vision_mark', { image: 'plot.png', marks: [{ at: '20,20,100,80' }] })
    ]),
    result('t1', 'c1', 'shown'),
    { ...result('t2', 'c2', 'marked'), picture },
    assistant('a2', '', [call('c3', 'vision_show', { at: ['#1', '150,100'] })]),
    { ...result('t3', 'c3', 'sheet'), picture }
  ];
  notebookPath = join(root, 'analysis.ipynb');
  writeFileSync(
    notebookPath,
    JSON.stringify({
      cells: [],
      metadata: { figure_chat: { version: 1, messages } },
      nbformat: 4,
      nbformat_minor: 5
    })
  );
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('figure-chat export --assets', () => {
  it('writes the Markdown with every figure and view beside it, referenced as images', async () => {
    const out = join(root, 'out');
    const { code, stdout, stderr } = await run([notebookPath, '--assets', out, '--root', root]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const markdownPath = stdout.trim();
    expect(markdownPath).toBe(join(out, 'analysis.chat.md'));
    const markdown = readFileSync(markdownPath, 'utf8');
    const images = Array.from(markdown.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g), match =>
      decodeURIComponent(match[1])
    );
    expect(images).toHaveLength(3);
    expect(images[0]).toMatch(/\.svg$/);
    expect(images.slice(1).every(path => path.endsWith('.png'))).toBe(true);
    expect(readFileSync(join(dirname(markdownPath), images[0]), 'utf8')).toBe(svg);
    for (const png of images.slice(1)) {
      const meta = await sharp(readFileSync(join(dirname(markdownPath), png))).metadata();
      expect(meta.format).toBe('png');
      expect(meta.width).toBeGreaterThan(0);
    }
    expect(markdown).not.toContain('```svg');
    // One heading per turn; the model's heading is moved below it.
    expect(markdown.match(/^#+ .*/gm)).toEqual([
      '# Figure Chat conversation',
      '## Turn 1',
      '### My answer'
    ]);
  });

  it('refuses to overwrite existing files unless --force is given', async () => {
    const out = join(root, 'again');
    expect((await run([notebookPath, '--assets', out, '--root', root])).code).toBe(0);
    const markdown = join(out, 'analysis.chat.md');
    writeFileSync(markdown, 'my notes');
    const refused = await run([notebookPath, '--assets', out, '--root', root]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('already exists');
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(markdown, 'utf8')).toBe('my notes');
    const forced = await run([notebookPath, '--assets', out, '--root', root, '--force']);
    expect(forced.code).toBe(0);
    expect(readFileSync(markdown, 'utf8')).toContain('## Turn 1');
  });

  it('names what it could not draw and still writes the rest', async () => {
    const out = join(root, 'elsewhere');
    const { code, stderr } = await run([notebookPath, '--assets', out, '--root', '/nonexistent']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/could not draw the view 1 of call c2/);
    const markdown = readFileSync(join(out, 'analysis.chat.md'), 'utf8');
    expect(markdown).toContain('.svg)');
    expect(markdown).not.toContain('.png)');
  });

  it('keeps standard output self-contained without --assets', async () => {
    const { code, stdout } = await run([notebookPath]);
    expect(code).toBe(0);
    expect(stdout).toContain('```svg\n' + svg);
    expect(stdout).not.toMatch(/!\[/);
  });
});
