/**
 * The summed area of a figure's filter regions. A filter does its work for every pixel of its
 * region, once per filtered element and once per `<use>` copy of one, so sixty shapes that each
 * filter the whole canvas cost sixty canvases of work although each primitive is cheap. The
 * region is known statically from the `<filter>` and the shape's box; where it is not (a path,
 * a group, a scaling transform, a value from a sheet), the canvas is taken, so the estimate is
 * never below what a renderer does.
 */
import type { SaxesAttributeNS } from 'saxes';

import type { ElementReference, SvgElementNode } from './complexity';
import { declaredValues } from './css';
import { SVG_MAX_FILTER_REGION_AREA } from './limits';
import { refuse } from './result';

/** A width and a height in user units or pixels. */
interface Size {
  readonly width: number;
  readonly height: number;
}

/** What a `<filter>` says about its region. */
interface FilterRegion {
  readonly userSpace: boolean;
  readonly width: string | undefined;
  readonly height: string | undefined;
  /** Inherits attributes through `href`, which this estimate does not follow. */
  readonly inherits: boolean;
}

/** What one element brings to the sum. */
interface FilterSite {
  /** Its `filter` values (attribute and style), `none` left out. */
  readonly filters: readonly string[];
  /** Its geometry's box in user units, when its attributes alone give it. */
  readonly box: Size | undefined;
  /** Whether it draws its content at a scale this estimate does not follow. */
  readonly scales: boolean;
}

/** The filter applications of a subtree and the pixels their regions cover. */
interface Cost {
  readonly area: number;
  readonly count: number;
}

/** Elements that draw their content in a user space of their own (non-root `<svg>` too). */
const OWN_USER_SPACE = new Set(['svg', 'symbol', 'marker', 'pattern', 'mask', 'clipPath']);

/** Elements a `<style>` rule's `filter` may reach and that draw something. */
const GRAPHIC = new Set([
  'svg',
  'g',
  'use',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'path',
  'text'
]);

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const LENGTH = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(px|in|cm|mm|pt|pc|%)?$/i;
const UNIT_PX: Readonly<Record<string, number>> = {
  px: 1,
  in: 96,
  cm: 96 / 2.54,
  mm: 96 / 25.4,
  pt: 96 / 72,
  pc: 16
};

/** A plain number of user units (or px); `undefined` for anything relative. */
function userUnits(value: string | undefined): number | undefined {
  const match = value === undefined ? null : LENGTH.exec(value.trim());
  if (!match || match[2] === '%') {
    return undefined;
  }
  return Number(match[1]) * (match[2] ? UNIT_PX[match[2].toLowerCase()] : 1);
}

/** A filter length: a fraction of `whole` for a percentage, else user units (or a fraction). */
function regionLength(value: string, whole: number): number | undefined {
  const match = LENGTH.exec(value.trim());
  if (!match) {
    return undefined;
  }
  if (match[2] === '%') {
    return (Number(match[1]) / 100) * whole;
  }
  return Number(match[1]) * (match[2] ? UNIT_PX[match[2].toLowerCase()] : 1);
}

