/**
 * A figure or view opened larger in a main-area tab.
 */
import { MainAreaWidget } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

let opened = 0;

/** A main-area tab showing one image at its natural size (scrollable). */
export function createLargerView(src: string, title: string): MainAreaWidget {
  const content = new Widget();
  content.addClass('jp-FigureChat-larger');
  const img = document.createElement('img');
  img.src = src;
  img.alt = title;
  img.className = 'jp-FigureChat-larger-image';
  content.node.append(img);
  const widget = new MainAreaWidget({ content });
  opened += 1;
  widget.id = `jp-figure-chat-larger-${opened}`;
  widget.title.label = title.length > 40 ? `${title.slice(0, 40)}…` : title;
  widget.title.caption = title;
  widget.title.closable = true;
  return widget;
}
