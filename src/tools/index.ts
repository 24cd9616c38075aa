/**
 * `jupyterlab-figure-chat/tools`: the pure part of Figure Chat, loadable in plain Node with no DOM
 * (the figure server and other hosts reuse it): the stored transcript format, the tool registry,
 * the SVG policy, the tool-call text parsers, the vision record and views, and the Markdown export.
 */
export * from './transcript';
export * from './registry';
export * from './export';
export * from './svg';
export * from './toolcalls';
export * from './vision';
export * from './bundle';
export * from './pin';
export * from './pin-source';
export * from './wire';
export * from './host';
