/**
 * The Vision editor's pointer gestures: a click adds a point, a drag draws a box, dragging a mark
 * moves it, dragging a handle of the selected box resizes it. While dragging, the change is only
 * drawn (`preview`); the drop makes one edit, so the kernel hears one change per gesture. In
 * polygon mode each click adds a vertex; a click on the first vertex (or Enter) closes the
 * polygon, which is one edit, and Escape drops it. Dragging a vertex handle of the selected
 * polygon moves that vertex alone (in either mode, unless a polygon is being drawn).
 */
import type {
  BoxMark,
  Mark,
  MarkArg,
  PictureSize,
  PolygonMark,
  UpdateOp,
  VisionRecord
} from '../tools/vision';
import { clamp, movedAddress, movedVertexAddress, vertexIndexOf } from './mark-shapes';
import { isHandle, resizedAddress, type Handle } from './vision-editor-resize';

/** Screen pixels a pointer must travel before a press becomes a drag (a box or a move). */
const DRAG_THRESHOLD = 4;

/** Screen pixels from the first vertex within which a click closes the polygon. */
const CLOSE_DISTANCE = 10;

type Gesture =
  | { kind: 'draw'; x: number; y: number; clientX: number; clientY: number; dragging: boolean }
  | { kind: 'move'; mark: Mark; x: number; y: number; clientX: number; clientY: number }
  | { kind: 'resize'; mark: BoxMark; handle: Handle; x: number; y: number }
  | { kind: 'vertex'; mark: PolygonMark; index: number; x: number; y: number };

/** What the gestures need of the editor. */
export interface GestureHost {
  readonly svg: SVGSVGElement;
  /** The dashed box shown while drawing one. */
  readonly draft: SVGRectElement;
  /** The polygon being drawn, its vertices joined up to the pointer. */
  readonly polygonDraft: SVGPolylineElement;
  readonly size: PictureSize;
  /** Whether clicks add polygon vertices (else points and boxes). */
  polygonMode(): boolean;
  record(): VisionRecord;
  selected(): number | null;
  select(id: number): void;
  /** Draw the record as this update would make it, without keeping it. */
  preview(op: UpdateOp): void;
  /** Draw the record as it is (a gesture ended without a change). */
  redraw(): void;
  add(mark: Omit<MarkArg, 'colour'>): void;
  update(op: UpdateOp): void;
}

/** The number of the mark an event's target belongs to, if any. */
export function markIdOf(target: EventTarget | null): number | null {
  const group = target instanceof Element ? target.closest('[data-mark]') : null;
  const id = Number(group?.getAttribute('data-mark'));
  return Number.isInteger(id) && id > 0 ? id : null;
}

/** The gesture under way, if any, from press to release. */
export class PointerGestures {
  private _gesture: Gesture | null = null;
  /** The vertices of the polygon being drawn (picture pixels, on pixel edges), if one is. */
  private _vertices: [number, number][] = [];

  constructor(private readonly _host: GestureHost) {}

  /** Forget the gesture under way (cancelled, or the editor stopped taking edits). */
  cancel(): void {
    this._gesture = null;
    this._host.draft.setAttribute('visibility', 'hidden');
    this.cancelPolygon();
  }

  /** Whether a polygon is being drawn (then Enter, Escape and Backspace are its keys). */
  get drawingPolygon(): boolean {
    return this._vertices.length > 0;
  }

  /** Drop the polygon being drawn. */
  cancelPolygon(): void {
    this._vertices = [];
    this._host.polygonDraft.setAttribute('points', '');
    this._host.polygonDraft.setAttribute('visibility', 'hidden');
  }

  /** Take back the last vertex of the polygon being drawn. */
  dropVertex(): void {
    this._vertices.pop();
    this._drawPolygon(null);
  }

  /** Close the polygon being drawn as a mark, if it has 3 vertices or more. */
  closePolygon(): void {
    if (this._vertices.length < 3) {
      return;
    }
    const at = this._vertices.map(([x, y]) => `${x},${y}`).join(',');
    this.cancelPolygon();
    this._host.add({ at });
  }

