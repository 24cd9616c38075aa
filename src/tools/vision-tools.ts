/**
 * The vision tools, for every host of the registry (the chat session, the kernel program):
 * `vision_mark`, `vision_update` (mutating, run one at a time),
 * `vision_show`, `vision_list`. Each call takes the record of its picture — the one a Vision
 * output shares with the person editing it, else the conversation's own (folded from the
 * transcript) — plans the call with the pure core, and has the figure server render the views.
 * They need only a {@link ToolHost}: its figure-server calls, pictures and vision state.
 */
import { FigureClient } from './figure-client';
import type { SharedVisionRecord, ToolHost } from './host';
import { toolError, type ToolContext, type ToolDefinition, type ToolOutput } from './registry';
import type { PictureFingerprint, StoredMessage } from './transcript';
import {
  VISION_DESCRIPTIONS,
  VISION_SCHEMAS,
  VisionError,
  VisionFold,
  planVisionCall,
  recordFor,
  validateRecord,
  type RenderAnswer,
  type ViewSpec,
  type VisionRecord,
  type VisionToolName
} from './vision';
import type { PictureRequest } from './wire';

/** A vision tool ran where there is no host (no notebook, no figure server). */
export class NoToolHostError extends Error {
  constructor() {
    super('this tool needs a host (a notebook and the figure server)');
    this.name = 'NoToolHostError';
  }
}

function toolHost(context: ToolContext): ToolHost {
  if (!context.host) {
    throw new NoToolHostError();
  }
  return context.host;
}

const folds = new WeakMap<object, VisionFold>();

/**
 * Records changed by calls of the running batch. Results are written in call order, so a mutating
 * call may finish before an earlier read-only call's result is written; the next mutating call of
 * the same batch must still see its marks (or two marks would share a number).
 */
const batchRecords = new WeakMap<object, { batch: string; records: Map<string, VisionRecord> }>();

function recordsOfBatch(owner: object, messages: StoredMessage[]): Map<string, VisionRecord> {
  const batch = [...messages].reverse().find(m => m.role === 'assistant')?.id ?? '';
  let entry = batchRecords.get(owner);
  if (!entry || entry.batch !== batch) {
    entry = { batch, records: new Map() };
    batchRecords.set(owner, entry);
  }
  return entry.records;
}

/** Render views of a record over a picture. */
export function renderViews(
  host: ToolHost,
  picture: PictureRequest,
  sha256: string,
  record: VisionRecord,
  views: ReadonlyArray<ViewSpec>,
  signal: AbortSignal
): Promise<RenderAnswer> {
  return new FigureClient(host.request).call(
    'render',
    // `model`: each view's compact copy travels to the model; people see the PNG.
    { ...picture, expectSha256: sha256, views: [...views], record, model: true },
    signal
  );
}

/** What one call works on: its picture, the record before it, and where the pixels come from. */
interface Subject {
  readonly fingerprint: PictureFingerprint;
  readonly before: VisionRecord;
  readonly shared: SharedVisionRecord | null;
  picture(signal: AbortSignal): Promise<PictureRequest>;
}

/** The shared record of a Vision output, checked like any record read from a notebook. */
function sharedSubject(shared: SharedVisionRecord): Subject {
  const fingerprint = {
    address: shared.picture.address,
    sha256: shared.picture.sha256,
    width: shared.picture.width,
    height: shared.picture.height
  };
  let before: VisionRecord;
  try {
    before = validateRecord(shared.record(), fingerprint);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new VisionError(
      'bad-args',
      `the marks of ${fingerprint.address} in its Vision output are unreadable (${reason}); run its cell again.`
    );
  }
  return {
    fingerprint,
    before,
    shared,
    picture: async signal => {
      const data = await shared.pictureData(signal);
      // Without a kernel, only a workspace file of the same bytes (expectSha256) can be drawn.
      return data === undefined
        ? { address: fingerprint.address }
        : { address: fingerprint.address, data };
    }
  };
}

