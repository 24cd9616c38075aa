/**
 * The `present_svg` tool the chat registers. It lives in `src/tools` (it needs only a ToolHost),
 * so the kernel program runs the very same handler for Python's `Figure`.
 */
export { presentSvgTool } from '../../tools/present-svg';
