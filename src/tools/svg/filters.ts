/**
 * The cost of a figure's filters, bounded by the static limits of `./limits` (see there for why
 * static rather than timed). Checked per primitive as the parser meets it, and once more for the
 * whole figure when its size is known.
 */
import type { SaxesAttributeNS } from 'saxes';

import {
  SVG_MAX_CONVOLVE_ORDER,
  SVG_MAX_FILTER_PRIMITIVES,
  SVG_MAX_FILTERED_AREA,
  SVG_MAX_MORPHOLOGY_RADIUS,
  SVG_MAX_TURBULENCE_OCTAVES
} from './limits';
import { refuse } from './result';

/** The message every filter-cost rejection starts with, so a reader knows the class at once. */
const TOO_EXPENSIVE = 'figure too expensive to draw: simplify its filters';

function tooExpensive(detail: string): never {
  refuse('filter-cost', `${TOO_EXPENSIVE} (${detail})`);
}

/** The numbers of a number-list attribute; invalid ones are dropped, as renderers ignore them. */
function numbers(value: string | undefined): number[] {
  if (value === undefined) {
    return [];
  }
  return value
    .trim()
    .split(/[\s,]+/)
    .map(Number)
    .filter(n => !Number.isNaN(n));
}

/** Counts the primitives of a figure and checks each one's cost multiplier. */
export class FilterBudget {
  private _primitives = 0;
  /** Whether the `<filter>` being read measures its primitives in its shape's bounding box. */
  private _boundingBoxUnits = false;

  /** Whether the figure has any filter primitive. */
  get used(): boolean {
    return this._primitives > 0;
  }

  /**
   * Check an element whose parent is `parent`. Only direct children of `<filter>` are primitives;
   * light sources, `feFuncX` and `feMergeNode` are parts of their primitive.
   */
  element(
    local: string,
    parent: string | undefined,
    attributes: Record<string, SaxesAttributeNS>
  ): void {
    if (local === 'filter') {
      this._boundingBoxUnits = attributes.primitiveUnits?.value.trim() === 'objectBoundingBox';
    }
    if (parent !== 'filter' || !local.startsWith('fe')) {
      return;
    }
    this._primitives++;
    if (this._primitives > SVG_MAX_FILTER_PRIMITIVES) {
      tooExpensive(
        `more than ${SVG_MAX_FILTER_PRIMITIVES} filter primitives; keep at most ${SVG_MAX_FILTER_PRIMITIVES}`
      );
    }
    switch (local) {
      case 'feTurbulence': {
        const [octaves] = numbers(attributes.numOctaves?.value);
        if (octaves !== undefined && octaves > SVG_MAX_TURBULENCE_OCTAVES) {
          tooExpensive(
            `<feTurbulence numOctaves="${octaves}">; use numOctaves ≤ ${SVG_MAX_TURBULENCE_OCTAVES}`
          );
        }
        break;
      }
      case 'feMorphology': {
        if (this._boundingBoxUnits) {
          // The radius would be a fraction of the shape's box, so no number here bounds it.
          tooExpensive(
            '<feMorphology> in a filter with primitiveUnits="objectBoundingBox"; use userSpaceOnUse'
          );
        }
        const radius = numbers(attributes.radius?.value);
        if (radius.some(r => Math.abs(r) > SVG_MAX_MORPHOLOGY_RADIUS)) {
          tooExpensive(
            `<feMorphology radius="${radius.join(' ')}">; use a radius ≤ ${SVG_MAX_MORPHOLOGY_RADIUS}`
          );
        }
        break;
      }
      case 'feConvolveMatrix': {
        const order = numbers(attributes.order?.value);
        if (order.some(n => n > SVG_MAX_CONVOLVE_ORDER)) {
          tooExpensive(
            `<feConvolveMatrix order="${order.join(' ')}">; use an order ≤ ${SVG_MAX_CONVOLVE_ORDER}`
          );
        }
        break;
      }
      default:
        break;
    }
  }

  /** Check the figure's canvas once its intrinsic size is known. */
  canvas(width: number, height: number): void {
    if (this.used && width * height > SVG_MAX_FILTERED_AREA) {
      tooExpensive(
        `filters over a ${width}×${height} px canvas; a figure with filters may cover at most ${SVG_MAX_FILTERED_AREA / 1e6} M px — scale width/height down and keep the viewBox`
      );
    }
  }
}
