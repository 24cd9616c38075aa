/**
 * A view's canvas, as composited RGB pixels: its panes decoded and laid out on the margin
 * background, and its overlay rasterized (in parts where it can be) and composited over them.
 * ./render encodes and caches what this draws.
 */
import { type OverlayOptions } from 'sharp';

import {
  drawGeometry,
  paneOverlayParts,
  sheetOverlayParts,
  type Pane,
  type ViewGeometry,
  type ViewRect,
  type VisionRecord
} from '../../tools/vision';
import { overlayGlyphs, rasterizeOverlay, rasterizeOverlayParts } from './overlay';
import type { Picture } from '../pictures/pictures';
import { allocatePixels } from './png-encode';
import { decodeError, resizePanes, resizeTiles, wholeAtPaneSize } from './decode';
import type { RawImage } from './raw-image';
import { stageEnded } from './stages';

/** Background of the ruler margins, and of sheets between and around tiles. */
export const MARGIN_BACKGROUND = { r: 32, g: 32, b: 32 } as const;

async function renderSinglePane(picture: Picture, geometry: ViewGeometry): Promise<RawImage> {
  const pane = geometry.panes[0];
  const { region } = pane;
  const whole =
    region.x0 === 0 &&
    region.y0 === 0 &&
    region.x1 === picture.width &&
    region.y1 === picture.height;
  const panes = whole
    ? [await wholeAtPaneSize(picture, pane)]
    : await resizePanes(picture, geometry.panes);
  const canvas = layOutPanes(geometry, panes);
  stageEnded('panes');
  return canvas;
}

/**
 * A view's canvas before any pane is placed: the margin background everywhere, allocated for
 * ./png-encode to read in place.
 */
function blankCanvas(geometry: ViewGeometry): RawImage {
  const { width, height } = geometry;
  const background = MARGIN_BACKGROUND;
  const data = allocatePixels(width, height, 3).fill(
    Buffer.from([background.r, background.g, background.b])
  );
  return { data, raw: { width, height, channels: 3 } };
}

/**
 * A pane's pixels copied to its place on the canvas. Panes never overlap and are opaque, so
 * placing them is a copy, not a blend (one libvips composite pass per tile cost more than the
 * rest of a sheet).
 */
function placePane(canvas: RawImage, pane: Pane, image: RawImage, index: number): void {
  const { width, height } = canvas.raw;
  const { data: pixels, raw: info } = image;
  if (
    info.channels !== 3 ||
    info.width !== pane.width ||
    info.height !== pane.height ||
    pixels.length !== info.width * info.height * info.channels ||
    pane.left < 0 ||
    pane.top < 0 ||
    pane.left + pane.width > width ||
    pane.top + pane.height > height
  ) {
    throw new Error(`pane ${index} is ${info.width}×${info.height}×${info.channels}`);
  }
  const row = pane.width * 3;
  for (let y = 0; y < pane.height; y++) {
    pixels.copy(canvas.data, ((pane.top + y) * width + pane.left) * 3, y * row, (y + 1) * row);
  }
}

/**
 * The view's canvas: the margin background with each pane's pixels copied to the pane's place,
 * so rulers drawn in the margin never cover the picture.
 */
function layOutPanes(geometry: ViewGeometry, panes: readonly RawImage[]): RawImage {
  const canvas = blankCanvas(geometry);
  geometry.panes.forEach((pane, index) => placePane(canvas, pane, panes[index], index));
  return canvas;
}

/**
 * Where an overlay layer lies on the view (`drawn`, which may reach past the view's edges), and
 * the part of it that is composited (`shows`, inside the view).
 */
interface LayerPlace {
  readonly drawn: ViewRect;
  readonly shows: ViewRect;
}

/**
 * The overlay (premultiplied RGBA, as resvg draws it) over an opaque RGB canvas, in place: the
 * canvas is always the view's own (laid out by `layOutPanes`, never a cached picture), so copying
 * it first would only cost a pass over the view. Most overlay pixels are empty and most of the
 * rest opaque, so a plain loop skips or copies them; libvips' composite converted every pixel of
 * both layers and cost as much as the PNG encode of a map. A layer smaller than the view (a part
 * of a sheet's overlay) lies at `place.drawn`, and only its pixels inside `place.shows` count.
 */
