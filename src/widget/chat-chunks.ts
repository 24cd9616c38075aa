/**
 * The chat's elements in chunks of {@link CHUNK_SIZE}: each chunk is skipped by the browser while
 * off screen (`content-visibility: auto` in the stylesheet), so a change anywhere in a 1,000-message
 * chat lays out and paints only what is on screen (issue 11.9). Chunks, not single messages: the
 * browser checks every such element against the visible area on each scrolled frame, which for a
 * thousand of them cost more than it saved.
 */

/** Chat elements per chunk. */
export const CHUNK_SIZE = 25;

/** The class of a chunk element. */
export const CHUNK_CLASS = 'jp-FigureChat-chunk';

/**
 * Put `elements` into `container` in order, `CHUNK_SIZE` per chunk, touching only the chunks whose
 * elements changed: a streaming answer changes only the last chunk.
 */
export function placeInChunks(container: HTMLElement, elements: ReadonlyArray<HTMLElement>): void {
  const chunks = Array.from(container.children).filter(
    (child): child is HTMLElement =>
      child instanceof HTMLElement && child.classList.contains(CHUNK_CLASS)
  );
  const count = Math.ceil(elements.length / CHUNK_SIZE);
  for (let i = 0; i < count; i++) {
    let chunk = chunks[i];
    if (!chunk) {
      chunk = document.createElement('div');
      chunk.className = CHUNK_CLASS;
      chunks.push(chunk);
    }
    const part = elements.slice(i * CHUNK_SIZE, (i + 1) * CHUNK_SIZE);
    const children = chunk.children;
    if (children.length !== part.length || part.some((element, j) => children[j] !== element)) {
      chunk.replaceChildren(...part);
    }
  }
  const used = chunks.slice(0, count);
  const current = Array.from(container.children);
  if (current.length !== used.length || used.some((chunk, i) => current[i] !== chunk)) {
    container.replaceChildren(...used);
  }
}
