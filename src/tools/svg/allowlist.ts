/**
 * The allowlist of static SVG: which elements and attributes a figure may use, and which
 * well-known forbidden names get a specific rejection instead of a generic "unknown" one.
 */
import type { SvgRejectionKind } from './result';

/** The SVG namespace; the root and every element must be in it. */
export const SVG_NS = 'http://www.w3.org/2000/svg';
/** XLink: only `xlink:href` and `xlink:title` are read from it. */
export const XLINK_NS = 'http://www.w3.org/1999/xlink';
/** The `xml:` prefix's namespace (`xml:space`, `xml:lang`). */
export const XML_NS = 'http://www.w3.org/XML/1998/namespace';
/** Namespace declarations (`xmlns`, `xmlns:p`) live here. */
export const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
/** XInclude, which would pull other documents in. */
export const XINCLUDE_NS = 'http://www.w3.org/2001/XInclude';

const FILTER_PRIMITIVES = [
  'feBlend',
  'feColorMatrix',
  'feComponentTransfer',
  'feComposite',
  'feConvolveMatrix',
  'feDiffuseLighting',
  'feDisplacementMap',
  'feDistantLight',
  'feDropShadow',
  'feFlood',
  'feFuncA',
  'feFuncB',
  'feFuncG',
  'feFuncR',
  'feGaussianBlur',
  'feMerge',
  'feMergeNode',
  'feMorphology',
  'feOffset',
  'fePointLight',
  'feSpecularLighting',
  'feSpotLight',
  'feTile',
  'feTurbulence'
];

/** Elements of static SVG a figure may use (SVG namespace, exact case). */
export const ALLOWED_ELEMENTS: ReadonlySet<string> = new Set([
  'svg',
  'g',
  'defs',
  'symbol',
  'use',
  'title',
  'desc',
  'metadata',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'text',
  'tspan',
  'textPath',
  'linearGradient',
  'radialGradient',
  'stop',
  'pattern',
  'clipPath',
  'mask',
  'marker',
  'filter',
  'style',
  ...FILTER_PRIMITIVES
]);

/** Elements whose text content is meaningful (everything else may hold only whitespace). */
export const TEXT_ELEMENTS: ReadonlySet<string> = new Set([
  'title',
  'desc',
  'metadata',
  'text',
  'tspan',
  'textPath',
  'style'
]);

/** A forbidden element with its own rejection class and fix. */
interface ForbiddenElement {
  readonly kind: SvgRejectionKind;
  readonly fix: string;
}

const ANIMATION: ForbiddenElement = {
  kind: 'animation',
  fix: 'remove animation — figures must be static'
};
const RASTER: ForbiddenElement = {
  kind: 'raster',
  fix: 'draw it with vector shapes — embedded or linked raster images are not allowed'
};

/**
 * Forbidden elements recognised by lower-cased local name in any namespace, so `<Script>`,
 * `<svg:script>` and an XHTML `<script>` all get the script message rather than a vaguer one.
 */
export const FORBIDDEN_ELEMENTS: ReadonlyMap<string, ForbiddenElement> = new Map([
  ['script', { kind: 'script', fix: 'remove scripts — figures must be static' }],
  ['handler', { kind: 'script', fix: 'remove scripts — figures must be static' }],
  [
    'a',
    { kind: 'link', fix: 'remove the link and keep its content — figures are not interactive' }
  ],
  ['animate', ANIMATION],
  ['set', ANIMATION],
  ['animatemotion', ANIMATION],
  ['animatetransform', ANIMATION],
  ['animatecolor', ANIMATION],
  ['discard', ANIMATION],
  ['mpath', ANIMATION],
  [
    'foreignobject',
    { kind: 'foreign-object', fix: 'draw the content with SVG shapes and <text> instead of HTML' }
  ],
  ['image', RASTER],
  ['feimage', RASTER],
  ['img', RASTER],
  ['font-face', { kind: 'font-face', fix: 'remove it and use a generic font-family' }],
  ['font-face-uri', { kind: 'font-face', fix: 'remove it and use a generic font-family' }],
  ['include', { kind: 'xinclude', fix: 'inline the content — figures must be self-contained' }]
]);

/** Presentation properties: valid both as attributes and as CSS declarations. */
const PRESENTATION = `
  alignment-baseline baseline-shift clip clip-path clip-rule color color-interpolation
  color-interpolation-filters color-rendering direction display dominant-baseline fill
  fill-opacity fill-rule filter flood-color flood-opacity font font-family font-size
  font-size-adjust font-stretch font-style font-variant font-weight glyph-orientation-horizontal
  glyph-orientation-vertical image-rendering isolation letter-spacing lighting-color marker
  marker-start marker-mid marker-end mask mask-type mix-blend-mode opacity overflow paint-order
  pointer-events shape-rendering stop-color stop-opacity stroke stroke-dasharray
  stroke-dashoffset stroke-linecap stroke-linejoin stroke-miterlimit stroke-opacity stroke-width
  text-anchor text-decoration text-rendering unicode-bidi vector-effect visibility white-space
  word-spacing writing-mode transform transform-origin
`;

/** Geometry properties SVG 2 also lets CSS set. */
const CSS_GEOMETRY = 'x y cx cy r rx ry width height d';

/** Attributes only meaningful as attributes: structure, geometry, text, paint servers, filters. */
const NON_CSS_ATTRIBUTES = `
  id class style lang role version baseProfile viewBox preserveAspectRatio
  x1 y1 x2 y2 fx fy fr points pathLength href
  dx dy rotate textLength lengthAdjust startOffset method spacing side path
  gradientUnits gradientTransform spreadMethod offset
  patternUnits patternContentUnits patternTransform clipPathUnits maskUnits maskContentUnits
  markerWidth markerHeight markerUnits refX refY orient
  filterUnits primitiveUnits result in in2 stdDeviation edgeMode mode type values tableValues
  slope intercept amplitude exponent operator k1 k2 k3 k4 order kernelMatrix divisor bias
  targetX targetY preserveAlpha kernelUnitLength surfaceScale diffuseConstant specularConstant
  specularExponent scale xChannelSelector yChannelSelector radius baseFrequency numOctaves seed
  stitchTiles azimuth elevation z pointsAtX pointsAtY pointsAtZ limitingConeAngle media
`;

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

/** The attribute allowlist (attributes in no namespace), for every allowed element. */
export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set([
  ...words(PRESENTATION),
  ...words(CSS_GEOMETRY),
  ...words(NON_CSS_ATTRIBUTES)
]);

/** Attributes renderers parse as CSS values (escapes and at-rules are refused in them). */
export const PRESENTATION_ATTRIBUTES: ReadonlySet<string> = new Set(words(PRESENTATION));

/** `aria-*` attributes only label the figure; any of them is allowed. */
export const ARIA_ATTRIBUTE = /^aria-[a-z]+$/;

/**
 * CSS properties a `style` attribute or `<style>` sheet may set: the presentation properties plus
 * the few CSS-only ones diagrams use.
 */
export const ALLOWED_CSS_PROPERTIES: ReadonlySet<string> = new Set([
  ...words(PRESENTATION),
  ...words(CSS_GEOMETRY),
  ...words(`
    font-feature-settings font-kerning text-transform transform-box line-height
    text-decoration-line text-decoration-color text-decoration-style inline-size
  `)
]);