function compositeOver(base: RawImage, overlay: OverlayOptions, place?: LayerPlace): RawImage {
  const pixels = overlay.input;
  const { width, height, channels } = base.raw;
  const whole = { left: 0, top: 0, width, height };
  const { drawn, shows } = place ?? { drawn: whole, shows: whole };
  const inside = (outer: ViewRect, inner: ViewRect): boolean =>
    [inner.left, inner.top, inner.width, inner.height].every(Number.isInteger) &&
    inner.left >= outer.left &&
    inner.top >= outer.top &&
    inner.left + inner.width <= outer.left + outer.width &&
    inner.top + inner.height <= outer.top + outer.height;
  if (
    !Buffer.isBuffer(pixels) ||
    channels !== 3 ||
    overlay.raw?.channels !== 4 ||
    !overlay.raw.premultiplied ||
    overlay.raw.width !== drawn.width ||
    overlay.raw.height !== drawn.height ||
    pixels.length !== drawn.width * drawn.height * 4 ||
    !inside(whole, shows) ||
    !inside(drawn, shows)
  ) {
    throw new Error(`cannot composite this overlay over a ${width}×${height}×${channels} base`);
  }
  const out = base.data;
  for (let y = shows.top; y < shows.top + shows.height; y++) {
    let i = ((y - drawn.top) * drawn.width + shows.left - drawn.left) * 4;
    const end = i + shows.width * 4;
    for (let j = (y * width + shows.left) * 3; i < end; i += 4, j += 3) {
      const alpha = pixels[i + 3];
      if (alpha === 0) {
        continue;
      }
      // Premultiplied "over": the overlay's colour plus what shows through, rounded.
      const keep = 255 - alpha;
      out[j] = pixels[i] + (((out[j] * keep + 127) / 255) | 0);
      out[j + 1] = pixels[i + 1] + (((out[j + 1] * keep + 127) / 255) | 0);
      out[j + 2] = pixels[i + 2] + (((out[j + 2] * keep + 127) / 255) | 0);
    }
  }
  return { data: out, raw: base.raw };
}

/**
 * A view's canvas: its panes' pixels laid out, and its overlay over them. A view drawn smaller
 * than its own geometry `full` (for display) has the full view's overlay SVG drawn at its size;
 * a full-size sheet is drawn in parts (`drawSheet`).
 */
export async function drawCanvas(
  picture: Picture,
  geometry: ViewGeometry,
  record: VisionRecord,
  full: ViewGeometry = geometry
): Promise<RawImage> {
  if (geometry.kind === 'sheet' && geometry === full) {
    return drawSheet(picture, geometry, record);
  }
  // The decode starts first (libvips queues it on libuv's pool at once), so drawing the overlay's
  // SVG on this thread, then rasterizing it on the pool, both overlap it. The overlay is drawn in
  // parts, canvases as large as its marks and labels (see `paneOverlayParts`): a whole-view
  // layer cost the rasterizer and the compositor the view's area, most of it empty.
  const base = renderSinglePane(picture, geometry).catch((error: unknown) => {
    throw decodeError(picture, error);
  });
  if (geometry !== full) {
    // Drawn smaller than its own geometry (for display): the full view's overlay at this size.
    const overlay = (async () =>
      rasterizeOverlay(
        overlayGlyphs().outlineText(drawGeometry(full, record, geometry)),
        geometry
      ))();
    void overlay.then(
      () => stageEnded('overlay'),
      () => undefined
    );
    const [layer, canvas] = await Promise.all([overlay, base]);
    compositeOver(canvas, layer);
    stageEnded('composited');
    return canvas;
  }
  const overlay = (async () => rasterizeOverlayParts(paneOverlayParts(geometry, record)))();
  void overlay.then(
    () => stageEnded('overlay'),
    () => undefined
  );
  const [layers, canvas] = await Promise.all([overlay, base]);
  for (const { canvas: where, layer } of layers) {
    compositeOver(canvas, layer, where);
  }
  stageEnded('composited');
  return canvas;
}

/**
 * A sheet: its tiles resized from one decode (or kept from an earlier sheet), and its overlay
 * rasterized in parts (each tile's marks on a canvas of their own, its rulers on two strips)
 * while the picture decodes. Then, layer by layer in the overlay's order, each tile a layer
 * reaches is placed as soon as it is resized (while the others still are), and the layer
 * composited over it. A whole-view overlay cost the rasterizer a layer and a mask as large as
 * the view for every tile's clip, and an empty canvas of the view's size besides.
 */
async function drawSheet(
  picture: Picture,
  geometry: ViewGeometry,
  record: VisionRecord
): Promise<RawImage> {
  const tiles = resizeTiles(picture, geometry.panes).map(tile =>
    tile.catch((error: unknown) => {
      throw decodeError(picture, error);
    })
  );
  // Each tile is awaited below in its turn; one failing meanwhile must not go unhandled.
  tiles.forEach(tile => tile.catch(() => undefined));
  void Promise.all(tiles).then(
    () => stageEnded('panes'),
    () => undefined
  );
  const overlay = (async () => rasterizeOverlayParts(sheetOverlayParts(geometry, record)))();
  void overlay.then(
    () => stageEnded('overlay'),
    () => undefined
  );
  const canvas = blankCanvas(geometry);
  const placed = new Set<number>();
  const place = async (index: number): Promise<void> => {
    if (!placed.has(index)) {
      placePane(canvas, geometry.panes[index], await tiles[index], index);
      placed.add(index);
    }
  };
  for (const { canvas: where, layer } of await overlay) {
    // A layer goes over every tile it reaches, as the whole overlay was drawn over the picture.
    const { shows } = where;
    for (const [index, pane] of geometry.panes.entries()) {
      if (
        pane.left < shows.left + shows.width &&
        shows.left < pane.left + pane.width &&
        pane.top < shows.top + shows.height &&
        shows.top < pane.top + pane.height
      ) {
        await place(index);
      }
    }
    compositeOver(canvas, layer, where);
  }
  for (const index of geometry.panes.keys()) {
    await place(index);
  }
  stageEnded('composited');
  return canvas;
}
