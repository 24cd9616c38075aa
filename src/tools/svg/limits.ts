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

/**
 * Most characters of figure text (spaces not counted), with `<use>` copies expanded. resvg turns
 * every glyph into an outline while it parses, and resvg-js 2.6 cannot take fonts from memory,
 * so each glyph also reopens the font file: 60 000 glyphs were 2.3 s of parsing. Diagram labels
 * fit in a fraction of this.
 */
export const SVG_MAX_TEXT_CHARACTERS = 8000;

/*
 * Filter cost. Every filter primitive does work for each pixel of its region, some of it
 * multiplied by an attribute (octaves, radius, kernel order), and a browser redoes that work on
 * every repaint of the page. These limits are static, checked by the pure policy, rather than a
 * timed trial rasterization: the browser and the server must give the same verdict, and a figure
 * must not pass or fail on replay depending on how busy the machine is.
 */

/** Most filter primitives (children of `<filter>`) in one figure. */
export const SVG_MAX_FILTER_PRIMITIVES = 32;

/**
 * Largest intrinsic area (width × height, CSS pixels) of a figure that uses filters. A filter's
 * region is clipped to the canvas, so this bounds the pixels each primitive touches.
 */
export const SVG_MAX_FILTERED_AREA = 4_000_000;

/**
 * Largest sum of the filter regions of a figure (CSS pixels): each filtered element, and each
 * `<use>` copy of one, filters its region, clipped to the canvas. Sixty shapes each filtering a
 * 2000×2000 canvas were 11–15 s of rasterizing; the 60 shadowed circles of the heaviest figure
 * the other limits pass cover about 6.8 M px.
 */
export const SVG_MAX_FILTER_REGION_AREA = 16_000_000;

/** Largest `numOctaves` of `<feTurbulence>`: each octave is one more noise pass per pixel. */
export const SVG_MAX_TURBULENCE_OCTAVES = 4;

/**
 * Largest `radius` of `<feMorphology>` (each axis, user units): the work per pixel grows with it.
 * A transform that enlarges the filtered content enlarges the radius in pixels too; the filtered
 * area limit keeps such a figure's canvas small, but this is the loosest of these bounds.
 */
export const SVG_MAX_MORPHOLOGY_RADIUS = 16;

/** Largest `order` of `<feConvolveMatrix>` (each axis): order² multiplications per pixel. */
export const SVG_MAX_CONVOLVE_ORDER = 5;
