/**
 * Pinning a chat figure or vision view into the notebook: the output bundle of a call, and the
 * notebook cell that carries it. Pure (no DOM), so the chat, the kernel bridge and the CLI build
 * the same cell.
 *
 * Why a Markdown cell with attachments, and not an output:
 * - a code cell's outputs are wiped by "Clear All Outputs", and by "Run All" (running a code cell
 *   clears its outputs first, even when its source is empty or a comment), so a pinned output
 *   would not survive either;
 * - a raw cell has no rendering at all;
 * - a Markdown cell has no outputs to clear, running it only renders it, and its attachments are
 *   MIME bundles saved inside the notebook, so they survive save, reopen and kernel restarts.
 *   nbconvert, GitHub and JupyterLab without this extension show the `![alt](attachment:…png)`
 *   image from the attachment's `image/png`.
 *
 * Two attachments, because JupyterLab's attachment resolver shows the *first* MIME type of an
 * attachment, and nbformat sorts keys on save (`application/…` sorts before `image/png`): the
 * image attachment holds only `image/png`; the bundle attachment holds the bundle, `text/plain`
 * and, for figures, the SVG (stored once). The bundle attachment's name appears in the source (in an
 * HTML comment, which renders as nothing) because JupyterLab drops attachments the source does not
 * name when it saves.
 */
import {
  BUNDLE_VERSION,
  FIGURE_MIME,
  type BundleSource,
  type BundleView,
  type FigureBundle,
  type VisionBundle
} from './bundle';
import type { PictureFingerprint } from './transcript';
import { ViewSpec, type VisionRecord } from './vision';

/** The cell-metadata key that links a pinned cell back to its chat call. */
export const PIN_METADATA_KEY = 'figure_chat';

/** The MIME bundle pinned for one figure or view (what an output would carry). */
export interface PinnedOutput {
  readonly bundle: FigureBundle | VisionBundle;
  /** The rendered picture, base64 PNG. */
  readonly png: string;
  /** Alt text of a figure, or the people caption of a view. */
  readonly text: string;
  /** The figure's SVG (figures only). */
  readonly svg?: string;
}

/** A Markdown notebook cell in nbformat 4.5 JSON. */
export interface PinnedCell {
  readonly cell_type: 'markdown';
  readonly source: string;
  readonly metadata: { readonly [PIN_METADATA_KEY]: { readonly source: BundleSource } };
  readonly attachments: Record<string, Record<string, unknown>>;
}

/** The bundle view a chat view spec stands for. */
export function bundleViewOf(spec: ViewSpec): BundleView {
  switch (spec.kind) {
    case 'map':
      return spec.cover ? { kind: 'map', cover: spec.cover } : { kind: 'map' };
    case 'marks':
      return spec.cover
        ? { kind: 'marks', ids: spec.ids, cover: spec.cover }
        : { kind: 'marks', ids: spec.ids };
    case 'closeup':
      return spec.cover
        ? { kind: 'show', at: [spec.at], cover: spec.cover }
        : { kind: 'show', at: [spec.at] };
    case 'sheet':
      return spec.cover
        ? { kind: 'show', at: spec.at, cover: spec.cover }
        : { kind: 'show', at: spec.at };
  }
}

/**
 * The view spec the figure server renders for a bundle view, or null when the (untrusted) bundle
 * names something no view can show.
 */
export function viewSpecOf(view: BundleView): ViewSpec | null {
  const cover = (view as { cover?: unknown }).cover;
  let candidate: unknown;
  switch (view.kind) {
    case 'map':
      candidate = { kind: 'map', cover };
      break;
    case 'marks':
      candidate = { kind: 'marks', ids: view.ids, cover };
      break;
    case 'show':
      candidate =
        view.at.length === 0
          ? { kind: 'map', cover }
          : view.at.length === 1
            ? { kind: 'closeup', at: view.at[0], cover }
            : { kind: 'sheet', at: view.at, cover };
      break;
  }
  const parsed = ViewSpec.safeParse(candidate);
  return parsed.success ? parsed.data : null;
}

/** The bundle of a `present_svg` call. */
export function figureBundle(alt: string, source?: BundleSource): FigureBundle {
  return source
    ? { version: BUNDLE_VERSION, kind: 'figure', alt, source }
    : { version: BUNDLE_VERSION, kind: 'figure', alt };
}

/** The bundle of one view of a vision call. */
export function visionBundle(
  picture: PictureFingerprint,
  record: VisionRecord,
  spec: ViewSpec,
  source?: BundleSource
): VisionBundle {
  const bundle: VisionBundle = {
    version: BUNDLE_VERSION,
    kind: 'vision',
    picture: {
      address: picture.address,
      sha256: picture.sha256,
      width: picture.width,
      height: picture.height
    },
    record: {
      image: record.image,
      ...(record.classes ? { classes: [...record.classes] } : {}),
      // Copied, so the bundle shares no arrays with the record it was made from.
      marks: record.marks.map(mark =>
        mark.kind === 'polygon'
          ? { ...mark, points: mark.points.map(([x, y]): [number, number] => [x, y]) }
          : { ...mark }
      )
    },
    view: bundleViewOf(spec)
  };
  return source ? { ...bundle, source } : bundle;
}

/** A name safe inside a Markdown link target and an attachment key. */
function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 60) || 'figure';
}

/** Escape text for a Markdown image's alt text (one line, no brackets that end it). */
function altText(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/([\\[\]])/g, '\\$1')
    .slice(0, 300);
}

/** The Markdown cell that pins an output; `unique` tells apart several views of one call. */
export function pinnedCell(output: PinnedOutput, unique = ''): PinnedCell {
  const source = output.bundle.source ?? { message: '', call: '' };
  const stem = `figure-chat-${safeName(source.call || output.bundle.kind)}${unique ? `-${safeName(unique)}` : ''}`;
  const image = `${stem}.png`;
  const data = `${stem}.figure-chat.json`;
  const bundleEntry: Record<string, unknown> = {
    [FIGURE_MIME]: output.bundle,
    'text/plain': output.text
  };
  if (output.svg !== undefined) {
    bundleEntry['image/svg+xml'] = output.svg;
  }
  return {
    cell_type: 'markdown',
    source: `![${altText(output.text)}](attachment:${image})\n\n<!-- ${data} -->`,
    metadata: { [PIN_METADATA_KEY]: { source } },
    attachments: {
      [image]: { 'image/png': output.png },
      [data]: bundleEntry
    }
  };
}

/** The output bundle a pinned cell carries, as an output's MIME data, or null if it has none. */
export function pinnedOutputData(
  attachments: unknown
): { data: Record<string, unknown>; png?: string } | null {
  if (!attachments || typeof attachments !== 'object') {
    return null;
  }
  let data: Record<string, unknown> | null = null;
  let png: string | undefined;
  for (const [name, value] of Object.entries(attachments as Record<string, unknown>)) {
    if (!value || typeof value !== 'object') {
      continue;
    }
    const entry = value as Record<string, unknown>;
    if (name.endsWith('.figure-chat.json') && FIGURE_MIME in entry) {
      data = { ...entry };
    } else if (name.endsWith('.png') && typeof entry['image/png'] === 'string') {
      png = entry['image/png'];
    }
  }
  if (!data) {
    return null;
  }
  if (png !== undefined) {
    data['image/png'] = png;
  }
  return { data, png };
}
