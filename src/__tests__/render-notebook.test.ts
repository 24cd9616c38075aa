import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import sharp from 'sharp';

import { renderNotebook } from '../server/notebook/render-notebook';
import type { StoredMessage } from '../tools/transcript';
import { emptyRecord, viewGeometry } from '../tools/vision';

let dir: string;
const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="40" height="20" fill="teal"/></svg>';

function fingerprint(address: string, bytes: Buffer, width: number, height: number): object {
  return { address, sha256: createHash('sha256').update(bytes).digest('hex'), width, height };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fc-rendernb-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('writes every completed figure as SVG and every view as PNG, naming what failed', async () => {
  const cellPng = await sharp({
    create: { width: 64, height: 48, channels: 3, background: '#884422' }
  })
    .png()
    .toBuffer();
  const fileJpg = await sharp({
    create: { width: 300, height: 200, channels: 3, background: '#224488' }
  })
    .jpeg()
    .toBuffer();
  writeFileSync(join(dir, 'pic.jpg'), fileJpg);
  const call = (id: string, name: string, args: object): StoredMessage => ({
    id: `a-${id}`,
    role: 'assistant',
    content: '',
    status: 'completed',
    tool_calls: [{ id, name, arguments: args as Record<string, unknown> }]
  });
  const done = (
    id: string,
    picture?: object,
    status: 'completed' | 'failed' = 'completed'
  ): StoredMessage =>
    ({
      id: `t-${id}`,
      role: 'tool',
      tool_call_id: id,
      status,
      content: '',
      ...(picture ? { picture } : {})
    }) as StoredMessage;
  const cellPrint = fingerprint('cell:c1/0', cellPng, 64, 48);
  const filePrint = fingerprint('pic.jpg', fileJpg, 300, 200);
  const messages: StoredMessage[] = [
    { id: 'u1', role: 'user', content: 'draw', attachments: ['cell:c1/0'] },
    call('f1', 'present_svg', { svg: SVG, alt: 'teal' }),
    done('f1'),
    call('f2', 'present_svg', {
      svg: '<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>',
      alt: 'x'
    }),
    done('f2', undefined, 'failed'),
    call('v1', 'vision_mark', { marks: [{ at: '10,10' }, { at: '20,20,40,40' }] }),
    done('v1', cellPrint),
    call('v2', 'vision_show', { at: ['#1', '#2'] }),
    done('v2', cellPrint),
    call('v3', 'vision_mark', { image: 'pic.jpg', marks: [{ at: '100,100' }], view: 'none' }),
    done('v3', filePrint),
    call('v4', 'vision_show', { at: ['#1'] }),
    done('v4', filePrint),
    call('v5', 'vision_list', {}),
    done('v5', filePrint),
    call('v6', 'vision_show', { image: 'pic.jpg' }),
    done('v6', { ...filePrint, sha256: '0'.repeat(64) })
  ];
  const notebook = {
    cells: [
      {
        id: 'c1',
        cell_type: 'code',
        outputs: [
          { output_type: 'display_data', data: { 'image/png': cellPng.toString('base64') } }
        ]
      }
    ],
    metadata: { figure_chat: { version: 1, messages } },
    nbformat: 4,
    nbformat_minor: 5
  };
  writeFileSync(join(dir, 'n.ipynb'), JSON.stringify(notebook));
  const out = join(dir, 'out');
  const failures = await renderNotebook(join(dir, 'n.ipynb'), out, dir);
  expect(failures).toEqual([
    expect.stringMatching(
      /^views of vision_show call v6 \(pic\.jpg\): .*changed since the conversation marked it/
    )
  ]);
  const files = readdirSync(out).sort();
  expect(files).toEqual([
    'figure-001-f1.svg',
    'view-001-v1-1.png',
    'view-002-v2-1.png',
    'view-003-v4-1.png'
  ]);
  expect(readFileSync(join(out, 'figure-001-f1.svg'), 'utf8')).toBe(SVG);
  const map = await sharp(readFileSync(join(out, 'view-001-v1-1.png'))).metadata();
  // The picture's 64×48 pixels, framed by the ruler margin.
  const { margin } = viewGeometry({ kind: 'map' }, emptyRecord('p.png'), { width: 64, height: 48 })
    .panes[0];
  expect([map.width, map.height]).toEqual([
    64 + margin.left + margin.right,
    48 + margin.top + margin.bottom
  ]);
});

it('reports a notebook without a readable conversation', async () => {
  writeFileSync(
    join(dir, 'bad.ipynb'),
    JSON.stringify({ metadata: { figure_chat: { version: 9 } } })
  );
  expect(await renderNotebook(join(dir, 'bad.ipynb'), join(dir, 'o2'), dir)).toEqual([
    expect.stringMatching(/version 9/)
  ]);
});