  /** The pixel edge nearest a pointer event, kept inside the picture (a polygon's vertex). */
  private _edgeXY(event: { clientX: number; clientY: number }): [number, number] {
    const box = this._host.svg.getBoundingClientRect();
    const { width, height } = this._host.size;
    const x = ((event.clientX - box.left) / Math.max(1, box.width)) * width;
    const y = ((event.clientY - box.top) / Math.max(1, box.height)) * height;
    return [clamp(Math.round(x), 0, width), clamp(Math.round(y), 0, height)];
  }

  private _drawPolygon(pointer: [number, number] | null): void {
    const points = pointer ? [...this._vertices, pointer] : this._vertices;
    this._host.polygonDraft.setAttribute('points', points.map(p => p.join(',')).join(' '));
    this._host.polygonDraft.setAttribute('visibility', points.length ? 'visible' : 'hidden');
  }

  private _polygonClick(event: PointerEvent): void {
    const first = this._vertices[0];
    if (first && this._vertices.length >= 3) {
      const box = this._host.svg.getBoundingClientRect();
      const scale = box.width / this._host.size.width;
      const fx = box.left + first[0] * scale;
      const fy = box.top + first[1] * scale;
      if (Math.hypot(event.clientX - fx, event.clientY - fy) <= CLOSE_DISTANCE) {
        this.closePolygon();
        return;
      }
    }
    const vertex = this._edgeXY(event);
    const last = this._vertices[this._vertices.length - 1];
    if (!last || last[0] !== vertex[0] || last[1] !== vertex[1]) {
      this._vertices.push(vertex);
    }
    this._drawPolygon(null);
  }

  /** Original-pixel coordinates of a pointer event, rounded and kept inside the picture. */
  private _pictureXY(event: { clientX: number; clientY: number }): { x: number; y: number } {
    const box = this._host.svg.getBoundingClientRect();
    const { width, height } = this._host.size;
    const x = ((event.clientX - box.left) / Math.max(1, box.width)) * width;
    const y = ((event.clientY - box.top) / Math.max(1, box.height)) * height;
    return { x: clamp(Math.floor(x), 0, width - 1), y: clamp(Math.floor(y), 0, height - 1) };
  }

  down(event: PointerEvent): void {
    if (event.button !== 0) {
      return;
    }
    event.preventDefault();
    this._host.svg.focus();
    const vertex = this.drawingPolygon ? null : this._vertexGesture(event);
    if (vertex) {
      this._host.svg.setPointerCapture(event.pointerId);
      this._gesture = vertex;
      return;
    }
    if (this._host.polygonMode()) {
      this._polygonClick(event);
      return;
    }
    this._host.svg.setPointerCapture(event.pointerId);
    const { x, y } = this._pictureXY(event);
    const handle =
      event.target instanceof Element ? event.target.getAttribute('data-handle') : null;
    const box = this._host.record().marks.find(candidate => candidate.id === this._host.selected());
    if (isHandle(handle) && box?.kind === 'box') {
      this._gesture = { kind: 'resize', mark: box, handle, x, y };
      return;
    }
    const id = markIdOf(event.target);
    const mark = this._host.record().marks.find(candidate => candidate.id === id);
    if (mark) {
      this._host.select(mark.id);
      this._gesture = { kind: 'move', mark, x, y, clientX: event.clientX, clientY: event.clientY };
    } else {
      this._gesture = {
        kind: 'draw',
        x,
        y,
        clientX: event.clientX,
        clientY: event.clientY,
        dragging: false
      };
    }
  }

