/**
 * Captions of vision views for people: the picture's name and each shown mark's number, colour
 * swatch and caption. The model's caption (address, region, sizes) stays available in the card's
 * details; this one is what a person reads under the picture.
 */
import { PALETTE_HEX, type Mark, type VisionRecord } from '../tools/vision';

/** A picture address as a person names it: a file's name, or which cell output it is. */
export function pictureName(address: string): string {
  const cell = /^cell:([^/]+)\/(\d+)$/.exec(address);
  if (cell) {
    return `output ${Number(cell[2]) + 1} of cell ${cell[1].slice(0, 8)}`;
  }
  return address.split('/').pop() || address;
}

/** What kind of view a model caption describes, in words. */
function viewKind(modelCaption: string): string {
  if (modelCaption.startsWith('Close-up')) {
    return 'Close-up of';
  }
  if (modelCaption.startsWith('Sheet')) {
    return 'Close-ups of';
  }
  if (modelCaption.startsWith('Marks')) {
    return 'Marks on';
  }
  return 'Map of';
}

/** The marks a model caption says the view shows (`shows #1, #3`). */
export function shownMarks(modelCaption: string, record: VisionRecord): Mark[] {
  const shows = /; shows ((?:#\d+(?:, )?)+)/.exec(modelCaption)?.[1] ?? '';
  const ids = new Set(Array.from(shows.matchAll(/#(\d+)/g), match => Number(match[1])));
  return record.marks.filter(mark => ids.has(mark.id));
}

/**
 * The caption's first line: what the view is, of which picture, and how it was enlarged
 * (smoothly, or as a pixel grid at very high zoom), as the model's caption says it.
 */
export function viewTitle(modelCaption: string, record: VisionRecord): string {
  const enlarged = /; (enlarged [^;]+)/.exec(modelCaption)?.[1];
  return `${viewKind(modelCaption)} ${pictureName(record.image)}${enlarged ? `, ${enlarged}` : ''}`;
}

/** The caption element under a view. */
export function renderViewCaption(modelCaption: string, record: VisionRecord): HTMLElement {
  const caption = document.createElement('figcaption');
  caption.className = 'jp-FigureChat-figure-caption jp-FigureChat-viewCaption';
  const title = document.createElement('div');
  title.className = 'jp-FigureChat-viewCaption-title';
  title.textContent = viewTitle(modelCaption, record);
  caption.append(title);
  const marks = shownMarks(modelCaption, record);
  if (marks.length) {
    const list = document.createElement('ul');
    list.className = 'jp-FigureChat-viewCaption-marks';
    for (const mark of marks) {
      const item = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = 'jp-FigureChat-viewCaption-swatch';
      // The mark's own colour, as drawn in the view: data, not theme.
      swatch.style.backgroundColor = PALETTE_HEX[mark.colour];
      swatch.title = mark.colour;
      const number = document.createElement('strong');
      number.textContent = `#${mark.id}`;
      item.append(swatch, number, mark.caption ? ` ${mark.caption}` : '');
      list.append(item);
    }
    caption.append(list);
  }
  return caption;
}
