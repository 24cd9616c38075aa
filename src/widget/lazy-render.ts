/**
 * Rendering what is off-screen later. A long conversation (1,000 messages, 100 figures) would
 * check every stored SVG and build every figure and view when the notebook opens, before the
 * newest message shows. A deferred part is a placeholder of an estimated height that becomes its
 * content when it comes near the chat's visible area (an IntersectionObserver with a margin);
 * the rest are rendered afterwards, nearest the end of the conversation first, a few at a time
 * between frames, so nothing stays a placeholder for long and no task grows with the conversation.
 *
 * The placeholder element stays in the page and receives its content (then lays out as if it
 * were not there, `display: contents`), so the chat view's list of elements never changes under it.
 *
 * A renderer can start held ({@link LazyRenderer.release}): while a chat opens, only parts in the
 * visible area itself are rendered; those near it and the background wait, so what a person looks
 * at first does not share two cores with SVG checks and picture decodes of what is off-screen.
 */

/** How far outside the visible area (px) a part is already rendered. */
const NEAR_MARGIN_PX = 800;

/** Main-thread time one background slice may take before it yields. */
const BACKGROUND_SLICE_MS = 8;

/**
 * Whether an observed part is in the root's visible area itself, not only within
 * {@link NEAR_MARGIN_PX} of it (the observer's root bounds include that margin).
 */
function inVisibleArea(entry: IntersectionObserverEntry): boolean {
  const root = entry.rootBounds;
  const box = entry.boundingClientRect;
  return (
    !root || (box.bottom > root.top + NEAR_MARGIN_PX && box.top < root.bottom - NEAR_MARGIN_PX)
  );
}

/** Height (px) a placeholder takes before anything of its kind was rendered. */
const DEFAULT_HEIGHT_PX = 320;

interface Deferred {
  readonly render: () => HTMLElement;
  readonly kind: string;
  /**
   * Called when the part comes near the visible area (not when rendered in the background);
   * `visible`: it is in the area itself.
   */
  readonly near?: (visible: boolean) => void;
}

/** Deferred rendering for one scrolling container. */
export class LazyRenderer {
  private readonly _pending = new Map<HTMLElement, Deferred>();
  private readonly _heights = new Map<string, number>();
  /** Elements rendered in place (not placeholders): what to call when each comes near. */
  private readonly _watched = new Map<Element, () => void>();
  /**
   * Parts rendered in the background that still want to know when they come near (a vision card
   * whose views are queued: scrolled to, they are drawn next), by their content (the placeholder,
   * `display: contents` once filled, has no box to intersect), with the placeholder they are in.
   */
  private readonly _nearWatch = new Map<
    Element,
    { holder: HTMLElement; near: (visible: boolean) => void }
  >();
  /** The content each such placeholder holds. */
  private readonly _nearContent = new Map<HTMLElement, Element>();
  private readonly _observer: IntersectionObserver | null;
  private _background = 0;
  private _disposed = false;
  private _held: boolean;

  /**
   * @param root The scrolling element the parts live in.
   * @param onRendered Called after parts were rendered (their height may differ from the estimate).
   * @param options.held Render only parts in the visible area until {@link LazyRenderer.release}.
   */
  constructor(
    root: HTMLElement,
    private readonly _onRendered: () => void,
    options: { held?: boolean } = {}
  ) {
    this._held = options.held ?? false;
    this._observer =
      typeof IntersectionObserver === 'undefined'
        ? null
        : new IntersectionObserver(entries => this._onIntersect(entries), {
            root,
            rootMargin: `${NEAR_MARGIN_PX}px 0px`
          });
  }

  /** Whether only parts in the visible area are rendered (see {@link LazyRenderer.release}). */
  get held(): boolean {
    return this._held;
  }

  /** Render parts near the visible area, then the rest in the background. */
  release(): void {
    if (!this._held || this._disposed) {
      return;
    }
    this._held = false;
    // What was only near was skipped, and the observer reports a part again only when its
    // intersection changes: observed anew, each is reported as it is now.
    for (const element of [...this._pending.keys(), ...this._watched.keys()]) {
      this._observer?.unobserve(element);
      this._observer?.observe(element);
    }
    this._scheduleBackground();
  }

  /** Parts still waiting (for tests and benchmarks). */
  get pending(): number {
    return this._pending.size;
  }

  /**
   * A placeholder that becomes `render()` once near the visible area (or in the background).
   * `kind` groups parts of similar height: a placeholder takes the height of the first of its kind.
   * `near` is called when the part comes near the visible area, the newest of a batch last.
   */
  defer(kind: string, render: () => HTMLElement, near?: (visible: boolean) => void): HTMLElement {
    const holder = document.createElement('div');
    holder.className = 'jp-FigureChat-lazy';
    holder.style.minHeight = `${this._heights.get(kind) ?? DEFAULT_HEIGHT_PX}px`;
    if (!this._observer) {
      this._fill(holder, { render, kind });
      return holder;
    }
    this._pending.set(holder, { render, kind, near });
    this._observer.observe(holder);
    this._scheduleBackground();
    return holder;
  }

