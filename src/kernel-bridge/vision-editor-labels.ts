/** The Vision editor's UI strings, translated (kept apart so the widget module stays short). */
import type { TranslationBundle } from '@jupyterlab/translation';

import type { VisionEditorLabels } from './vision-editor-toolbar';

export function editorLabels(trans: TranslationBundle): VisionEditorLabels {
  return {
    addPoint: trans.__('Add point'),
    addBox: trans.__('Add box'),
    polygon: trans.__('Polygon'),
    classes: trans.__('Class of new marks'),
    caption: trans.__('Caption'),
    captionOfSelected: trans.__('Caption of the selected mark'),
    colour: trans.__('Colour of the selected mark, or of new marks'),
    remove: trans.__('Delete mark'),
    undo: trans.__('Undo'),
    redo: trans.__('Redo'),
    brightness: trans.__('Brightness'),
    contrast: trans.__('Contrast'),
    picture: trans.__(
      'Picture marks: click to add a point, drag to draw a box, drag a mark to move it, drag a corner or edge of the selected box to resize it, or a vertex of the selected polygon to move it; in polygon mode click the vertices and click the first one or press Enter to close; Tab to select marks, arrows to move, Shift+arrows to resize, Delete to remove'
    ),
    keys: trans.__(
      'Keys on the picture: arrows move the selected mark (Ctrl/Cmd: 10 pixels), Shift+arrows resize the selected box, 1–9 choose the class (and relabel the selected mark), Delete removes it, Escape deselects, Enter edits its caption, Ctrl/Cmd+Z undoes, Shift+Ctrl/Cmd+Z redoes. Polygon: click the vertices, click the first or press Enter to close, Escape drops it. Brightness and contrast change only what you see.'
    )
  };
}