  move(event: PointerEvent): void {
    if (this.drawingPolygon) {
      this._drawPolygon(this._edgeXY(event));
      return;
    }
    const gesture = this._gesture;
    if (!gesture) {
      return;
    }
    if (gesture.kind === 'vertex') {
      // Drawn locally while dragging; the kernel hears only the drop.
      this._host.preview(this._vertexOp(gesture, this._edgeXY(event)));
      return;
    }
    const { x, y } = this._pictureXY(event);
    if (gesture.kind === 'resize') {
      // Drawn locally while dragging; the kernel hears only the drop.
      this._host.preview(this._resizeOp(gesture, x, y));
      return;
    }
    const far =
      Math.hypot(event.clientX - gesture.clientX, event.clientY - gesture.clientY) >=
      DRAG_THRESHOLD;
    if (gesture.kind === 'draw') {
      gesture.dragging ||= far;
      if (gesture.dragging) {
        this._host.draft.setAttribute('x', String(Math.min(x, gesture.x)));
        this._host.draft.setAttribute('y', String(Math.min(y, gesture.y)));
        this._host.draft.setAttribute('width', String(Math.abs(x - gesture.x)));
        this._host.draft.setAttribute('height', String(Math.abs(y - gesture.y)));
        this._host.draft.setAttribute('visibility', 'visible');
      }
    } else if (far || x !== gesture.x || y !== gesture.y) {
      // Drawn locally while dragging; the kernel hears only the drop.
      this._host.preview({ mark: gesture.mark.id, at: this._movedAt(gesture, x, y) });
    }
  }

  up(event: PointerEvent): void {
    const gesture = this._gesture;
    this._gesture = null;
    this._host.draft.setAttribute('visibility', 'hidden');
    if (!gesture) {
      return;
    }
    if (gesture.kind === 'vertex') {
      const [x, y] = this._edgeXY(event);
      if (x !== gesture.x || y !== gesture.y) {
        this._host.update(this._vertexOp(gesture, [x, y]));
      } else {
        this._host.redraw();
      }
      return;
    }
    const { x, y } = this._pictureXY(event);
    if (gesture.kind === 'resize') {
      if (x !== gesture.x || y !== gesture.y) {
        this._host.update(this._resizeOp(gesture, x, y));
      } else {
        this._host.redraw();
      }
      return;
    }
    if (gesture.kind === 'move') {
      if (x !== gesture.x || y !== gesture.y) {
        this._host.update({ mark: gesture.mark.id, at: this._movedAt(gesture, x, y) });
      } else {
        this._host.redraw();
      }
      return;
    }
    const x0 = Math.min(x, gesture.x);
    const y0 = Math.min(y, gesture.y);
    // Box edges lie between pixels: the box covers the pixels from the press to the release.
    const x1 = Math.max(x, gesture.x) + 1;
    const y1 = Math.max(y, gesture.y) + 1;
    if (gesture.dragging && x1 - x0 > 1 && y1 - y0 > 1) {
      this._host.add({ at: `${x0},${y0},${x1},${y1}` });
    } else {
      this._host.add({ at: `${gesture.x},${gesture.y}` });
    }
  }

  private _movedAt(gesture: Gesture & { kind: 'move' }, x: number, y: number): string {
    const { width, height } = this._host.size;
    return movedAddress(gesture.mark, x - gesture.x, y - gesture.y, width, height);
  }

  /** A press on a vertex handle of the selected polygon starts moving that vertex. */
  private _vertexGesture(event: PointerEvent): (Gesture & { kind: 'vertex' }) | null {
    const index = vertexIndexOf(event.target);
    const mark = this._host
      .record()
      .marks.find(candidate => candidate.id === this._host.selected());
    if (index === null || mark?.kind !== 'polygon' || index >= mark.points.length) {
      return null;
    }
    const [x, y] = this._edgeXY(event);
    return { kind: 'vertex', mark, index, x, y };
  }

  /**
   * The vertex moved as far as the pointer since the press (so it does not jump to the pointer);
   * the tools refuse a polygon left without area, and the editor says so.
   */
  private _vertexOp(gesture: Gesture & { kind: 'vertex' }, [x, y]: [number, number]): UpdateOp {
    const { width, height } = this._host.size;
    const [vx, vy] = gesture.mark.points[gesture.index];
    return {
      mark: gesture.mark.id,
      at: movedVertexAddress(
        gesture.mark.points,
        gesture.index,
        vx + x - gesture.x,
        vy + y - gesture.y,
        width,
        height
      )
    };
  }

  private _resizeOp(gesture: Gesture & { kind: 'resize' }, x: number, y: number): UpdateOp {
    const { width, height } = this._host.size;
    return {
      mark: gesture.mark.id,
      at: resizedAddress(gesture.mark, gesture.handle, x - gesture.x, y - gesture.y, width, height)
    };
  }
}
