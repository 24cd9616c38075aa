/**
 * `checkSvgPolicy`: the allowlist over a strict XML parse that every model-authored figure must
 * pass before any renderer sees it (SPEC section 7). It is pure (saxes only), so the browser,
 * the figure server and the CLI apply exactly the same rules.
 */
import { SaxesParser } from 'saxes';
import type { SaxesAttributeNS, SaxesTagNS } from 'saxes';

import {
  ALLOWED_ATTRIBUTES,
  ALLOWED_ELEMENTS,
  ARIA_ATTRIBUTE,
  FORBIDDEN_ELEMENTS,
  PRESENTATION_ATTRIBUTES,
  SVG_NS,
  XINCLUDE_NS,
  XLINK_NS,
  XML_NS,
  XMLNS_NS
} from './allowlist';
import type { ElementReference, SvgElementNode } from './complexity';
import { measureTree } from './complexity';
import type { CssReference } from './css';
import {
  checkPresentationValue,
  checkStyleAttribute,
  checkStyleSheet,
  cssValueReferences
} from './css';
import { intrinsicSize } from './dimensions';
import { FilterAreaSurvey } from './filter-area';
import { FilterBudget } from './filters';
import { SVG_MAX_BYTES, SVG_MAX_DEPTH, SVG_MAX_NODES } from './limits';
import { checkScriptUrl, localReference } from './references';
import type { SvgCheck, SvgFigureInfo } from './result';
import { refuse, reject, SvgRejected } from './result';

/** UTF-8 length without allocating; a lone surrogate counts as the 3-byte U+FFFD it becomes. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      bytes += 1;
    } else if (code < 0x800) {
      bytes += 2;
    } else if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    } else {
      bytes += 3;
    }
  }
  return bytes;
}

/** Elements whose text resvg lays out as glyphs (title, desc and style are not drawn). */
const DRAWN_TEXT = new Set(['text', 'tspan', 'textPath']);

/** Characters that become glyphs: everything but white space, counted by code point. */
function glyphCount(text: string): number {
  let count = 0;
  for (const c of text) {
    if (c.trim() !== '') {
      count++;
    }
  }
  return count;
}

/** Marker properties instantiate the marker at every vertex rather than once. */
const PER_VERTEX = new Set(['marker', 'marker-mid']);

/** Elements whose vertex count depends on their geometry (the rest have at most a few). */
const GEOMETRY_ELEMENTS = new Set(['path', 'polyline', 'polygon']);

