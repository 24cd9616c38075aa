/**
 * The vision tools the chat registers. They live in `src/tools` (they need only a ToolHost), so
 * the kernel program runs the very same handlers.
 */
export { renderViews, visionTools } from '../../tools/vision-tools';