  /** Render a part now, whatever its position (an element the chat is about to show at once). */
  now(kind: string, render: () => HTMLElement): HTMLElement {
    const holder = document.createElement('div');
    holder.className = 'jp-FigureChat-lazy';
    this._fill(holder, { render, kind });
    return holder;
  }

  /**
   * Call `near` once `element` comes near the visible area, never in the background: for parts
   * that are cheap to keep as they are (a message's text before its Markdown is rendered).
   */
  whenNear(element: HTMLElement, near: () => void): void {
    if (!this._observer) {
      near();
      return;
    }
    this._watched.set(element, near);
    this._observer.observe(element);
  }

  /** Forget a placeholder that left the chat. */
  forget(holder: HTMLElement): void {
    if (this._pending.delete(holder)) {
      this._observer?.unobserve(holder);
    }
    const content = this._nearContent.get(holder);
    if (content) {
      this._unwatchNear(content);
    }
  }

  private _unwatchNear(content: Element): void {
    const watch = this._nearWatch.get(content);
    if (watch) {
      this._nearWatch.delete(content);
      this._nearContent.delete(watch.holder);
      this._observer?.unobserve(content);
    }
  }

  dispose(): void {
    this._disposed = true;
    this._observer?.disconnect();
    this._pending.clear();
    this._watched.clear();
    this._nearWatch.clear();
    this._nearContent.clear();
    cancelAnimationFrame(this._background);
  }

  private _fill(holder: HTMLElement, deferred: Deferred): void {
    const content = deferred.render();
    holder.replaceChildren(content);
    holder.className = 'jp-FigureChat-lazy-mod-done';
    holder.style.minHeight = '';
    holder.style.display = 'contents';
    // Measured once per kind: measuring forces a layout of the whole chat.
    if (holder.isConnected && !this._heights.has(deferred.kind)) {
      const height = content.getBoundingClientRect().height;
      if (height > 0) {
        this._heights.set(deferred.kind, Math.round(height));
      }
    }
  }

  /** Render a placeholder's part; `background`: not near the visible area (yet). */
  private _take(holder: HTMLElement, background = false): void {
    const deferred = this._pending.get(holder);
    if (!deferred) {
      return;
    }
    this._pending.delete(holder);
    this._observer?.unobserve(holder);
    this._fill(holder, deferred);
    // Its `near` was never called: call it when the part comes near after all. A vision card
    // filled in the background while its views waited in the queue was otherwise drawn in queue
    // order when scrolled to (the oldest card last, seconds after it came into view).
    const content = holder.firstElementChild;
    if (background && deferred.near && content && this._observer) {
      this._nearWatch.set(content, { holder, near: deferred.near });
      this._nearContent.set(holder, content);
      this._observer.observe(content);
    }
  }

  private _onIntersect(entries: IntersectionObserverEntry[]): void {
    if (this._disposed) {
      return;
    }
    // In page order, so the newest (lowest) is announced last: what is announced last is
    // served first (the views queue draws its newest job first).
    const near = entries
      .filter(entry => entry.isIntersecting)
      .sort((a, b) => a.boundingClientRect.top - b.boundingClientRect.top);
    const visible = new Set(near.filter(inVisibleArea).map(entry => entry.target));
    for (const entry of near) {
      this._pending.get(entry.target as HTMLElement)?.near?.(visible.has(entry.target));
      const watch = this._nearWatch.get(entry.target);
      if (watch) {
        watch.near(visible.has(entry.target));
        // Once in view it has been asked for; until then, only near, it may still come into view.
        if (visible.has(entry.target)) {
          this._unwatchNear(entry.target);
        }
      }
    }
    let rendered = 0;
    for (const entry of near) {
      // Held: what is only near waits for the background, nearest the end first (and the
      // observer reports it again if it comes into view).
      if (this._held && !visible.has(entry.target)) {
        continue;
      }
      const watcher = this._watched.get(entry.target);
      if (!watcher && !this._pending.has(entry.target as HTMLElement)) {
        // A part already rendered, only watched for `near` above: nothing changed in the chat.
        continue;
      }
      if (watcher) {
        this._watched.delete(entry.target);
        this._observer?.unobserve(entry.target);
        watcher();
      }
      this._take(entry.target as HTMLElement);
      rendered += 1;
    }
    if (rendered) {
      this._onRendered();
    }
  }

  /** Render the rest a slice per frame, the ones nearest the end of the conversation first. */
  private _scheduleBackground(): void {
    if (this._background || this._disposed || this._held) {
      return;
    }
    this._background = requestAnimationFrame(() => {
      // After the frame is painted: what is visible has been drawn before this work starts.
      setTimeout(() => {
        this._background = 0;
        if (this._disposed) {
          return;
        }
        const started = performance.now();
        // Placeholders not in the page (a view never shown) wait for the observer.
        const holders = [...this._pending.keys()].filter(holder => holder.isConnected);
        let rendered = 0;
        for (let i = holders.length - 1; i >= 0; i--) {
          this._take(holders[i], true);
          rendered += 1;
          if (performance.now() - started > BACKGROUND_SLICE_MS) {
            break;
          }
        }
        if (rendered) {
          this._onRendered();
        }
        if (holders.length > rendered) {
          this._scheduleBackground();
        }
      }, 0);
    });
  }
}
