/**
 * A view drawn smaller for display than its geometry says: the chat shows views at the sidebar's
 * width, so the same view is drawn at that width, its overlay scaled with it (./geometry.ts holds
 * the full-size mapping this scales).
 */
import { paneSampling, type Pane, type ViewGeometry } from './geometry';

/**
 * A view drawn `width` pixels wide instead (the chat shows views at the sidebar's width, and a
 * full view was drawn, sent and decoded only for the browser to shrink it): the same view scaled
 * by `width / geometry.width` (its height in proportion), panes at the scaled places rounded to
 * whole pixels, their scales scaled. Its overlay is the full view's, drawn at this size
 * (`drawGeometry`'s `size`), so marks, lines and labels keep their places and proportions. Views
 * no wider than `width` are returned as they are; never enlarged.
 */
export function shrinkGeometry(geometry: ViewGeometry, width: number): ViewGeometry {
  if (!(width >= 1) || width >= geometry.width) {
    return geometry;
  }
  const out = Math.round(width);
  const height = Math.max(1, Math.round((geometry.height * out) / geometry.width));
  const kx = out / geometry.width;
  const ky = height / geometry.height;
  const panes = geometry.panes.map((pane): Pane => {
    // Edges rounded, not sizes, so panes and margins tile the view as they did. A pane lies inside
    // its view, so its scaled edges do too.
    const left = Math.round(pane.left * kx);
    const top = Math.round(pane.top * ky);
    const paneWidth = Math.max(1, Math.round((pane.left + pane.width) * kx) - left);
    const paneHeight = Math.max(1, Math.round((pane.top + pane.height) * ky) - top);
    return {
      ...pane,
      left,
      top,
      width: paneWidth,
      height: paneHeight,
      sx: paneWidth / (pane.region.x1 - pane.region.x0),
      sy: paneHeight / (pane.region.y1 - pane.region.y0),
      // A pixel grid stays one; otherwise the new scales say (a close-up shrunk below the
      // picture's size is reduced, not enlarged).
      sampling: paneSampling(pane) === 'pixel-grid' ? 'pixel-grid' : undefined
    };
  });
  return { ...geometry, width: out, height, panes };
}
