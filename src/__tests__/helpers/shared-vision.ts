/**
 * The shared-vision tests' fixture (shared-vision.test.ts, shared-vision-set.test.ts): a 200×150
 * PNG that a Vision output in cell `v1` shows, the kernel side of a live widget as the kernel
 * bridge keeps it, and a tool host whose figure-server requests go to the test file's real figure
 * server (real sharp and resvg over loopback). A test file calls {@link useSharedVision} once at
 * its top level; jest gives each file its own copy of this module.
 */
import { createHash } from 'node:crypto';

import sharp from 'sharp';

import {
  findSharedVision,
  LIVE_WIDGET_MIME,
  readUnreadSetPicture
} from '../../chat/tools/shared-vision';
import { visionTools } from '../../chat/tools/vision';
import { FIGURE_MIME } from '../../tools/bundle';
import type {
  LiveVisionWidget,
  LiveVisionWidgets,
  NotebookCellJson,
  ToolHost
} from '../../tools/host';
import { ToolRegistry, type ToolOutput } from '../../tools/registry';
import type { StoredMessage } from '../../tools/transcript';
import type { VisionRecord } from '../../tools/vision';
import { useFigureServer } from './loopback';

export const ADDRESS = 'array-0123456789ab';

let png: Buffer;
let picture: { address: string; sha256: string; width: number; height: number };
let figureServerUrl = '';

/** The picture's PNG bytes (once {@link useSharedVision}'s set-up has run). */
export function samplePng(): Buffer {
  return png;
}

/** The picture's fingerprint, as its Vision output stores it. */
export function samplePicture(): typeof picture {
  return picture;
}

/** Start the test file's figure server and make the picture, before its tests. */
export function useSharedVision(): void {
  const figureServer = useFigureServer('fc-shared-');
  beforeAll(async () => {
    figureServerUrl = figureServer.url;
    png = await sharp({
      create: { width: 200, height: 150, channels: 3, background: { r: 90, g: 140, b: 200 } }
    })
      .png()
      .toBuffer();
    picture = {
      address: ADDRESS,
      sha256: createHash('sha256').update(png).digest('hex'),
      width: 200,
      height: 150
    };
  });
}

/** The person's click, as the widget writes it. */
export const CLICK = {
  id: 1,
  kind: 'point',
  x: 40,
  y: 30,
  r: 4,
  caption: 'clicked',
  colour: 'yellow'
};

/**
 * A widget's record as the kernel bridge keeps it: the marks in `_record`, the picture's bytes
 * with the kernel (counted, to see they cross once per use).
 */
export class WidgetRecord implements LiveVisionWidget {
  value: unknown;
  writes = 0;
  pictureAsks = 0;
  constructor(marks: unknown[]) {
    this.value = { image: ADDRESS, marks, lastId: marks.length };
  }
  record(): unknown {
    return this.value;
  }
  /** What the kernel answers a write with, when it refuses it. */
  refusal: string | null = null;
  /** The record each write was planned from. */
  bases: unknown[] = [];
  write(record: VisionRecord, base: unknown): Promise<void> {
    this.writes += 1;
    this.bases.push(base);
    if (this.refusal) {
      return Promise.reject(new Error(this.refusal));
    }
    this.value = record;
    return Promise.resolve();
  }
  pictureData(): Promise<string> {
    this.pictureAsks += 1;
    return Promise.resolve(samplePng().toString('base64'));
  }
  async pictureRead(): Promise<{ data: string; sha256: string }> {
    return { data: await this.pictureData(), sha256: samplePicture().sha256 };
  }
}

export function liveWidgets(widgets: Record<string, LiveVisionWidget>): LiveVisionWidgets {
  return { widget: id => widgets[id] };
}

/** A notebook whose cell `v1` shows a Vision output; its saved record has `savedMarks`. */
export function notebook(savedMarks: unknown[] = []): NotebookCellJson[] {
  return [
    {
      id: 'v1',
      cell_type: 'code',
      source: 'v = Vision(picture)\nv',
      outputs: [
        {
          output_type: 'display_data',
          data: {
            [LIVE_WIDGET_MIME]: { version: 1, model_id: 'm1' },
            [FIGURE_MIME]: {
              version: 1,
              kind: 'vision',
              picture: samplePicture(),
              record: { image: ADDRESS, marks: savedMarks },
              view: { kind: 'map' }
            },
            'image/png': 'iVBORw0KGgo=',
            'text/plain': 'marks'
          },
          metadata: {}
        }
      ]
    }
  ];
}

export async function post<T>(route: string, body: unknown, signal: AbortSignal): Promise<T> {
  const response = await fetch(`${figureServerUrl}/figure-chat/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal
  });
  if (response.ok && response.headers.get('Content-Type') === 'application/octet-stream') {
    return new Uint8Array(await response.arrayBuffer()) as T;
  }
  const data = (await response.json()) as T & { error?: { message: string } };
  if (!response.ok) {
    throw new Error(data.error?.message ?? String(response.status));
  }
  return data;
}

export function hostOf(
  cells: NotebookCellJson[],
  live: LiveVisionWidgets | null,
  messages: StoredMessage[] = []
): ToolHost {
  const owner = {};
  return {
    kind: 'notebook-with-vision',
    cells: () => cells,
    pictureData: () => undefined,
    request: post,
    vision: {
      messages: () => messages,
      owner,
      shared: address => findSharedVision(cells, address, live),
      readShared: (address, signal) => readUnreadSetPicture(cells, address, live, post, signal)
    }
  };
}

export function run(
  host: ToolHost,
  name: string,
  args: Record<string, unknown>
): Promise<ToolOutput> {
  const registry = new ToolRegistry();
  for (const tool of visionTools) {
    registry.register(tool);
  }
  return registry.call(name, args, { signal: new AbortController().signal, host });
}
