/**
 * `notebook_read` through the typed ToolHost: Figure Chat outputs (figures, and marked pictures
 * from Python's `Vision`) are listed with their alt text and marks; a hostile bundle is reported,
 * never trusted.
 */
import { notebookReadTool } from '../chat/tools/notebook-read';
import { FIGURE_MIME } from '../tools/bundle';
import type { NotebookCellJson, ToolHost } from '../tools/host';
import { ToolRegistry } from '../tools/registry';

const SHA = 'a'.repeat(64);

function hostWith(cells: NotebookCellJson[]): ToolHost {
  return {
    kind: 'notebook-fixture',
    cells: () => cells,
    pictureData: () => undefined,
    request: () => Promise.reject(new Error('notebook_read must not call the figure server')),
    vision: { messages: () => [], owner: cells }
  };
}

function visionOutput(marks: unknown[], classes?: string[]): Record<string, unknown> {
  return {
    output_type: 'display_data',
    data: {
      [FIGURE_MIME]: {
        version: 1,
        kind: 'vision',
        picture: { address: 'array-1a2b3c4d5e6f', sha256: SHA, width: 400, height: 300 },
        record: { image: 'array-1a2b3c4d5e6f', marks, ...(classes ? { classes } : {}) },
        view: { kind: 'map' }
      },
      'application/vnd.figure-chat.widget+json': { version: 1, model_id: 'm1' },
      'image/png': 'iVBORw0KGgo=',
      'text/plain': 'marks'
    },
    metadata: {}
  };
}

async function read(cells: NotebookCellJson[]): Promise<string> {
  const registry = new ToolRegistry();
  registry.register(notebookReadTool);
  const output = await registry.call(
    'notebook_read',
    {},
    { signal: new AbortController().signal, host: hostWith(cells) }
  );
  expect(output.status).toBe('completed');
  return output.text;
}

describe('notebook_read lists Figure Chat outputs', () => {
  it('gives a figure its alt text and a marked picture its marks', async () => {
    const text = await read([
      {
        id: 'c1',
        cell_type: 'code',
        source: 'Figure(svg, alt="Three stages")',
        outputs: [
          {
            output_type: 'display_data',
            data: {
              [FIGURE_MIME]: { version: 1, kind: 'figure', alt: 'Three stages' },
              'image/svg+xml': '<svg/>',
              'image/png': 'iVBORw0KGgo=',
              'text/plain': 'Three stages'
            },
            metadata: {}
          }
        ]
      },
      {
        id: 'c2',
        cell_type: 'code',
        source: 'v',
        outputs: [
          visionOutput([
            { id: 1, kind: 'point', x: 120, y: 80, r: 6, caption: 'cell', colour: 'green' },
            { id: 3, kind: 'box', x0: 300, y0: 40, x1: 380, y1: 160, caption: '', colour: 'red' }
          ])
        ]
      }
    ]);
    expect(text).toContain('[0] Figure Chat figure: Three stages');
    expect(text).toContain(
      '[0] Figure Chat marked picture array-1a2b3c4d5e6f (400×300, a live Vision widget), view image cell:c2/0: 2 marks:'
    );
    expect(text).toContain('#1 point 120,80 r 6 green "cell"');
    expect(text).toContain('#3 box 300,40,380,160 red');
  });

  it('tells the class list of a labelled picture, with labels and polygons', async () => {
    const marks = [
      {
        id: 1,
        kind: 'box',
        x0: 1,
        y0: 2,
        x1: 30,
        y1: 40,
        caption: '',
        colour: 'red',
        label: 'apple'
      },
      {
        id: 2,
        kind: 'polygon',
        points: [
          [10, 10],
          [90, 10],
          [50, 80]
        ],
        caption: '',
        colour: 'blue',
        label: 'pear'
      }
    ];
    const text = await read([
      {
        id: 'c4',
        cell_type: 'code',
        source: 'v',
        outputs: [visionOutput(marks, ['apple', 'orange', 'pear'])]
      }
    ]);
    expect(text).toContain('view image cell:c4/0; classes: "apple", "orange", "pear": 2 marks:');
    expect(text).toContain('#1 box 1,2,30,40 red label "apple"');
    expect(text).toContain('#2 polygon 10,10,90,10,50,80 blue label "pear"');
    // A label outside the class list is reported, not listed.
    const hostile = await read([
      { id: 'c5', cell_type: 'code', source: 'v', outputs: [visionOutput(marks, ['apple'])] }
    ]);
    expect(hostile).toContain('its marks are unreadable');
    expect(hostile).toContain('"pear"');
  });

  it('lists the pictures of a VisionSet by address, with their status and marks', async () => {
    const output = visionOutput([], ['apple']);
    const bundle = (output.data as Record<string, Record<string, unknown>>)[FIGURE_MIME];
    bundle.set = {
      index: 0,
      count: 2,
      labelled: 1,
      pictures: [
        {
          name: 'a.jpg',
          address: 'pics/a.jpg',
          status: 'submitted',
          sha256: SHA,
          width: 400,
          height: 300
        },
        {
          name: 'b.jpg',
          address: 'pics/b.jpg',
          status: 'new',
          record: { image: 'pics/b.jpg', marks: [{ id: 1 }, { id: 2 }] }
        }
      ]
    };
    const text = await read([{ id: 'c6', cell_type: 'code', source: 's', outputs: [output] }]);
    expect(text).toContain('a VisionSet of 2 pictures, 1 submitted, showing number 1');
    expect(text).toContain('      pics/a.jpg (submitted)');
    expect(text).toContain('      pics/b.jpg (new, 2 marks, not read by the kernel yet)');
  });

  it('reports a bundle whose marks lie outside the picture instead of listing them', async () => {
    const text = await read([
      {
        id: 'c3',
        cell_type: 'code',
        source: 'v',
        outputs: [
          visionOutput([
            { id: 1, kind: 'point', x: 9000, y: 80, r: 6, caption: '', colour: 'green' }
          ])
        ]
      }
    ]);
    expect(text).toContain('its marks are unreadable');
    expect(text).toContain('outside the 400×300 picture');
  });

  it('fails clearly without a host', async () => {
    const registry = new ToolRegistry();
    registry.register(notebookReadTool);
    const output = await registry.call(
      'notebook_read',
      {},
      { signal: new AbortController().signal, host: null }
    );
    expect(output).toEqual({
      status: 'failed',
      text: 'Tool error: this tool needs a host (a notebook and the figure server)'
    });
  });
});
