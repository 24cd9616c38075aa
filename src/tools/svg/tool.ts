/**
 * The `present_svg` tool as data: its input schema, what the model is told, and the one helper
 * that reads a figure back out of a stored call, for live and replayed rendering alike.
 */
import { z } from 'zod';

/** The tool's name as the model calls it. */
export const PRESENT_SVG = 'present_svg';

/** `present_svg { svg, alt }`: both required, neither blank (SPEC section 4.2). */
export const presentSvgInput = z.object({
  svg: z
    .string()
    .refine(value => value.trim() !== '', { message: 'svg must be a non-empty SVG document' })
    .describe('One self-contained SVG document: <svg xmlns="http://www.w3.org/2000/svg" …>…</svg>'),
  alt: z
    .string()
    .refine(value => value.trim() !== '', { message: 'alt must state what the figure conveys' })
    .describe('What the figure conveys, in one or two sentences (shown as its caption)')
});

/** The validated arguments of a `present_svg` call. */
export type PresentSvgInput = z.infer<typeof presentSvgInput>;

/** What the model is told about `present_svg`. */
export const PRESENT_SVG_DESCRIPTION = [
  'Show a static SVG diagram or illustration inline in the chat, where it appears in the answer.',
  'Use it only when a figure materially helps (structure, flow, geometry, comparison), not for decoration.',
  'Not for interactive controls or stateful UI: no scripts, event handlers, links or animation.',
  'The SVG must be self-contained: one <svg xmlns="http://www.w3.org/2000/svg"> document with width/height or a viewBox,',
  'no external resources (only local "#id" references), no raster images, no fonts to load, no foreignObject or HTML.',
  'Keep it under 64 KiB. `alt` states what the figure conveys, as a caption a reader can rely on without the picture.'
].join(' ');

/** A figure read back from a stored call. */
export interface PresentedFigure {
  readonly svg: string;
  readonly alt: string;
}

/** The parts of a stored tool call this helper reads. */
export interface ToolCallLike {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/**
 * The figure of a `present_svg` call, or `null` when the call is another tool or its arguments
 * are not well-formed. The one place that reads `svg` and `alt`, so a live card and a replayed
 * one show the same thing; the source is returned byte for byte.
 */
export function figureFromCall(call: ToolCallLike): PresentedFigure | null {
  if (call.name !== PRESENT_SVG) {
    return null;
  }
  const parsed = presentSvgInput.safeParse(call.arguments);
  return parsed.success ? { svg: parsed.data.svg, alt: parsed.data.alt } : null;
}

/** Replace lone UTF-16 surrogates, which `encodeURIComponent` would throw on. */
function wellFormed(text: string): string {
  return text.replace(
    /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    '\uFFFD'
  );
}

/**
 * A `data:image/svg+xml,` URL of the figure for `<img src>`, where browsers run no scripts and
 * load nothing external. Percent-encoded rather than base64: shorter for text, and exact.
 */
export function svgDataUri(svg: string): string {
  return `data:image/svg+xml,${encodeURIComponent(wellFormed(svg))}`;
}
