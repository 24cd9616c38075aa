/**
 * The export's shared drawing step (`drawExportAssets`, used by `figure-chat export --assets` and
 * by the chat's Export button): stable names, links under the assets folder, failures named and
 * the rest still drawn; and where the Export button puts its files.
 */
import { drawExportAssets, exportMarkdown, exportStem } from '../tools/export';
import type { PictureFingerprint } from '../tools/transcript';
import { exportPaths } from '../widget/export-chat';
import { assistant, call, figureSvg, result, user } from './helpers/transcripts';

const picture: PictureFingerprint = {
  address: 'plots/p.png',
  sha256: 'a'.repeat(64),
  width: 240,
  height: 160
};

const messages = [
  user('u1', 'Draw and mark'),
  assistant('a1', '', [
    call('c1', 'present_svg', { svg: figureSvg('stages'), alt: 'Stages' }),
    call('c2', 'vision_mark', { image: 'plots/p.png', marks: [{ at: '20,20,100,80' }] }),
    call('c3', 'vision_show', { at: ['#1', '150,100'] })
  ]),
  result('t1', 'c1', 'shown'),
  { ...result('t2', 'c2', 'marked'), picture },
  { ...result('t3', 'c3', 'sheet'), picture }
];

describe('drawExportAssets', () => {
  it('names every figure and view, links them under the folder, and names what failed', async () => {
    const drawn = await drawExportAssets(messages, exportStem('work/My notebook.ipynb'), {
      figure: async target => `svg:${target.alt}`,
      view: async target => {
        if (target.source.call === 'c3') {
          throw new Error('plots/p.png has changed');
        }
        return { data: `png:${target.spec.kind}`, caption: `Map of ${target.picture.address}` };
      }
    });
    expect(drawn.files).toEqual([
      { name: 'My_notebook-figure-001-c1.svg', data: 'svg:Stages' },
      { name: 'My_notebook-view-001-c2-1.png', data: 'png:map' }
    ]);
    expect(drawn.failures).toEqual(['view 1 of call c3: plots/p.png has changed']);
    const markdown = exportMarkdown({ entries: messages }, drawn.links('My_notebook.chat-assets'));
    expect(markdown).toContain('![Stages](My_notebook.chat-assets/My_notebook-figure-001-c1.svg)');
    expect(markdown).toContain(
      '![Map of plots/p.png](My_notebook.chat-assets/My_notebook-view-001-c2-1.png)'
    );
    // The view that could not be drawn keeps its text summary and has no image.
    expect(markdown).toContain('**Tool `vision_show`** (completed)');
    expect(markdown.match(/!\[/g)).toHaveLength(2);
  });
});

describe('exportPaths', () => {
  it('puts the Markdown next to the notebook and the pictures in a folder beside it', () => {
    expect(exportPaths('work/My notebook.ipynb')).toEqual({
      markdown: 'work/My notebook.chat.md',
      folder: 'work/My_notebook.chat-assets',
      folderName: 'My_notebook.chat-assets'
    });
    expect(exportPaths('top.ipynb').markdown).toBe('top.chat.md');
  });
});
