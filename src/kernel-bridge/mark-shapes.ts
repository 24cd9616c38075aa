/**
 * The marks of the Vision widget as SVG elements, in original-pixel coordinates (the editor's
 * `viewBox` is the picture's size). `unit` is original pixels per screen pixel, so strokes and
 * labels keep their on-screen size however far the preview is scaled down.
 */
import { markBounds, PALETTE_HEX, type Mark, type VisionRecord } from '../tools/vision';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A value kept between two bounds. */
export function clamp(value: number, low: number, high: number): number {
  return Math.max(low, Math.min(high, value));
}

/** An SVG element with attributes. */
export function svgElement<K extends keyof SVGElementTagNameMap>(
  name: K,
  attributes: Record<string, string | number>
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attributes)) {
    element.setAttribute(key, String(value));
  }
  return element;
}

/** Where a mark would be after moving by (dx, dy), kept inside the picture. */
export function movedAddress(
  mark: Mark,
  dx: number,
  dy: number,
  width: number,
  height: number
): string {
  if (mark.kind === 'point') {
    return `${clamp(mark.x + dx, 0, width - 1)},${clamp(mark.y + dy, 0, height - 1)}`;
  }
  if (mark.kind === 'polygon') {
    const b = markBounds(mark);
    const px = clamp(dx, -b.x0, width - b.x1);
    const py = clamp(dy, -b.y0, height - b.y1);
    return mark.points.map(([x, y]) => `${x + px},${y + py}`).join(',');
  }
  const sx = clamp(dx, -mark.x0, width - mark.x1);
  const sy = clamp(dy, -mark.y0, height - mark.y1);
  return `${mark.x0 + sx},${mark.y0 + sy},${mark.x1 + sx},${mark.y1 + sy}`;
}

/**
 * A polygon's vertex handles: circles of 9 screen pixels across, each naming its vertex's index
 * in `data-vertex`.
 */
export function vertexElements(
  points: ReadonlyArray<readonly [number, number]>,
  unit: number
): SVGCircleElement[] {
  return points.map(([x, y], index) =>
    svgElement('circle', {
      class: 'jp-FigureChat-visionHandle jp-FigureChat-visionVertex',
      'data-vertex': index,
      cx: x,
      cy: y,
      r: 4.5 * unit,
      'stroke-width': unit
    })
  );
}

/** Where a polygon would be with vertex `index` at (x, y), kept on the picture's pixel edges. */
export function movedVertexAddress(
  points: ReadonlyArray<readonly [number, number]>,
  index: number,
  x: number,
  y: number,
  width: number,
  height: number
): string {
  return points
    .map(([px, py], i) => (i === index ? [clamp(x, 0, width), clamp(y, 0, height)] : [px, py]))
    .map(([px, py]) => `${px},${py}`)
    .join(',');
}

/** The vertex index a pointer event's target names (a vertex handle), if any. */
export function vertexIndexOf(target: EventTarget | null): number | null {
  const value = target instanceof Element ? target.getAttribute('data-vertex') : null;
  const index = value === null ? NaN : Number(value);
  return Number.isInteger(index) && index >= 0 ? index : null;
}

/** One `<g>` per mark: its shape and its number with caption; the selected one drawn thicker. */
export function markElements(
  record: VisionRecord,
  selected: number | null,
  unit: number
): SVGGElement[] {
  return record.marks.map(mark => {
    const colour = PALETTE_HEX[mark.colour];
    const isSelected = mark.id === selected;
    const group = svgElement('g', {
      'data-mark': mark.id,
      tabindex: 0,
      role: 'button',
      'aria-label': `#${mark.id} ${mark.kind} ${mark.label ?? ''} ${mark.caption}`
        .replace(/\s+/g, ' ')
        .trim(),
      ...(mark.label === undefined ? {} : { 'data-label': mark.label }),
      class: `jp-FigureChat-visionMark${isSelected ? ' jp-mod-selected' : ''}`
    });
    const stroke = { stroke: colour, 'stroke-width': (isSelected ? 4 : 2) * unit };
    const bounds = markBounds(mark);
    const shape =
      mark.kind === 'point'
        ? svgElement('circle', { cx: mark.x + 0.5, cy: mark.y + 0.5, r: mark.r, ...stroke })
        : mark.kind === 'polygon'
          ? svgElement('polygon', {
              points: mark.points.map(p => p.join(',')).join(' '),
              ...stroke
            })
          : svgElement('rect', {
              x: mark.x0,
              y: mark.y0,
              width: mark.x1 - mark.x0,
              height: mark.y1 - mark.y0,
              ...stroke
            });
    const label = svgElement('text', {
      x: mark.kind === 'point' ? mark.x + mark.r + 2 * unit : bounds.x0 + 2 * unit,
      y: mark.kind === 'point' ? mark.y : bounds.y0 - 3 * unit,
      fill: colour,
      'font-size': 13 * unit,
      'stroke-width': 3 * unit
    });
    label.textContent = [String(mark.id), mark.label, mark.caption].filter(Boolean).join(' ');
    group.append(shape, label);
    if (isSelected && mark.kind === 'polygon') {
      // The selected polygon's vertices, each dragged on its own (vision-editor-pointer.ts).
      group.append(...vertexElements(mark.points, unit));
    }
    return group;
  });
}