/** A generous estimate of a shape's vertex count: half the numbers in its geometry. */
function vertexCount(attributes: Record<string, SaxesAttributeNS>): number {
  const geometry = attributes.d?.value ?? attributes.points?.value ?? '';
  const numbers = geometry.match(/[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/g);
  return Math.max(2, Math.ceil((numbers?.length ?? 0) / 2));
}

/** How many copies a CSS reference makes on one element. */
function referenceTimes(ref: CssReference, vertices: number): ElementReference {
  return { id: ref.id, times: PER_VERTEX.has(ref.property) ? vertices : 1 };
}

/** Check one attribute; returns the references it makes. */
function checkAttribute(
  element: string,
  attribute: SaxesAttributeNS,
  vertices: number
): ElementReference[] {
  const { uri, local, name, value } = attribute;
  if (uri === XMLNS_NS) {
    return []; // a declaration; elements and attributes are judged by their resolved namespace
  }
  const where = `attribute ${name} of <${element}>`;
  if (local.toLowerCase().startsWith('on')) {
    refuse(
      'event-attribute',
      `SVG has the event attribute ${name} on <${element}>; remove event handlers — figures must be static`
    );
  }
  checkScriptUrl(value, where);
  if (uri === XLINK_NS && local === 'href') {
    return [{ id: localReference(value, where), times: 1 }];
  }
  if (uri === XML_NS && (local === 'space' || local === 'lang')) {
    return [];
  }
  if (uri === XLINK_NS && local === 'title') {
    return [];
  }
  if (uri !== '') {
    refuse(
      uri === XML_NS || uri === XLINK_NS ? 'attribute' : 'foreign-namespace',
      `SVG attribute ${name} on <${element}> (namespace ${uri}) is not allowed; remove it — only SVG attributes, xlink:href, xml:space and xml:lang are allowed`
    );
  }
  if (local === 'href') {
    return [{ id: localReference(value, where), times: 1 }];
  }
  if (!ALLOWED_ATTRIBUTES.has(local) && !ARIA_ATTRIBUTE.test(local)) {
    refuse(
      'attribute',
      `SVG attribute ${name} on <${element}> is not allowed; remove it — use geometry and presentation attributes such as fill, stroke and transform`
    );
  }
  const refs =
    local === 'style'
      ? checkStyleAttribute(value)
      : PRESENTATION_ATTRIBUTES.has(local)
        ? checkPresentationValue(local, value)
        : cssValueReferences(value, local, where);
  return refs.map(ref => referenceTimes(ref, vertices));
}

/** Check an element's name and namespace; `isRoot` demands the SVG root. */
function checkElementName(tag: SaxesTagNS, isRoot: boolean): void {
  if (isRoot && !(tag.local === 'svg' && tag.uri === SVG_NS)) {
    refuse(
      'not-svg',
      tag.local === 'svg'
        ? 'SVG root <svg> is not in the SVG namespace; add xmlns="http://www.w3.org/2000/svg" to it'
        : `SVG root is <${tag.name}>, not <svg>; send one <svg xmlns="http://www.w3.org/2000/svg"> document`
    );
  }
  const forbidden = FORBIDDEN_ELEMENTS.get(tag.local.toLowerCase());
  if (forbidden) {
    refuse(forbidden.kind, `SVG contains <${tag.name}>; ${forbidden.fix}`);
  }
  if (tag.uri === XINCLUDE_NS) {
    refuse(
      'xinclude',
      `SVG contains XInclude <${tag.name}>; inline the content — figures must be self-contained`
    );
  }
  if (tag.uri !== SVG_NS) {
    refuse(
      'foreign-namespace',
      `SVG contains <${tag.name}> from ${tag.uri ? `namespace ${tag.uri}` : 'no namespace'}; use only SVG elements (declare xmlns="http://www.w3.org/2000/svg" once on the root)`
    );
  }
  if (!ALLOWED_ELEMENTS.has(tag.local)) {
    refuse(
      'element',
      `SVG contains <${tag.name}>, which figures do not allow; use shapes, paths, text, gradients, patterns, markers, clip paths, masks and filters`
    );
  }
}

/** One open element while parsing. */
interface Frame {
  readonly local: string;
  readonly node: SvgElementNode;
}

/** Parse and walk the document; throws `SvgRejected` at the first problem. */
function walk(svg: string): SvgFigureInfo {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const stack: Frame[] = [];
  const ids = new Map<string, SvgElementNode>();
  const sheetRefs: CssReference[] = [];
  let root: SvgElementNode | undefined;
  let rootAttributes: Record<string, SaxesAttributeNS> = {};
  let elements = 0;
  let totalVertices = 0;
  let sheet: string[] | undefined;
  const filters = new FilterBudget();
  const filterArea = new FilterAreaSurvey();

  parser.on('doctype', () =>
    refuse(
      'doctype',
      'SVG has a <!DOCTYPE>; remove it and any entity declarations — write characters directly or as numeric references (&#8594;)'
    )
  );
  parser.on('processinginstruction', pi =>
    refuse(
      'processing-instruction',
      `SVG contains the processing instruction <?${pi.target} …?>; remove it — only the <?xml …?> declaration and comments may surround the figure`
    )
  );
  parser.on('error', error => {
    if (error.message.includes('undefined entity')) {
      refuse(
        'entity',
        `SVG uses an undefined entity (${error.message.replace(/\.$/, '')}); write the character itself or a numeric reference such as &#8594; — only &lt; &gt; &amp; &quot; &apos; are predefined`
      );
    }
    refuse(
      'malformed',
      `SVG is not well-formed XML (${error.message.replace(/\.$/, '')}); send one complete <svg xmlns="http://www.w3.org/2000/svg">…</svg> document`
    );
  });
  const onText = (text: string): void => {
    sheet?.push(text);
    const frame = stack[stack.length - 1];
    if (frame && DRAWN_TEXT.has(frame.local)) {
      frame.node.text += glyphCount(text);
    }
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('opentag', tag => {
    elements++;
    if (elements > SVG_MAX_NODES) {
      refuse('complexity', `SVG has more than ${SVG_MAX_NODES} elements; simplify the figure`);
    }
    if (stack.length + 1 > SVG_MAX_DEPTH) {
      refuse(
        'depth',
        `SVG nests elements more than ${SVG_MAX_DEPTH} levels deep; flatten the groups`
      );
    }
    const parent = stack[stack.length - 1];
    if (parent?.local === 'style') {
      refuse('element', 'SVG <style> contains an element; put only CSS text inside <style>');
    }
    checkElementName(tag, root === undefined);
    filters.element(tag.local, parent?.local, tag.attributes);
    const vertices = GEOMETRY_ELEMENTS.has(tag.local) ? vertexCount(tag.attributes) : 2;
    const node: SvgElementNode = { name: tag.local, children: [], refs: [], text: 0 };
    for (const attribute of Object.values(tag.attributes)) {
      node.refs.push(...checkAttribute(tag.name, attribute, vertices));
    }
    filterArea.element(node, root === undefined, tag.attributes);
    const id = tag.attributes.id?.value;
    if (id !== undefined) {
      if (ids.has(id)) {
        refuse(
          'attribute',
          `SVG has two elements with id="${id.slice(0, 40)}"; make every id unique`
        );
      }
      ids.set(id, node);
    }
    if (tag.local === 'style') {
      const type = tag.attributes.type?.value.trim().toLowerCase();
      if (type !== undefined && type !== '' && type !== 'text/css') {
        refuse(
          'css',
          `SVG <style type="${type.slice(0, 30)}"> is not CSS; use type="text/css" or omit type`
        );
      }
      sheet = [];
    }
    totalVertices += vertices;
    if (parent) {
      parent.node.children.push(node);
    } else {
      root = node;
      rootAttributes = tag.attributes;
    }
    stack.push({ local: tag.local, node });
  });
  parser.on('closetag', () => {
    const frame = stack.pop();
    if (frame?.local === 'style' && sheet) {
      const css = sheet.join('');
      sheetRefs.push(...checkStyleSheet(css));
      filterArea.sheet(css);
      sheet = undefined;
    }
  });

  parser.write(svg).close();
  if (!root) {
    refuse(
      'not-svg',
      'SVG has no root element; send one <svg xmlns="http://www.w3.org/2000/svg"> document'
    );
  }
  const size = intrinsicSize(
    rootAttributes.width?.value,
    rootAttributes.height?.value,
    rootAttributes.viewBox?.value
  );
  filters.canvas(size.width, size.height);
  // A rule may match every shape, so a marker set by a sheet repeats at every vertex.
  const expandedSheetRefs = sheetRefs.map(ref => referenceTimes(ref, totalVertices));
  const { nodes } = measureTree({ root, ids, sheetRefs: expandedSheetRefs });
  // After measureTree, which refuses cycles and runaway expansion before this sums over them.
  filterArea.check(root, ids, expandedSheetRefs, {
    ...size,
    viewBox: rootAttributes.viewBox?.value
  });
  return { ...size, nodes };
}

/**
 * Check a model-authored SVG figure against the trust boundary's allowlist.
 *
 * Strict XML (one well-formed document, SVG-namespace root, no DOCTYPE, entities, processing
 * instructions or XInclude), static SVG elements and attributes only, local `#id` references
 * only, no scripts, events, links, animation, foreign content or rasters, and the named size,
 * node and depth limits. Never throws.
 *
 * @param svg - the figure's source as the model wrote it.
 * @returns its intrinsic size and expanded node count, or the first rejection found.
 */
export function checkSvgPolicy(svg: string): SvgCheck {
  if (typeof svg !== 'string' || svg.trim() === '') {
    return reject(
      'empty',
      'SVG is empty; send a complete <svg xmlns="http://www.w3.org/2000/svg" …>…</svg> document'
    );
  }
  // Each UTF-16 unit is at least one byte, so a long string is refused before counting.
  const bytes = svg.length > SVG_MAX_BYTES ? svg.length : utf8Length(svg);
  if (bytes > SVG_MAX_BYTES) {
    return reject(
      'too-large',
      `SVG is ${svg.length > SVG_MAX_BYTES ? 'at least ' : ''}${bytes} bytes (UTF-8); keep it within ${SVG_MAX_BYTES} bytes (64 KiB) — simplify paths, round coordinates, reuse shapes with <use>`
    );
  }
  try {
    return { ok: true, value: walk(svg) };
  } catch (error) {
    if (error instanceof SvgRejected) {
      return { ok: false, error: error.rejection };
    }
    const reason = error instanceof Error ? error.message : String(error);
    return reject(
      'unreadable',
      `SVG could not be checked (${reason}); send a simpler, well-formed SVG document`
    );
  }
}
