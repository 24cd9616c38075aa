/**
 * The vision tools in the chat: `vision_mark`, `vision_update` (mutating, run one at a time),
 * `vision_show`, `vision_list`. Each call folds the transcript for the record of its picture,
 * plans the call with the pure core, and has the figure server render the views.
 */
import type { ToolDefinition, ToolOutput } from '../../tools/registry';
import { isReadable, type StoredMessage } from '../../tools/transcript';
import {
  VISION_DESCRIPTIONS,
  VISION_SCHEMAS,
  VisionFold,
  planVisionCall,
  recordFor,
  type RenderAnswer,
  type ViewSpec,
  type VisionRecord,
  type VisionToolName
} from '../../tools/vision';
import { FigureClient } from '../figure-client';
import { chatHost, type ChatToolHost } from './host';
import { pictureRequest, type PictureRequest } from './pictures';

const folds = new WeakMap<object, VisionFold>();

/**
 * Records changed by calls of the running batch. Results are written in call order, so a mutating
 * call may finish before an earlier read-only call's result is written; the next mutating call of
 * the same batch must still see its marks (or two marks would share a number).
 */
const batchRecords = new WeakMap<object, { batch: string; records: Map<string, VisionRecord> }>();

function recordsOfBatch(host: ChatToolHost, messages: StoredMessage[]): Map<string, VisionRecord> {
  const batch = [...messages].reverse().find(m => m.role === 'assistant')?.id ?? '';
  let entry = batchRecords.get(host.conversation);
  if (!entry || entry.batch !== batch) {
    entry = { batch, records: new Map() };
    batchRecords.set(host.conversation, entry);
  }
  return entry.records;
}

/** Render views of a record over a picture. */
export function renderViews(
  host: ChatToolHost,
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

function visionTool(name: VisionToolName): ToolDefinition {
  const mutates = name === 'vision_mark' || name === 'vision_update';
  return {
    name,
    description: VISION_DESCRIPTIONS[name],
    input: VISION_SCHEMAS[name],
    mutates,
    async run(args: Record<string, unknown>, context): Promise<ToolOutput> {
      const host = chatHost(context);
      let fold = folds.get(host.conversation);
      if (!fold) {
        fold = new VisionFold();
        folds.set(host.conversation, fold);
      }
      const messages = host.conversation.entries.filter(isReadable);
      const state = fold.read('live', messages);
      const address = typeof args.image === 'string' ? args.image : state.current;
      if (!address) {
        return {
          status: 'failed',
          text: 'Tool error: no picture yet. Name one with "image": a workspace path relative to the Jupyter root, or cell:<cell-id>/<output-index> (notebook_read lists the image outputs).'
        };
      }
      const picture = pictureRequest(host.notebook(), address);
      const info = await new FigureClient(host.request).call(
        'picture-info',
        picture,
        context.signal
      );
      const records = recordsOfBatch(host, messages);
      const before = records.get(address) ?? recordFor(state, address);
      const plan = planVisionCall(name, args, before, info);
      const fingerprint = {
        address,
        sha256: info.sha256,
        width: info.width,
        height: info.height
      };
      if (mutates) {
        records.set(address, plan.record);
      }
      if (!plan.views.length) {
        return { status: 'completed', text: plan.text, picture: fingerprint };
      }
      try {
        const rendered = await renderViews(
          host,
          picture,
          info.sha256,
          plan.record,
          plan.views,
          context.signal
        );
        return {
          status: 'completed',
          text: plan.text,
          images: rendered.views,
          picture: fingerprint
        };
      } catch (error) {
        if (context.signal.aborted || !mutates) {
          throw error;
        }
        // The marks are committed by now: say the views failed rather than failing the call.
        return {
          status: 'completed',
          text: `${plan.text} (The views could not be rendered: ${(error as Error).message})`,
          picture: fingerprint
        };
      }
    }
  };
}

/** The four vision tools. */
export const visionTools: ToolDefinition[] = (
  ['vision_mark', 'vision_update', 'vision_show', 'vision_list'] as const
).map(visionTool);
