/**
 * What `figure-chat kernel` does for the Python `Figure` and `Vision`: the same pure code the chat's
 * tools run (the SVG policy, `planVisionCall`, `validateRecord`) and the same rendering
 * (`checkSvg`, `renderView`), so a kernel call means exactly what the model's call means and fails
 * with the same message. This module dispatches a request to its op (./kernel-figure,
 * ./kernel-pictures, ./kernel-vision) and turns every failure into a {@link KernelOpError}.
 */
import { presentSvgTool } from '../../tools/present-svg';
import { ToolRegistry } from '../../tools/registry';
import { VisionError } from '../../tools/vision';
import { visionTools } from '../../tools/vision-tools';
import { HttpError } from '../http/http';
import { AgentRequest, agentOp } from './agent';
import { KernelOpError, parseRequest, type KernelAnswer } from './answer';
import { FigureRequest, figureOp } from './figure';
import { PictureRequest, pictureOp, PreviewRequest, previewOp } from './pictures';
import {
  CheckRecordRequest,
  checkRecordOp,
  MarksRequest,
  marksOp,
  RenderViewRequest,
  renderOp,
  VisionRequest,
  visionOp
} from './vision';

export { KernelOpError, type KernelAnswer } from './answer';
export { FIGURE_PNG_MAX_PIXELS } from './figure';

/** The registry of the tools the kernel runs: the very handlers the chat registers. */
const registry = new ToolRegistry();
for (const tool of visionTools) {
  registry.register(tool);
}
registry.register(presentSvgTool);

/** Run one request; every failure becomes a {@link KernelOpError} the Python side can raise. */
export async function runKernelOp(header: unknown, payload: Buffer): Promise<KernelAnswer> {
  const op = (header as { op?: unknown } | null)?.op;
  try {
    switch (op) {
      case 'figure':
        return await figureOp(registry, parseRequest(FigureRequest, op, header));
      case 'picture':
        return await pictureOp(parseRequest(PictureRequest, op, header), payload);
      case 'preview':
        return await previewOp(parseRequest(PreviewRequest, op, header));
      case 'vision':
        return await visionOp(registry, parseRequest(VisionRequest, op, header));
      case 'marks':
        return marksOp(parseRequest(MarksRequest, op, header));
      case 'render':
        return await renderOp(parseRequest(RenderViewRequest, op, header));
      case 'check-record':
        return checkRecordOp(parseRequest(CheckRecordRequest, op, header));
      case 'agent':
        return await agentOp(registry, parseRequest(AgentRequest, op, header));
      default:
        throw new KernelOpError('request', 'bad-request', `unknown op ${String(op)}`);
    }
  } catch (error) {
    if (error instanceof KernelOpError) {
      throw error;
    }
    if (error instanceof VisionError) {
      throw new KernelOpError('vision', error.code, error.message);
    }
    if (error instanceof HttpError) {
      // The picture and render modules speak HTTP; here only their code and message matter.
      const type =
        error.code === 'bad-request' ? 'request' : error.status === 400 ? 'vision' : 'picture';
      throw new KernelOpError(type, error.code, error.message);
    }
    throw error;
  }
}
