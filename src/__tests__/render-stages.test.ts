/**
 * The render stages bench/vision-timeline.mjs reads: reported in the order the renderer reaches
 * them, for every kind of view, and `decoded` only when the picture was decoded for the view.
 */
import sharp from 'sharp';

import type { Picture } from '../server/pictures/pictures';
import { clearRenderCaches, renderView } from '../server/render/render';
import { observeRenderStages, type RenderStage } from '../server/render/stages';
import { applyMarkArgs, emptyRecord, type ViewSpec } from '../tools/vision';

const W = 1200;
const H = 900;
let picture: Picture;

beforeAll(async () => {
  const bytes = await sharp({
    create: { width: W, height: H, channels: 3, background: { r: 90, g: 140, b: 200 } }
  })
    .jpeg()
    .toBuffer();
  picture = {
    address: 'p.jpg',
    bytes,
    sha256: 'c3'.repeat(32),
    width: W,
    height: H,
    format: 'jpeg'
  };
});

afterEach(() => observeRenderStages(undefined));

async function stagesOf(spec: ViewSpec, cold: boolean): Promise<RenderStage[]> {
  const record = applyMarkArgs(
    emptyRecord('p.jpg'),
    { marks: [{ at: '300,300', r: 40 }, { at: '800,500,950,650' }] },
    { width: W, height: H }
  ).record;
  clearRenderCaches(cold ? 'all' : 'views');
  const seen: Array<{ stage: RenderStage; at: number }> = [];
  observeRenderStages((stage, at) => seen.push({ stage, at }));
  await renderView(picture, spec, record);
  observeRenderStages(undefined);
  // Each stage is reported at most once per render, at non-decreasing times.
  seen.forEach((entry, i) => expect(entry.at).toBeGreaterThanOrEqual(seen[i - 1]?.at ?? 0));
  return seen.map(entry => entry.stage);
}

describe('render stages', () => {
  it.each<[string, ViewSpec]>([
    ['a map', { kind: 'map' }],
    ['a close-up', { kind: 'closeup', at: '#1' }],
    ['a sheet', { kind: 'sheet', at: ['#1', '#2'] }]
  ])('are reported in order for %s, decoded only when cold', async (_, spec) => {
    const cold = await stagesOf(spec, true);
    expect(cold).toContain('decoded');
    expect(new Set(cold).size).toBe(cold.length);
    expect(cold.slice(-2)).toEqual(['composited', 'encoded']);
    expect(cold.indexOf('decoded')).toBeLessThan(cold.indexOf('panes'));
    expect(cold.filter(stage => stage !== 'overlay')).toEqual([
      'decoded',
      'panes',
      'composited',
      'encoded'
    ]);
    const again = await stagesOf(spec, false);
    expect(again).not.toContain('decoded');
    expect(again.slice(-2)).toEqual(['composited', 'encoded']);
  });

  it('reports nothing once no one observes', async () => {
    const seen: RenderStage[] = [];
    observeRenderStages(stage => seen.push(stage));
    observeRenderStages(undefined);
    clearRenderCaches();
    await renderView(picture, { kind: 'map' }, emptyRecord('p.jpg'));
    expect(seen).toEqual([]);
  });
});
