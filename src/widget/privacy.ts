/**
 * Chat Markdown loads nothing by itself. A model (or whoever wrote a notebook) can put notebook
 * data into a resource address, so after JupyterLab's sanitizer, and while the HTML is still in an
 * inert `<template>` (where nothing loads), this removes or replaces everything that would make a
 * request: remote images and media become a placeholder naming the host that loads on click, CSS
 * `url()` and other resource attributes go, forms and their controls go, `autoplay` goes, and links
 * open in a new tab without referrer. `data:` images stay: they make no request.
 */

/** What the filter may let through. */
export interface PrivacyOptions {
  /** The user's setting: remote images load by themselves (media and forms still never do). */
  readonly allowRemoteImages: boolean;
  /** The placeholder text for a blocked resource, given its kind and host. */
  label(kind: BlockedKind, host: string): string;
  /**
   * The text standing for an image or media at a relative address (`<img src=x>`): it names no
   * host, and the chat has no folder to resolve it against, so it is never loaded.
   */
  relativeLabel(kind: BlockedKind, address: string): string;
  /** The placeholder's tooltip. */
  title(url: string): string;
}

/** What kind of resource a placeholder stands for. */
export type BlockedKind = 'image' | 'media';

/** Elements that are dropped with their content: they load, navigate or submit. */
const DROPPED = new Set([
  'FORM',
  'INPUT',
  'BUTTON',
  'SELECT',
  'TEXTAREA',
  'OPTION',
  'STYLE',
  'LINK',
  'META',
  'BASE',
  'IFRAME',
  'FRAME',
  'FRAMESET',
  'OBJECT',
  'EMBED',
  'APPLET',
  'SCRIPT',
  'PORTAL',
  'TEMPLATE'
]);

/** Elements that load media: replaced whole by a placeholder. */
const MEDIA = new Set(['VIDEO', 'AUDIO', 'PICTURE']);

/** Attributes that name a resource on elements other than the ones handled below. */
const RESOURCE_ATTRIBUTES = [
  'src',
  'srcset',
  'poster',
  'background',
  'lowsrc',
  'dynsrc',
  'data',
  'action',
  'formaction',
  'ping',
  'xlink:href',
  'codebase',
  'longdesc',
  'manifest',
  'cite'
];

const DATA_IMAGE = /^data:image\/[a-z0-9.+-]+[;,]/i;

/** The host a URL would reach, as shown to the user (this server for a relative address). */
export function hostOf(url: string): string {
  try {
    return new URL(url, window.location.href).host || url.slice(0, 60);
  } catch {
    return url.slice(0, 60);
  }
}

/**
 * Whether an address is relative (no scheme, no `//host`): in the page it would resolve against
 * JupyterLab's own URL, which is neither the notebook's folder nor anything the model meant.
 */
export function isRelativeAddress(url: string): boolean {
  const trimmed = url.trim();
  return !/^[a-z][a-z0-9+.-]*:/i.test(trimmed) && !/^[\\/]{2}/.test(trimmed);
}

/** Whether an image address makes no request. */
export function isInlineImage(url: string): boolean {
  return DATA_IMAGE.test(url.trim());
}

function placeholder(
  doc: Document,
  kind: BlockedKind,
  url: string,
  original: Element,
  options: PrivacyOptions
): HTMLElement {
  if (isRelativeAddress(url)) {
    // Said for what it is, and not offered for loading: there is nothing sensible to load.
    const note = doc.createElement('span');
    note.className = 'jp-FigureChat-blocked jp-FigureChat-blocked-mod-relative';
    note.dataset.kind = kind;
    note.textContent = options.relativeLabel(kind, url.trim().slice(0, 80));
    return note;
  }
  const button = doc.createElement('button');
  button.type = 'button';
  button.className = 'jp-FigureChat-blocked';
  button.dataset.kind = kind;
  button.dataset.host = hostOf(url);
  button.textContent = options.label(kind, hostOf(url));
  button.title = options.title(url);
  // The inert original goes with the button; `loadBlocked` puts it back on click.
  blockedOriginals.set(button, original);
  return button;
}

const blockedOriginals = new WeakMap<Element, Element>();

/**
 * Load the one resource behind a placeholder (the user clicked it). Returns false when `target`
 * is not a placeholder.
 */
export function loadBlocked(target: Element): boolean {
  const original = blockedOriginals.get(target);
  if (!original) {
    return false;
  }
  blockedOriginals.delete(target);
  target.replaceWith(target.ownerDocument.importNode(original, true));
  return true;
}

function firstMediaUrl(element: Element): string {
  const own = element.getAttribute('src') ?? element.getAttribute('poster');
  if (own) {
    return own;
  }
  const source = element.querySelector('[src],[srcset]');
  return source?.getAttribute('src') ?? source?.getAttribute('srcset')?.split(/\s/)[0] ?? '';
}

function stripAutoplay(root: Element): void {
  root.removeAttribute('autoplay');
  for (const child of Array.from(root.querySelectorAll('[autoplay]'))) {
    child.removeAttribute('autoplay');
  }
}

/**
 * Make a fragment of sanitized HTML request-free, in place. The fragment must belong to an inert
 * document (a `<template>`'s content): elements in the live document start loading as soon as
 * they are created.
 */
export function blockRemoteResources(fragment: DocumentFragment, options: PrivacyOptions): void {
  const doc = fragment.ownerDocument;
  for (const element of Array.from(fragment.querySelectorAll('*'))) {
    if (!fragment.contains(element)) {
      continue; // inside an element dropped or replaced already
    }
    const tag = element.tagName.toUpperCase();
    if (DROPPED.has(tag)) {
      element.remove();
      continue;
    }
    if (MEDIA.has(tag)) {
      stripAutoplay(element);
      element.replaceWith(placeholder(doc, 'media', firstMediaUrl(element), element, options));
      continue;
    }
    if (tag === 'IMG') {
      const src = element.getAttribute('src') ?? '';
      element.removeAttribute('srcset');
      if (!src || isInlineImage(src)) {
        continue;
      }
      if (options.allowRemoteImages && /^https?:/i.test(src.trim())) {
        element.setAttribute('referrerpolicy', 'no-referrer');
        continue;
      }
      element.replaceWith(placeholder(doc, 'image', src, element, options));
      continue;
    }
    element.removeAttribute('autoplay');
    for (const name of RESOURCE_ATTRIBUTES) {
      element.removeAttribute(name);
    }
    if (tag !== 'A') {
      element.removeAttribute('href');
    }
    const style = element.getAttribute('style');
    if (style && /url\s*\(|image-set|@import|expression\s*\(/i.test(style)) {
      element.removeAttribute('style');
    }
    if (tag === 'A') {
      // Never in this window: a link that replaced JupyterLab would lose unsaved work.
      element.setAttribute('target', '_blank');
      element.setAttribute('rel', 'noopener noreferrer');
    }
  }
}
