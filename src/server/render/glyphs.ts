/**
 * Overlay labels as outlines from a glyph cache, so resvg does not shape and outline the same
 * few characters for every render (tick labels and mark numbers were half of an overlay's cost).
 *
 * The outlines come from resvg itself: each character is laid out once per font size by resvg
 * (usvg turns text into paths), and its outline and advance are kept. A label is then those
 * outlines placed side by side, the way resvg places them for strings of these characters (no
 * kerning among them), with coordinates rounded to f32 as resvg rounds them: the labels rasterize
 * identically to resvg's own text (`bench/vision-glyphs.mjs` compares). Text with any other
 * character, any attribute this module does not know, or a font that will not load, is left to
 * resvg.
 */
import { Resvg, type ResvgRenderOptions } from '@resvg/resvg-js';

/** Characters drawn from the cache: what tick labels, mark numbers and tile labels are made of. */
export const OUTLINED_CHARACTERS = '0123456789#,.-';

/** Attributes a cached label may carry besides its position, size and anchor. */
const PAINT_ATTRIBUTES = new Set([
  'fill',
  'fill-opacity',
  'stroke',
  'stroke-width',
  'stroke-linejoin',
  'stroke-opacity',
  'paint-order'
]);

/** Most font sizes kept; overlays use three. */
const MAX_SIZES = 16;

/**
 * Characters of outlined labels kept by their `<text>` element (about 2 MB): the labels of a few
 * views. A view drawn again (its marks changed, the view cache emptied) finds its ruler labels
 * and the numbers of marks that did not move here, instead of writing every coordinate again.
 */
export const OUTLINED_LABEL_CHARACTERS = 1024 * 1024;

interface Glyph {
  /** Path commands with absolute coordinates, pen at the origin on the baseline. */
  readonly commands: ReadonlyArray<{ readonly op: string; readonly args: readonly number[] }>;
  readonly advance: number;
}

type Face = ReadonlyMap<string, Glyph>;

function parsePath(d: string): Glyph['commands'] {
  const commands: Array<{ op: string; args: number[] }> = [];
  for (const token of d.trim().split(/\s+/)) {
    if (/^[A-Za-z]$/.test(token)) {
      if (!'MLQCZ'.includes(token)) {
        throw new Error(`glyph outline uses "${token}", not one of M L Q C Z`);
      }
      commands.push({ op: token, args: [] });
    } else {
      const value = Number(token);
      if (!Number.isFinite(value) || commands.length === 0) {
        throw new Error(`glyph outline has a stray "${token}"`);
      }
      commands[commands.length - 1].args.push(value);
    }
  }
  return commands;
}

function pathData(svg: string): string[] {
  return [...svg.matchAll(/<path\b[^>]*\sd="([^"]*)"/g)].map(match => match[1]);
}

/**
 * Lay out every cached character at `size` with resvg: once starting at x = 0 (the outline) and
 * once ending there (its first point moves left by the advance).
 */