/** A picture the conversation keeps the record of: a `cell:` image output or a workspace file. */
async function ownSubject(
  host: ToolHost,
  address: string,
  before: () => VisionRecord,
  signal: AbortSignal
): Promise<Subject> {
  const data = host.pictureData(address);
  const request: PictureRequest = data === undefined ? { address } : { address, data };
  const info = await new FigureClient(host.request).call('picture-info', request, signal);
  return {
    fingerprint: { address, sha256: info.sha256, width: info.width, height: info.height },
    before: before(),
    shared: null,
    picture: () => Promise.resolve(request)
  };
}

/** What the model is told when the marks could not reach a running widget. */
const SAVED_ONLY_NOTE =
  ' (No running Vision widget holds this picture — its kernel is gone — so these marks are kept in this chat only; run its cell again to edit them in the widget.)';

function visionTool(name: VisionToolName): ToolDefinition {
  const mutates = name === 'vision_mark' || name === 'vision_update';
  return {
    name,
    description: VISION_DESCRIPTIONS[name],
    input: VISION_SCHEMAS[name],
    mutates,
    async run(args: Record<string, unknown>, context): Promise<ToolOutput> {
      const host = toolHost(context);
      const owner = host.vision.owner;
      let fold = folds.get(owner);
      if (!fold) {
        fold = new VisionFold();
        folds.set(owner, fold);
      }
      const messages = host.vision.messages();
      const state = fold.read('live', messages);
      const address = typeof args.image === 'string' ? args.image : state.current;
      if (!address) {
        return {
          status: 'failed',
          text: 'Tool error: no picture yet. Name one with "image": a workspace path relative to the Jupyter root, cell:<cell-id>/<output-index>, or the picture of a marked picture (notebook_read lists them).'
        };
      }
      const records = recordsOfBatch(owner, messages);
      const shared =
        host.vision.shared?.(address) ??
        (await host.vision.readShared?.(address, context.signal)) ??
        null;
      const subject = shared
        ? sharedSubject(shared)
        : await ownSubject(
            host,
            address,
            () => records.get(address) ?? recordFor(state, address),
            context.signal
          );
      const { fingerprint, before } = subject;
      const plan = planVisionCall(name, args, before, fingerprint);
      let note = '';
      if (mutates) {
        if (subject.shared?.write) {
          try {
            // Only what the kernel took is reported as marked.
            await subject.shared.write(plan.record, context.signal);
          } catch (error) {
            if (context.signal.aborted) {
              throw error;
            }
            return toolError(error instanceof Error ? error.message : String(error));
          }
        } else if (subject.shared) {
          note = SAVED_ONLY_NOTE;
        }
        records.set(fingerprint.address, plan.record);
      }
      // A shared record's result keeps the marks the call started from: the transcript cannot
      // know what a person changed in the widget, and the replay must show what the model saw.
      const result = {
        picture: fingerprint,
        ...(subject.shared ? { record: before } : {})
      };
      if (!plan.views.length) {
        return { status: 'completed', text: plan.text + note, ...result };
      }
      try {
        const picture = await subject.picture(context.signal);
        const rendered = await renderViews(
          host,
          picture,
          fingerprint.sha256,
          plan.record,
          plan.views,
          context.signal
        );
        return { status: 'completed', text: plan.text + note, images: rendered.views, ...result };
      } catch (error) {
        if (context.signal.aborted || (!mutates && !subject.shared)) {
          throw error;
        }
        // The marks are committed by now (or, for a shared record, readable without pixels):
        // say the views failed rather than failing the call.
        return {
          status: 'completed',
          text: `${plan.text}${note} (The views could not be rendered: ${(error as Error).message})`,
          ...result
        };
      }
    }
  };
}

/** The four vision tools. */
export const visionTools: ToolDefinition[] = (
  ['vision_mark', 'vision_update', 'vision_show', 'vision_list'] as const
).map(visionTool);
