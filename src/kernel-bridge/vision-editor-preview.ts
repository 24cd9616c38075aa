/**
 * The picture under the Vision editor's marks: the preview the kernel sends, first a quick small
 * one, then a sharp one. The first goes on the page at once, with nothing before it to keep; a
 * later one is decoded before it replaces the one shown, so the frame that shows it does not wait
 * for the decode. Each keeps the room the sharp one will take, so nothing around it moves when
 * the sharper preview replaces the quicker one.
 */

/**
 * Longest side the widget shows a picture at: that of the sharp preview (the figure program's
 * `PREVIEW_MAX_SIDE`), so the quick preview, a few hundred pixels, is drawn at the same size.
 */
export const SHOWN_MAX_SIDE = 1600;

/** Tallest the picture is shown, so a tall picture does not push the notebook's cells away. */
export const SHOWN_MAX_HEIGHT = 720;

/**
 * Width in CSS pixels the picture of this size is shown at (the stylesheet keeps it within the
 * output area): its sharp preview's width, but no taller than {@link SHOWN_MAX_HEIGHT}. Set on the
 * stage, not left to the `<img>`, whose own width would be that of whichever preview it holds.
 */
export function shownWidth(width: number, height: number): number {
  const scale = Math.min(1, SHOWN_MAX_SIDE / Math.max(width, height));
  const preview = Math.max(1, Math.round(width * scale));
  const byHeight = Math.max(1, Math.floor((SHOWN_MAX_HEIGHT * width) / height));
  return Math.min(preview, byHeight);
}

/** Whether `image` has its pixels' size already (its source loaded), so a frame can draw it. */
function loaded(image: HTMLImageElement): boolean {
  return image.complete && image.naturalWidth > 0;
}

/** One `<img>` at a time, replaced by the next preview once that one is decoded. */
export class PreviewImage {
  private _node: HTMLImageElement;
  /** Number of the latest `show`: a slower decode of an older preview never replaces a newer one. */
  private _latest = 0;
  /** Whether a preview is on the page (else the `<img>` is the empty placeholder). */
  private _shown = false;
  /** URL of the latest preview asked for. */
  private _url = '';

  constructor(
    private readonly _width: number,
    private readonly _height: number
  ) {
    // Empty until the first preview is decoded, but already the picture's size and place.
    this._node = this._image();
  }

  /** The `<img>` on the page now. */
  get node(): HTMLImageElement {
    return this._node;
  }

  /**
   * Show the preview at `url`: the first at once if it has loaded already, else (and a later one)
   * once the browser has decoded it (resolves when it is on the page).
   */
  async show(url: string): Promise<void> {
    if (url === this._url) {
      // Already shown, or on its way (a view told twice of the same preview).
      return;
    }
    this._url = url;
    const ticket = ++this._latest;
    const next = this._image();
    const first = !this._shown;
    if (first) {
      // Nothing to keep on screen meanwhile: once the `data:` URL has loaded, its few hundred
      // pixels are decoded in the frame that draws it, and waiting for `decode()` would cost a
      // compositor frame or two.
      next.decoding = 'sync';
    }
    next.src = url;
    if (first) {
      // Setting `src` queued the image's load as a microtask; a `data:` URL usually loads in it,
      // so after it (still in this task, before any frame) the first preview is ready to show.
      await Promise.resolve();
    }
    if (!first || !loaded(next)) {
      // A sharper preview, or a first one the browser loads later (it does under load): never
      // put an empty <img> on the page, whose frame would show nothing where the room was.
      try {
        await next.decode();
      } catch {
        // Not decodable (the kernel checked it, so rare): show it as it is, as a plain <img> would.
      }
    }
    if (ticket !== this._latest) {
      return;
    }
    this._put(next);
  }

  private _put(next: HTMLImageElement): void {
    this._node.replaceWith(next);
    this._node = next;
    this._shown = true;
  }

  private _image(): HTMLImageElement {
    const image = document.createElement('img');
    image.alt = '';
    image.draggable = false;
    image.style.aspectRatio = `${this._width} / ${this._height}`;
    return image;
  }
}
