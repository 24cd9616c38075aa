/**
 * When each stage of a view's render ends, for bench/vision-timeline.mjs: where a render's time
 * goes (the decode, the overlay beside it, the panes, the composite, the encode) is read from one
 * render at a time, not guessed from stages timed alone. Nothing is recorded unless a benchmark
 * observes: the figure server never does, and each stage then costs one comparison.
 */

/**
 * The stages of a render, in the order they usually end:
 * - `decoded`: the picture's pixels for the view decoded (the band of rows a close-up or a sheet
 *   shows, the whole picture at the map's size); not reached when they were kept from an earlier
 *   view;
 * - `overlay`: the overlay drawn and rasterized (beside the decode);
 * - `panes`: every pane resized (and, for a single pane, placed on the canvas; a sheet places
 *   each tile as the overlay's layers reach it);
 * - `composited`: the overlay composited over the panes;
 * - `encoded`: the view encoded (PNG or the model's JPEG).
 */
export type RenderStage = 'decoded' | 'overlay' | 'panes' | 'composited' | 'encoded';

/** Told each stage as it ends, with `performance.now()` then. */
export type RenderStageObserver = (stage: RenderStage, at: number) => void;

let observer: RenderStageObserver | undefined;

/** Observe the stages of every render from now on (`undefined`: stop). */
export function observeRenderStages(next: RenderStageObserver | undefined): void {
  observer = next;
}

/** A stage of a render has ended. */
export function stageEnded(stage: RenderStage): void {
  observer?.(stage, performance.now());
}
