/**
 * The kernel program as a {@link ToolHost}: the Python `Vision` runs the registry's own vision
 * handlers (the ones the chat runs), on the record the kernel holds. The host's figure-server
 * calls are answered in process from the picture the kernel sent, and it keeps what it rendered
 * (the view specs and their PNGs) for the Python side's output.
 */
import type { ToolHost } from '../../tools/host';
import { validateRecord, type ViewSpec, type VisionRecord } from '../../tools/vision';
import { encodeRenderAnswer, RenderRequest } from '../../tools/wire';
import { HttpError } from '../http/http';
import { pictureInfo, type Picture } from '../pictures/pictures';
import { renderView } from '../render/render';

/** One view as the kernel stores it. */
export interface StoredView {
  readonly spec: ViewSpec;
  readonly png: Buffer;
  readonly width: number;
  readonly height: number;
  readonly caption: string;
}

/** Views of a record over a picture, as the PNGs an output stores. */
export function renderStored(
  source: Picture,
  record: VisionRecord,
  views: readonly ViewSpec[]
): Promise<StoredView[]> {
  return Promise.all(
    views.map(async spec => {
      // The view's own PNG is stored, encoded once. Re-encoding it with zlib at level 6 (as
      // before) held the kernel's cell 150–470 ms per map of a 4000×3000 photograph for 0.2 % fewer
      // bytes; a plot's map is about 14 % larger this way, at a few tens of kB.
      const drawn = await renderView(source, spec, record);
      return {
        spec,
        png: drawn.bytes,
        width: drawn.width,
        height: drawn.height,
        caption: drawn.caption
      };
    })
  );
}

/** A host for one kernel call, and what the call left behind. */
export interface KernelToolHost {
  readonly host: ToolHost;
  /** The record after the call (the one a mutating handler wrote back). */
  record(): VisionRecord;
  /** What the handler had rendered, in order. */
  views(): readonly StoredView[];
  /** A render that failed: the kernel raises it (the chat would only note it). */
  failure(): unknown;
}

/** The host of one `vision` call on `source`, whose record is `record` (already checked). */
export function kernelToolHost(source: Picture, record: VisionRecord): KernelToolHost {
  let current = record;
  let rendered: StoredView[] = [];
  let failure: unknown;
  const fingerprint = {
    address: source.address,
    sha256: source.sha256,
    width: source.width,
    height: source.height
  };
  const render = async (body: unknown): Promise<Uint8Array> => {
    const parsed = RenderRequest.safeParse(body);
    if (!parsed.success || parsed.data.address !== source.address) {
      throw new HttpError(400, 'render: not a request for this picture.', 'bad-request');
    }
    const specs = parsed.data.views ?? (parsed.data.view ? [parsed.data.view] : []);
    rendered = await renderStored(source, validateRecord(parsed.data.record, source), specs);
    return encodeRenderAnswer(rendered, pictureInfo(source));
  };
  const host: ToolHost = {
    kind: 'figure-chat-kernel',
    cells: () => null,
    pictureData: () => undefined,
    request: async <T>(route: string, body: unknown): Promise<T> => {
      if (route !== 'render') {
        throw new HttpError(400, `the kernel program has no ${route} route.`, 'bad-request');
      }
      try {
        // The client reads the binary answer as bytes, whatever type it asked for.
        return (await render(body)) as T;
      } catch (error) {
        failure = error;
        throw error;
      }
    },
    vision: {
      messages: () => [],
      owner: {},
      shared: address =>
        address === source.address
          ? {
              picture: fingerprint,
              where: 'widget',
              record: () => current,
              write: next => {
                current = next;
              },
              // The host renders from the picture it holds; no bytes need to travel.
              pictureData: () => Promise.resolve(undefined)
            }
          : null
    }
  };
  return { host, record: () => current, views: () => rendered, failure: () => failure };
}
