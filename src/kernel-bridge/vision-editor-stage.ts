/**
 * The Vision editor's drawing surface: the preview under an SVG of the marks, in original-pixel
 * coordinates (`viewBox` = the picture's size), with the drafts a drag or a polygon draws. It
 * knows how marks look, not what an edit means (vision-editor.ts decides that).
 */
import type { VisionRecord } from '../tools/vision';
import { markElements, svgElement } from './mark-shapes';
import { handleElements } from './vision-editor-resize';
import { PreviewImage, shownWidth } from './vision-editor-preview';

/** The stage: a DOM node holding the preview and the marks' SVG. */
export class VisionStage {
  readonly node: HTMLDivElement;
  readonly svg: SVGSVGElement;
  readonly preview: PreviewImage;
  readonly draft: SVGRectElement;
  readonly polygonDraft: SVGPolylineElement;
  private readonly _marks: SVGGElement;
  private readonly _handles: SVGGElement;

  constructor(
    private readonly _width: number,
    height: number,
    label: string
  ) {
    const stage = document.createElement('div');
    this.node = stage;
    stage.className = 'jp-FigureChat-visionStage';
    stage.style.width = `${shownWidth(_width, height)}px`;
    this.preview = new PreviewImage(_width, height);
    this.svg = svgElement('svg', {
      viewBox: `0 0 ${_width} ${height}`,
      preserveAspectRatio: 'none',
      tabindex: 0,
      role: 'application',
      'aria-label': label
    });
    this.svg.classList.add('jp-FigureChat-visionMarks');
    this._marks = svgElement('g', {});
    this._handles = svgElement('g', {});
    this.draft = svgElement('rect', { class: 'jp-FigureChat-visionDraft', visibility: 'hidden' });
    this.polygonDraft = svgElement('polyline', {
      class: 'jp-FigureChat-visionDraft',
      visibility: 'hidden'
    });
    this.svg.append(this._marks, this._handles, this.draft, this.polygonDraft);
    stage.append(this.preview.node, this.svg);
  }

  /** Display only: a CSS filter on the picture, never a change to the record. */
  setDisplay(brightness: number, contrast: number): void {
    this.node.style.setProperty('--jp-figure-chat-brightness', String(brightness));
    this.node.style.setProperty('--jp-figure-chat-contrast', String(contrast));
  }

  /**
   * Draw every mark, and the resize handles of the selected box when `handles`; label sizes
   * follow the shown size so numbers stay readable when scaled.
   */
  draw(record: VisionRecord, selectedId: number | null, handles: boolean): void {
    const active = document.activeElement;
    const markHadFocus =
      active instanceof SVGGElement &&
      active.dataset.mark !== undefined &&
      this.node.contains(active);
    const shown = this.svg.getBoundingClientRect().width || this._width;
    const unit = this._width / shown;
    const groups = markElements(record, selectedId, unit);
    this._marks.replaceChildren(...groups);
    const selected = record.marks.find(mark => mark.id === selectedId);
    this._handles.replaceChildren(
      ...(selected?.kind === 'box' && handles ? handleElements(selected, unit) : [])
    );
    this.draft.setAttribute('stroke-width', String(2 * unit));
    this.polygonDraft.setAttribute('stroke-width', String(2 * unit));
    // Keep keyboard focus on the selected mark after a redraw replaced its element.
    if (markHadFocus && selectedId !== null) {
      this._marks.querySelector<SVGGElement>(`[data-mark="${selectedId}"]`)?.focus();
    }
  }
}
