/**
 * The `present_svg` tool and its SVG trust boundary, with no DOM and no native code, so the
 * browser, the figure server and the CLI share the same rules.
 */
export {
  SVG_MAX_AREA,
  SVG_MAX_BYTES,
  SVG_MAX_CONVOLVE_ORDER,
  SVG_MAX_DEPTH,
  SVG_MAX_FILTER_PRIMITIVES,
  SVG_MAX_FILTERED_AREA,
  SVG_MAX_FILTER_REGION_AREA,
  SVG_MAX_MORPHOLOGY_RADIUS,
  SVG_MAX_NODES,
  SVG_MAX_SIDE,
  SVG_MAX_TEXT_CHARACTERS,
  SVG_MAX_TURBULENCE_OCTAVES
} from './limits';
export type { SvgCheck, SvgFigureInfo, SvgRejection, SvgRejectionKind } from './result';
export { checkSvgPolicy, utf8Length } from './policy';
export {
  figureFromCall,
  PRESENT_SVG,
  PRESENT_SVG_DESCRIPTION,
  presentSvgInput,
  svgDataUri
} from './tool';
export type { PresentedFigure, PresentSvgInput, ToolCallLike } from './tool';
