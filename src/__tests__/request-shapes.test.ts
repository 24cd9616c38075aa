/**
 * Every array in a tool call or a figure-server request has a named maximum: oversized calls are
 * refused with a readable tool error, and a view over many marks does not overflow the stack.
 */
import { z } from 'zod';

import { notebookReadTool } from '../chat/tools/notebook-read';
import { presentSvgTool } from '../chat/tools/present-svg';
import { visionTools } from '../chat/tools/vision';
import { ToolRegistry, type ToolContext } from '../tools/registry';
import {
  applyMarkArgs,
  emptyRecord,
  MAX_UPDATE_OPS,
  viewGeometry,
  ViewSpec,
  VisionRecordSchema
} from '../tools/vision';
import { renderRoute } from '../server/render/route';

const context: ToolContext = { signal: new AbortController().signal, host: null };

function registry(): ToolRegistry {
  const tools = new ToolRegistry();
  for (const tool of [notebookReadTool, presentSvgTool, ...visionTools]) {
    tools.register(tool);
  }
  return tools;
}

/** Paths of every array in a JSON Schema that has no `maxItems`. */
function unboundedArrays(schema: unknown, path = '$'): string[] {
  if (Array.isArray(schema)) {
    return schema.flatMap((item, i) => unboundedArrays(item, `${path}[${i}]`));
  }
  if (typeof schema !== 'object' || schema === null) {
    return [];
  }
  const node = schema as Record<string, unknown>;
  const own = node.type === 'array' && typeof node.maxItems !== 'number' ? [path] : [];
  return [
    ...own,
    ...Object.entries(node).flatMap(([key, value]) => unboundedArrays(value, `${path}.${key}`))
  ];
}

describe('named maximums', () => {
  it('every array the model is told about has maxItems', () => {
    const specs = registry().specs();
    expect(specs.map(spec => spec.function.name).sort()).toEqual([
      'notebook_read',
      'present_svg',
      'vision_list',
      'vision_mark',
      'vision_show',
      'vision_update'
    ]);
    expect(unboundedArrays(specs)).toEqual([]);
  });

  it('every array of the render request (view specs, record) has maxItems', () => {
    for (const schema of [ViewSpec, VisionRecordSchema]) {
      expect(unboundedArrays(z.toJSONSchema(schema, { io: 'input' }))).toEqual([]);
    }
  });

  it('refuses vision_update with 10 000 operations as a readable tool error', async () => {
    const ops = Array.from({ length: 10_000 }, (_, i) => ({ mark: 1 + (i % 3), caption: 'x' }));
    const result = await registry().call('vision_update', { image: 'p.png', ops }, context);
    expect(result.status).toBe('failed');
    expect(result.text).toContain(
      `at most ${MAX_UPDATE_OPS} operations per call; apply the rest in further vision_update calls`
    );
    expect(result.text.length).toBeLessThan(400);
  });

  it('refuses vision_mark with more marks than one call may add', async () => {
    const marks = Array.from({ length: 101 }, () => ({ at: '1,1' }));
    const result = await registry().call('vision_mark', { image: 'p.png', marks }, context);
    expect(result).toMatchObject({ status: 'failed' });
    expect(result.text).toMatch(/at most 100 marks per call/);
  });
});

describe('a marks view over many ids', () => {
  const size = { width: 400, height: 300 };
  const record = applyMarkArgs(
    emptyRecord('p.png'),
    { marks: [{ at: '10,10' }, { at: '300,200,350,250' }] },
    size
  ).record;

  it('computes the extent without spreading the ids into Math.min', () => {
    const ids = Array.from({ length: 150_000 }, (_, i) => 1 + (i % 2));
    const geometry = viewGeometry({ kind: 'marks', ids }, record, size);
    expect(geometry.panes[0].region.x0).toBeLessThanOrEqual(10);
    expect(geometry.panes[0].region.x1).toBeGreaterThanOrEqual(350);
  });

  it('the render route refuses 150 000 ids with a 400 naming the field', async () => {
    const ids = Array.from({ length: 150_000 }, () => 1);
    const route = renderRoute(
      { address: 'p.png', view: { kind: 'marks', ids }, record },
      { root: '/nonexistent', hideHidden: true, signal: new AbortController().signal }
    );
    await expect(route).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/^render: view\.ids: .*500/)
    });
  });
});