/** The box of a basic shape from its own attributes; `undefined` for anything else. */
function shapeBox(local: string, attributes: Record<string, SaxesAttributeNS>): Size | undefined {
  const get = (name: string): number | undefined => userUnits(attributes[name]?.value ?? '0');
  const box = (width: number | undefined, height: number | undefined): Size | undefined =>
    width === undefined || height === undefined
      ? undefined
      : { width: Math.abs(width), height: Math.abs(height) };
  switch (local) {
    case 'rect':
      return box(get('width'), get('height'));
    case 'circle': {
      const r = get('r');
      return box(r === undefined ? r : 2 * r, r === undefined ? r : 2 * r);
    }
    case 'ellipse': {
      const [rx, ry] = [get('rx'), get('ry')];
      return box(rx === undefined ? rx : 2 * rx, ry === undefined ? ry : 2 * ry);
    }
    case 'line': {
      const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map(get);
      if ([x1, y1, x2, y2].some(n => n === undefined)) {
        return undefined;
      }
      return box((x2 ?? 0) - (x1 ?? 0), (y2 ?? 0) - (y1 ?? 0));
    }
    case 'polyline':
    case 'polygon': {
      const numbers = (attributes.points?.value ?? '').trim().split(/[\s,]+/);
      if (numbers.length < 2 || numbers.some(n => !NUMBER.test(n))) {
        return undefined;
      }
      const xs = numbers.filter((_, i) => i % 2 === 0).map(Number);
      const ys = numbers.filter((_, i) => i % 2 === 1).map(Number);
      return box(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
    }
    default:
      return undefined;
  }
}

/** The `url(#id)` targets of a `filter` value (the policy has checked they are local). */
function filterIds(value: string): string[] {
  return [...value.matchAll(/url\(\s*['"]?#([^'")\s]+)/gi)].map(match => match[1]);
}

/** Whether a `filter` value also has filter functions (`blur()`, `drop-shadow()` …). */
function hasFunctions(value: string): boolean {
  return /[a-z-]+\s*\(/i.test(value.replace(/url\([^)]*\)/gi, ''));
}

/** The canvas a figure draws on: its size in pixels, its user space and the scale between. */
export interface FilterCanvas {
  readonly width: number;
  readonly height: number;
  readonly viewBox: string | undefined;
}

/**
 * Collects what the filtered-area sum needs while the policy walks the figure, then sums it with
 * `<use>` and other references expanded.
 */
export class FilterAreaSurvey {
  private readonly _regions = new Map<string, FilterRegion>();
  private readonly _sites = new Map<SvgElementNode, FilterSite>();
  private readonly _sheetFilters: string[] = [];
  private _sheetTransforms = false;

  /** Record an element as the parser opens it. */
  element(
    node: SvgElementNode,
    isRoot: boolean,
    attributes: Record<string, SaxesAttributeNS>
  ): void {
    const local = node.name;
    const style = attributes.style?.value ?? '';
    if (local === 'filter' && attributes.id) {
      this._regions.set(attributes.id.value, {
        userSpace: attributes.filterUnits?.value.trim() === 'userSpaceOnUse',
        width: attributes.width?.value,
        height: attributes.height?.value,
        inherits: Object.values(attributes).some(attribute => attribute.local === 'href')
      });
    }
    const filters = [attributes.filter?.value ?? '', ...declaredValues(style, 'filter')]
      .map(value => value.trim())
      .filter(value => value !== '' && value !== 'none');
    const transforms = [attributes.transform?.value ?? '', ...declaredValues(style, 'transform')]
      .map(value => value.trim())
      .filter(value => value !== '' && value !== 'none');
    const scales = transforms.length > 0 || (!isRoot && OWN_USER_SPACE.has(local));
    const box = shapeBox(local, attributes);
    // A shape's box is kept even without a filter: a `<style>` rule read later may filter it.
    if (filters.length > 0 || scales || box) {
      this._sites.set(node, { filters, box, scales });
    }
  }

  /** Record a `<style>` sheet: its `filter` and `transform` rules may match any element. */
  sheet(css: string): void {
    this._sheetFilters.push(
      ...declaredValues(css, 'filter').filter(value => value !== '' && value !== 'none')
    );
    this._sheetTransforms ||= declaredValues(css, 'transform').some(value => value !== 'none');
  }

  /**
   * Sum the regions, each clipped to the canvas, with references expanded; refuse past
   * `SVG_MAX_FILTER_REGION_AREA`. The tree has passed the node, depth and cycle checks.
   */
  check(
    root: SvgElementNode,
    ids: ReadonlyMap<string, SvgElementNode>,
    sheetRefs: readonly ElementReference[],
    canvas: FilterCanvas
  ): number {
    if (this._regions.size === 0 && this._sheetFilters.length === 0 && !this._hasFunctions()) {
      return 0;
    }
    const viewBox = canvas.viewBox
      ?.trim()
      .split(/[\s,]+/)
      .map(Number);
    const user: Size = viewBox?.length === 4 ? { width: viewBox[2], height: viewBox[3] } : canvas;
    const scale = Math.max(canvas.width / user.width, canvas.height / user.height);
    const whole = canvas.width * canvas.height;
    const clipped = (size: Size): number =>
      Math.min(size.width * scale, canvas.width) * Math.min(size.height * scale, canvas.height);

    const regionArea = (value: string, box: Size | undefined): Cost => {
      let area = hasFunctions(value) ? whole : 0;
      let count = area > 0 ? 1 : 0;
      for (const id of filterIds(value)) {
        const region = this._regions.get(id);
        if (!region) {
          continue; // not a filter: nothing is filtered
        }
        count++;
        const size = this._regionSize(region, box, user);
        area += size === undefined ? whole : size.width > 0 && size.height > 0 ? clipped(size) : 0;
      }
      return { area, count };
    };

    const memo = new Map<SvgElementNode, Cost>();
    const cost = (node: SvgElementNode): Cost => {
      const known = memo.get(node);
      if (known) {
        return known;
      }
      const site = this._sites.get(node);
      let area = 0;
      let count = 0;
      const add = (part: Cost, times: number): void => {
        area += part.area * times;
        count += part.count * times;
      };
      const sheet = GRAPHIC.has(node.name) ? this._sheetFilters : [];
      for (const value of [...(site?.filters ?? []), ...sheet]) {
        add(regionArea(value, site?.box), 1);
      }
      for (const child of node.children) {
        add(cost(child), 1);
      }
      for (const ref of node.refs) {
        const target = ids.get(ref.id);
        if (target) {
          add(cost(target), ref.times);
        }
      }
      // A scaled copy may cover more pixels than its box says: take the canvas for each.
      const result =
        site?.scales || this._sheetTransforms ? { area: count * whole, count } : { area, count };
      memo.set(node, result);
      return result;
    };

    let total = cost(root).area;
    for (const ref of sheetRefs) {
      const target = ids.get(ref.id);
      if (target) {
        total += cost(target).area * ref.times;
      }
    }
    if (total > SVG_MAX_FILTER_REGION_AREA) {
      refuse(
        'filter-cost',
        `figure too expensive to draw: simplify its filters (its filter regions cover ${(total / 1e6).toFixed(1)} M px in total, each filtered shape and each <use> copy of one counted, each region clipped to the canvas; keep the sum ≤ ${SVG_MAX_FILTER_REGION_AREA / 1e6} M px — filter fewer shapes, or put them in one <g> with one filter whose region is tight: filterUnits="userSpaceOnUse" with x, y, width, height around them)`
      );
    }
    return total;
  }

  private _hasFunctions(): boolean {
    return [...this._sites.values()].some(site => site.filters.some(hasFunctions));
  }

  /** A region's size in user units; `undefined` when it depends on what this does not know. */
  private _regionSize(region: FilterRegion, box: Size | undefined, user: Size): Size | undefined {
    if (region.inherits) {
      return undefined;
    }
    // The defaults: the box (or viewport) and 10 % more on each side.
    const width = region.width ?? '120%';
    const height = region.height ?? '120%';
    if (region.userSpace) {
      const w = regionLength(width, user.width);
      const h = regionLength(height, user.height);
      return w === undefined || h === undefined ? undefined : { width: w, height: h };
    }
    if (!box) {
      return undefined;
    }
    const w = regionLength(width, 1);
    const h = regionLength(height, 1);
    // In bounding-box units a length with a unit is an error; take the canvas.
    if (w === undefined || h === undefined || /[a-z]/i.test(width + height)) {
      return undefined;
    }
    return { width: w * box.width, height: h * box.height };
  }
}
