/**
 * CSS inside a figure: `style` attributes, `<style>` sheets and presentation attribute values.
 * CSS is where resources hide (`url()`, `@import`, `@font-face`, escapes such as `\75 rl(`), so
 * the rules are conservative: no escapes, no at-rules, `url()` only to a local `#id`, and
 * declarations only of known presentation properties.
 */
import { ALLOWED_CSS_PROPERTIES } from './allowlist';
import { excerpt, localReference } from './references';
import { refuse } from './result';

/** A `url(#id)` found in CSS: which property used it and which element it points at. */
export interface CssReference {
  readonly property: string;
  readonly id: string;
}

/** Functions that fetch or embed a resource besides `url()`. */
const RESOURCE_FUNCTION = /(?:image-set|image|cross-fade|element|src)\s*\(/i;

/** Remove comments; an unterminated one is refused since renderers disagree on where it ends. */
function stripComments(css: string, where: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const start = css.indexOf('/*', at);
    if (start < 0) {
      return out + css.slice(at);
    }
    const end = css.indexOf('*/', start + 2);
    if (end < 0) {
      refuse('css', `SVG ${where} has an unterminated CSS comment; close it with */`);
    }
    // Nothing in place of the comment, so `u/**/rl(` is checked as the `url(` a lax parser sees.
    out += css.slice(at, start);
    at = end + 2;
  }
}

/** Refuse escapes and at-rules, the two ways CSS hides a fetch from a simple reader. */
function checkCssTokens(css: string, where: string): void {
  if (css.includes('\\')) {
    refuse(
      'css-escape',
      `SVG ${where} uses a CSS escape (\\); write CSS without backslash escapes`
    );
  }
  const at = /@([-\w]*)/.exec(css);
  if (at) {
    const name = at[1].toLowerCase();
    if (name === 'import') {
      refuse('css-import', `SVG ${where} uses @import; remove it and put the rules inline`);
    }
    if (name === 'font-face') {
      refuse(
        'font-face',
        `SVG ${where} uses @font-face; remove it and use a generic font-family such as sans-serif`
      );
    }
    refuse('css-at-rule', `SVG ${where} uses the at-rule @${name}; remove it — plain rules only`);
  }
  if (!css.includes('(') && !css.includes(':')) {
    return;
  }

  const squeezed = css.replace(/[\u0000-\u0020]+/g, '').toLowerCase();
  if (squeezed.includes('expression(') || squeezed.includes('javascript:')) {
    refuse('script', `SVG ${where} contains script in CSS; remove it — figures must be static`);
  }
}

/**
 * Every `url(…)` in a CSS value must be a local `#id`; returns the ids. Quoted or unquoted, any
 * case, any spacing: `URL( '#a' )` is read like `url(#a)`.
 */
export function cssValueReferences(value: string, property: string, where: string): CssReference[] {
  if (!value.includes('(')) {
    return []; // every function, url() included, needs a parenthesis
  }
  const found: CssReference[] = [];
  const pattern = /url\s*\(/gi;
  for (let match = pattern.exec(value); match; match = pattern.exec(value)) {
    let at = match.index + match[0].length;
    const close = value.indexOf(')', at);
    if (close < 0) {
      refuse('css', `SVG ${where} has an unterminated url(; write url(#id)`);
    }
    let argument = value.slice(at, close).trim();
    const quote = argument[0];
    if (quote === '"' || quote === "'") {
      if (argument.length < 2 || argument[argument.length - 1] !== quote) {
        refuse('css', `SVG ${where} has a badly quoted url(${excerpt(argument)}); write url(#id)`);
      }
      argument = argument.slice(1, -1);
    }
    found.push({ property, id: localReference(argument, where) });
    at = close + 1;
    pattern.lastIndex = at;
  }
  const other = RESOURCE_FUNCTION.exec(value);
  if (other) {
    refuse(
      'external-reference',
      `SVG ${where} uses ${other[0].replace(/\s+/g, '')}…); use only url(#id) references to the same figure`
    );
  }
  return found;
}

/** Check a presentation attribute's value, which renderers parse as CSS. */
export function checkPresentationValue(name: string, value: string): CssReference[] {
  const where = `attribute ${name}`;
  checkCssTokens(value, where);
  return cssValueReferences(value, name, where);
}

/** Check a declaration list (`style` attribute or a rule's block). */
function checkDeclarations(block: string, where: string): CssReference[] {
  const found: CssReference[] = [];
  for (const declaration of block.split(';')) {
    if (declaration.trim() === '') {
      continue;
    }
    const colon = declaration.indexOf(':');
    const property = (colon < 0 ? declaration : declaration.slice(0, colon)).trim().toLowerCase();
    if (colon < 0 || !ALLOWED_CSS_PROPERTIES.has(property)) {
      refuse(
        'css',
        `SVG ${where} sets unsupported CSS "${excerpt(declaration, 40)}"; use presentation properties such as fill, stroke, opacity and font-size`
      );
    }
    found.push(...cssValueReferences(declaration.slice(colon + 1), property, where));
  }
  return found;
}

/** Check a `style` attribute; returns the `url(#id)` references it makes. */
export function checkStyleAttribute(value: string): CssReference[] {
  const where = 'style attribute';
  const css = stripComments(value, where);
  checkCssTokens(css, where);
  return checkDeclarations(css, where);
}

/** Check a `<style>` sheet: plain `selector { declarations }` rules only. */
export function checkStyleSheet(sheet: string): CssReference[] {
  const where = '<style> sheet';
  const css = stripComments(sheet, where);
  checkCssTokens(css, where);
  const found: CssReference[] = [];
  let at = 0;
  for (;;) {
    const open = css.indexOf('{', at);
    if (open < 0) {
      if (css.slice(at).trim() !== '') {
        refuse('css', `SVG ${where} has text outside a rule; write "selector { property: value }"`);
      }
      return found;
    }
    const close = css.indexOf('}', open + 1);
    const selector = css.slice(at, open);
    const nextOpen = css.indexOf('{', open + 1);
    if (close < 0 || (nextOpen >= 0 && nextOpen < close) || selector.includes('}')) {
      refuse('css', `SVG ${where} has unbalanced braces; write "selector { property: value }"`);
    }
    if (selector.trim() === '') {
      refuse('css', `SVG ${where} has a rule without a selector; add one`);
    }
    found.push(...checkDeclarations(css.slice(open + 1, close), where));
    at = close + 1;
  }
}

/**
 * The values a checked declaration list or sheet gives `property` (lower case), comments removed.
 * Selectors are not matched: a sheet's value may apply to any element.
 */
export function declaredValues(css: string, property: string): string[] {
  const values: string[] = [];
  for (const piece of css.replace(/\/\*[\s\S]*?\*\//g, '').split(/[{};]/)) {
    const colon = piece.indexOf(':');
    if (colon >= 0 && piece.slice(0, colon).trim().toLowerCase() === property) {
      values.push(piece.slice(colon + 1).trim());
    }
  }
  return values;
}
