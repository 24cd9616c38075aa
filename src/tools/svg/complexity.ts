/**
 * How much a figure costs once references are expanded. A renderer clones a `use` target for
 * every `use`, and instantiates markers at every vertex, so a few kilobytes of nested references
 * ("billion laughs") can become billions of nodes. Counting with references expanded, memoized
 * per element and with cycle detection, keeps the check linear in the source.
 */
import { SVG_MAX_DEPTH, SVG_MAX_NODES, SVG_MAX_TEXT_CHARACTERS } from './limits';
import { refuse } from './result';

/** A reference from an element to another element, and how many copies it makes. */
export interface ElementReference {
  readonly id: string;
  readonly times: number;
}

/** An element as the complexity count sees it. */
export interface SvgElementNode {
  readonly name: string;
  readonly children: SvgElementNode[];
  readonly refs: ElementReference[];
  /** Characters of text directly inside the element (spaces not counted). */
  text: number;
}

/** The parsed figure: its root, its ids, and references made by `<style>` rules. */
export interface SvgTree {
  readonly root: SvgElementNode;
  readonly ids: ReadonlyMap<string, SvgElementNode>;
  /** Counted once per rule reference: paint servers, clips, masks and filters are shared. */
  readonly sheetRefs: readonly ElementReference[];
}

/** An element's expanded size, height and text. */
interface Cost {
  readonly nodes: number;
  readonly height: number;
  readonly text: number;
}

/** What a figure costs with references expanded. */
export interface TreeMeasure {
  readonly nodes: number;
  /** Characters of text, each `<use>` copy counted. */
  readonly text: number;
}

function tooMuchText(): never {
  // Counting stops at the first element past the limit, so no total is claimed.
  refuse(
    'text',
    `SVG has more than ${SVG_MAX_TEXT_CHARACTERS} characters of text (spaces not counted, each <use> copy counted); shorten the labels, or put long text in the chat instead of the figure`
  );
}

function tooComplex(nodes: number): never {
  refuse(
    'complexity',
    `SVG has more than ${SVG_MAX_NODES} elements once <use> and url(#…) references are expanded (${nodes > SVG_MAX_NODES * 1000 ? 'far more' : nodes}); simplify the figure or reference fewer copies`
  );
}

function tooDeep(): never {
  refuse(
    'depth',
    `SVG nests elements (or <use> references) more than ${SVG_MAX_DEPTH} levels deep; flatten the groups`
  );
}

/**
 * Count the figure's nodes and text with references expanded; refuses past the limits or on a
 * cycle.
 */
export function measureTree(tree: SvgTree): TreeMeasure {
  const memo = new Map<SvgElementNode, Cost>();
  const visiting = new Set<SvgElementNode>();
  const names = new Map<SvgElementNode, string>();
  for (const [id, node] of tree.ids) {
    names.set(node, id);
  }

  const cost = (node: SvgElementNode, depth: number): Cost => {
    const known = memo.get(node);
    if (known) {
      return known;
    }
    if (depth > SVG_MAX_DEPTH) {
      tooDeep();
    }
    visiting.add(node);
    let nodes = 1;
    let height = 1;
    let text = node.text;
    const add = (child: Cost, times: number): void => {
      nodes += child.nodes * times;
      text += child.text * times;
      height = Math.max(height, child.height + 1);
      if (nodes > SVG_MAX_NODES) {
        tooComplex(nodes);
      }
      if (text > SVG_MAX_TEXT_CHARACTERS) {
        tooMuchText();
      }
    };
    for (const child of node.children) {
      add(cost(child, depth + 1), 1);
    }
    for (const ref of node.refs) {
      const target = tree.ids.get(ref.id);
      if (!target) {
        continue; // a dangling reference draws nothing
      }
      if (visiting.has(target)) {
        refuse(
          'complexity',
          `SVG references form a cycle through #${names.get(target) ?? ref.id}; remove the <use> or url(#…) that points back at its own ancestor`
        );
      }
      add(cost(target, depth + 1), ref.times);
    }
    visiting.delete(node);
    // Memoized with its height, so a later deeper reference to it is still checked for depth.
    const result = { nodes, height, text };
    memo.set(node, result);
    return result;
  };

  const root = cost(tree.root, 1);
  if (root.height > SVG_MAX_DEPTH) {
    tooDeep();
  }
  if (root.text > SVG_MAX_TEXT_CHARACTERS) {
    tooMuchText();
  }
  let total = root.nodes;
  let text = root.text;
  for (const ref of tree.sheetRefs) {
    const target = tree.ids.get(ref.id);
    if (target) {
      const targetCost = cost(target, 2);
      total += targetCost.nodes * ref.times;
      text += targetCost.text * ref.times;
      if (text > SVG_MAX_TEXT_CHARACTERS) {
        tooMuchText();
      }
      if (targetCost.height + 1 > SVG_MAX_DEPTH) {
        tooDeep();
      }
      if (total > SVG_MAX_NODES) {
        tooComplex(total);
      }
    }
  }
  return { nodes: total, text };
}
