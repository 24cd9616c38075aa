/**
 * The named limits of the `present_svg` trust boundary (SPEC section 7). They bound what a
 * model-authored figure may cost a reader: source size, raster size, tree size and nesting.
 */

/** Largest accepted SVG source, counted in UTF-8 bytes (not UTF-16 code units). */
export const SVG_MAX_BYTES = 64 * 1024;

/** Largest intrinsic width or height, in CSS pixels. */
export const SVG_MAX_SIDE = 4096;

/** Largest intrinsic area (width × height), in CSS pixels. */
export const SVG_MAX_AREA = 16_000_000;

/** Most elements after `use` and `url(#…)` references are expanded. */
export const SVG_MAX_NODES = 10_000;

/** Deepest element nesting, counting the depth that references add when expanded. */
export const SVG_MAX_DEPTH = 64;