function loadFace(size: number, options: ResvgRenderOptions): Face {
  const characters = [...OUTLINED_CHARACTERS];
  const texts = characters
    .map(
      c =>
        `<text x="0" y="0" font-size="${size}">${c}</text>` +
        `<text x="0" y="0" font-size="${size}" text-anchor="end">${c}</text>`
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1">${texts}</svg>`;
  const paths = pathData(new Resvg(svg, { ...options, fitTo: { mode: 'original' } }).toString());
  if (paths.length !== 2 * characters.length) {
    throw new Error(`glyph cache: ${paths.length} outlines for ${characters.length} characters`);
  }
  const face = new Map<string, Glyph>();
  characters.forEach((c, i) => {
    const commands = parsePath(paths[2 * i]);
    const ended = parsePath(paths[2 * i + 1]);
    const advance = commands[0].args[0] - ended[0].args[0];
    if (!(advance > 0) || commands.length !== ended.length) {
      throw new Error(`glyph cache: no advance for "${c}"`);
    }
    face.set(c, { commands, advance });
  });
  return face;
}

/**
 * `k / 10^digits` as `String` writes it (the shortest decimal that reads back as that double,
 * which for |k| < 2^53 is the decimal itself without trailing zeros), from integers only: what
 * label coordinates cost most was that conversion of a double.
 */
export function fixedDecimal(k: number, digits: 5 | 6): string {
  const sign = k < 0 ? '-' : '';
  const magnitude = k < 0 ? -k : k;
  const unit = digits === 5 ? 1e5 : 1e6;
  const whole = Math.floor(magnitude / unit);
  let fraction = magnitude - whole * unit;
  if (fraction === 0) {
    return whole === 0 ? '0' : sign + whole;
  }
  let places: number = digits;
  while (fraction % 10 === 0) {
    fraction /= 10;
    places--;
  }
  // Zeros between the point and the fraction's digits: at most five (fraction ≥ 1, places ≤ 6).
  const text = String(fraction);
  return sign + whole + POINT_ZEROS[places - text.length] + text;
}

/** The decimal point followed by 0–5 zeros, by their number. */
const POINT_ZEROS = ['.', '.0', '.00', '.000', '.0000', '.00000'];

function num(value: number): string {
  // resvg lays text out in f32; rounding the same way keeps labels pixel-identical to its own text.
  const f = Math.fround(value);
  // Any decimal that reads back as the same f32 draws the same pixels. Above 16 (every label
  // coordinate but the first few pixels of a view), an f32's spacing is at least 2^-19, so six
  // decimals (five above 128) nearly always read back exactly: the check keeps it exact, and
  // toPrecision, many times slower, is left for the rest. The shorter text also parses faster.
  const magnitude = f < 0 ? -f : f;
  if (magnitude >= 128) {
    const k = Math.round(f * 1e5);
    if (Math.fround(k / 1e5) === f) {
      return fixedDecimal(k, 5);
    }
  } else if (magnitude >= 16) {
    const k = Math.round(f * 1e6);
    if (Math.fround(k / 1e6) === f) {
      return fixedDecimal(k, 6);
    }
  }
  return String(Number(f.toPrecision(9)));
}

/** A string of its own, not a slice of (or a rope over) a larger one. */
function detached(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

function unescapeXml(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

/** Cached glyph outlines for one set of resvg font options. */
export class GlyphCache {
  private readonly _faces = new Map<number, Face | null>();
  /** Outlines by the `<text>` element they replace, oldest first (see OUTLINED_LABEL_CHARACTERS). */
  private readonly _labels = new Map<string, string>();
  private _labelCharacters = 0;

  constructor(private readonly _options: ResvgRenderOptions) {}

  private _face(size: number): Face | null {
    let face = this._faces.get(size);
    if (face === undefined) {
      if (this._faces.size >= MAX_SIZES) {
        this._faces.clear();
      }
      try {
        face = loadFace(size, this._options);
      } catch {
        // Text stays text: resvg still draws it, only slower.
        face = null;
      }
      this._faces.set(size, face);
    }
    return face;
  }

  /**
   * A label as one `<path>` (one path, so its halo stroke lies under all of its fill, as with
   * `paint-order="stroke"` on text), or `undefined` when it should stay text.
   */
  labelPath(
    text: string,
    x: number,
    baseline: number,
    size: number,
    anchor: string,
    paint: string
  ): string | undefined {
    if (text.length === 0 || [...text].some(c => !OUTLINED_CHARACTERS.includes(c))) {
      return undefined;
    }
    const face = this._face(size);
    if (!face) {
      return undefined;
    }
    const glyphs = [...text].map(c => face.get(c) as Glyph);
    const width = glyphs.reduce((sum, glyph) => sum + glyph.advance, 0);
    let pen = anchor === 'middle' ? x - width / 2 : anchor === 'end' ? x - width : x;
    // Written by appending (a rope V8 joins once), which cost half of collecting the tokens in
    // an array and joining them.
    let d = '';
    for (const glyph of glyphs) {
      for (const { op, args } of glyph.commands) {
        d += d === '' ? op : ' ' + op;
        for (let i = 0; i < args.length; i += 2) {
          d += ' ' + num(args[i] + pen) + ' ' + num(args[i + 1] + baseline);
        }
      }
      pen += glyph.advance;
    }
    return `<path ${paint} d="${d}"/>`;
  }

  /**
   * The overlay with each `<text>` it can draw replaced by the label's outline. Text it cannot
   * draw (other characters, other attributes) is left as it is, for resvg to shape.
   */
  outlineText(svg: string): string {
    return svg.replace(/<text\b([^>]*)>([^<]*)<\/text>/g, (element: string, attributes, body) => {
      const known = this._labels.get(element);
      if (known !== undefined) {
        return known;
      }
      const outlined = this._outline(element, attributes as string, body as string);
      this._keep(element, outlined);
      return outlined;
    });
  }

  /** Characters of the outlined labels kept, element and outline (at most OUTLINED_LABEL_CHARACTERS). */
  get keptLabelCharacters(): number {
    return this._labelCharacters;
  }

  /** Forget the outlined labels kept (not the glyphs): the benchmark's cold views. */
  forgetLabels(): void {
    this._labels.clear();
    this._labelCharacters = 0;
  }

  /** Keep a label's outline, the oldest dropped past OUTLINED_LABEL_CHARACTERS. */
  private _keep(element: string, outlined: string): void {
    const size = element.length + outlined.length;
    if (size > OUTLINED_LABEL_CHARACTERS / 16) {
      return;
    }
    // Copies: a match is a slice of the whole overlay, which a kept slice would keep alive.
    this._labels.set(detached(element), detached(outlined));
    this._labelCharacters += size;
    for (const [oldest, kept] of this._labels) {
      if (this._labelCharacters <= OUTLINED_LABEL_CHARACTERS) {
        break;
      }
      this._labels.delete(oldest);
      this._labelCharacters -= oldest.length + kept.length;
    }
  }

  /** One `<text>` element as its outline, or as it is when it should stay text. */
  private _outline(element: string, attributes: string, body: string): string {
    const paint: string[] = [];
    let x: number | undefined;
    let y: number | undefined;
    let size: number | undefined;
    let anchor = 'start';
    const rest = attributes.replace(/\s*([a-z-]+)="([^"]*)"/g, (_, name: string, value) => {
      const v = value as string;
      if (name === 'x') {
        x = Number(v);
      } else if (name === 'y') {
        y = Number(v);
      } else if (name === 'font-size') {
        size = Number(v);
      } else if (name === 'text-anchor') {
        anchor = v;
      } else if (PAINT_ATTRIBUTES.has(name)) {
        paint.push(`${name}="${v}"`);
      } else {
        return `${name}=`; // unknown: leaves `rest` non-empty
      }
      return '';
    });
    if (
      rest.trim() !== '' ||
      x === undefined ||
      y === undefined ||
      size === undefined ||
      !Number.isFinite(x + y + size) ||
      !['start', 'middle', 'end'].includes(anchor)
    ) {
      return element;
    }
    return this.labelPath(unescapeXml(body), x, y, size, anchor, paint.join(' ')) ?? element;
  }
}
