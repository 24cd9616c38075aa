/**
 * People's captions under vision views: the picture's name and the marks the view shows, read off
 * the model's caption, never the raw address and sizes.
 */
import { pictureName, shownMarks, viewTitle } from '../widget/view-caption';
import type { VisionRecord } from '../tools/vision';

const record: VisionRecord = {
  image: 'cell:12555b98-aaaa/0',
  marks: [
    { id: 1, kind: 'point', x: 1, y: 1, r: 4, caption: 'peak', colour: 'red' },
    { id: 2, kind: 'box', x0: 1, y0: 1, x1: 9, y1: 9, caption: 'dip', colour: 'cyan' },
    { id: 13, kind: 'point', x: 5, y: 5, r: 4, caption: 'far', colour: 'blue' }
  ],
  lastId: 13
};

describe('view captions for people', () => {
  it('names pictures as a person would', () => {
    expect(pictureName('cell:12555b98-aaaa/0')).toBe('output 1 of cell 12555b98');
    expect(pictureName('data/plots/fig.png')).toBe('fig.png');
  });

  it('lists exactly the marks the view shows', () => {
    const caption =
      'Map of cell:12555b98-aaaa/0 (523×392, 3 marks) at 523×392; shows #1, #13; red marks covered';
    expect(shownMarks(caption, record).map(mark => mark.caption)).toEqual(['peak', 'far']);
    expect(shownMarks('Close-up of p.png at #2; shows no marks', record)).toEqual([]);
  });

  it('says how a close-up was enlarged', () => {
    expect(
      viewTitle(
        'Close-up of p.png at #2, region 0,0,65,65 at 800×800; enlarged 11.8× smoothly; shows #2',
        record
      )
    ).toBe('Close-up of output 1 of cell 12555b98, enlarged 11.8× smoothly');
    expect(
      viewTitle('Close-up of p.png at 1,1; enlarged 16× as a pixel grid; shows no marks', record)
    ).toBe('Close-up of output 1 of cell 12555b98, enlarged 16× as a pixel grid');
    expect(viewTitle('Map of p.png (9×9, 0 marks) at 9×9; shows no marks', record)).toBe(
      'Map of output 1 of cell 12555b98'
    );
  });
});
