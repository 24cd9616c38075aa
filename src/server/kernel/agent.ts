/**
 * The `agent` op of `figure-chat kernel`, for calls from other agents (MCP, through
 * `jupyterlab_figure_chat/mcp`) on a notebook no page has open: one tool call on the notebook's
 * stored conversation, run by the registry's own handler. Its host is the figure server's own
 * routes, answered in process (the same picture confinement to the Jupyter root, the same SVG
 * checks, the same rendering), the notebook's cells (their `cell:` pictures and the records their
 * Vision outputs saved) and the stored conversation (which the vision records fold from). The
 * answer carries the two messages to append (./agent-turn in `src/tools`), or nothing to store
 * when the call failed, and the images the agent sees.
 */
import { randomUUID } from 'node:crypto';

import { z } from 'zod';

import { agentTurn, AgentCall, type AgentTurnIds } from '../../tools/agent-turn';
import { FIGURE_MIME, parseOutputBundle, type VisionBundle } from '../../tools/bundle';
import { isRecord } from '../../tools/guards';
import type { NotebookCellJson, SharedVisionRecord, ToolHost } from '../../tools/host';
import type { ToolRegistry } from '../../tools/registry';
import { isReadable, loadTranscript } from '../../tools/transcript';
import { MIN_DISPLAY_WIDTH } from '../../tools/wire';
import type { JsonRoute, RouteContext } from '../http/http';
import { HttpError } from '../http/http';
import { pictureInfoRoute } from '../pictures/pictures';
import { renderRoute } from '../render/route';
import { checkSvgRoute } from '../svg/svg';
import { KernelOpError, type KernelAnswer } from './answer';
import { renderFigurePng } from './figure';

/** Most cells a request may carry (a notebook's, as nbformat JSON). */
export const MAX_AGENT_CELLS = 10_000;

export const AgentRequest = z.object({
  call: AgentCall,
  /** The Jupyter root, absolute: workspace pictures resolve against it, never outside. */
  root: z.string().min(1).max(4096),
  hideHidden: z.boolean(),
  cells: z.array(z.record(z.string(), z.unknown())).max(MAX_AGENT_CELLS),
  /** The notebook's `metadata.figure_chat`, as stored (untrusted). */
  conversation: z.unknown()
});

/** The figure-server routes a tool handler may call, answered here in process. */
const ROUTES: Record<string, JsonRoute> = {
  'check-svg': checkSvgRoute,
  'picture-info': pictureInfoRoute,
  render: renderRoute
};

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** The base64 bytes of a `cell:<id>/<n>` image output of these cells, or an error saying why not. */
function cellPicture(cells: ReadonlyArray<NotebookCellJson>, address: string): string {
  const match = /^cell:([^/]+)\/(\d+)$/.exec(address);
  if (!match) {
    throw new Error(`${address} is not a cell picture address (cell:<cell-id>/<output-index>).`);
  }
  const [, cellId, index] = match;
  const cell = cells.find(candidate => candidate.id === cellId);
  if (!cell) {
    throw new Error(`No cell with id ${cellId} in this notebook.`);
  }
  const outputs: unknown[] = Array.isArray(cell.outputs) ? cell.outputs : [];
  const output = outputs[Number(index)];
  const data = isRecord(output) && isRecord(output.data) ? output.data : {};
  const mime = IMAGE_TYPES.find(
    type => typeof data[type] === 'string' || Array.isArray(data[type])
  );
  if (!mime) {
    throw new Error(`Cell ${cellId} has no image output at index ${index}.`);
  }
  const value = data[mime];
  return (Array.isArray(value) ? value.join('') : String(value)).replace(/\s+/g, '');
}

/**
 * The record a saved Vision output keeps for `address` (its picture's or its own `cell:`
 * address), as the chat reads it when no kernel holds the widget (`src/chat/tools/shared-vision`):
 * a closed notebook has no running widget, so only saved records exist.
 */
function savedVision(
  cells: ReadonlyArray<NotebookCellJson>,
  address: string
): SharedVisionRecord | null {
  const found: Array<{ own: boolean; bundle: VisionBundle }> = [];
  for (const cell of cells) {
    const outputs: unknown[] = Array.isArray(cell.outputs) ? cell.outputs : [];
    outputs.forEach((output, index) => {
      const data = isRecord(output) && isRecord(output.data) ? output.data : undefined;
      const parsed = data && FIGURE_MIME in data ? parseOutputBundle(data[FIGURE_MIME]) : null;
      if (!parsed?.ok || parsed.value.kind !== 'vision') {
        return;
      }
      const own = `cell:${String(cell.id)}/${index}` === address;
      if (own || parsed.value.picture.address === address) {
        found.push({ own, bundle: parsed.value });
      }
    });
  }
  // The output the address names wins; else the last one, as in the chat.
  const chosen = (found.find(candidate => candidate.own) ?? found[found.length - 1])?.bundle;
  if (!chosen) {
    return null;
  }
  const highest = Math.max(0, ...chosen.record.marks.map(mark => mark.id));
  const stored = chosen.record.lastId;
  const record = {
    image: chosen.record.image,
    marks: chosen.record.marks,
    lastId: typeof stored === 'number' && stored >= highest ? stored : highest
  };
  return {
    picture: chosen.picture,
    where: 'output',
    record: () => record,
    pictureData: () => Promise.resolve(undefined)
  };
}

/**
 * A `render` request as the agent's call needs it: the agent sees each view's copy for the model
 * (drawn full size), and nobody sees the PNG here (a closed notebook's chat shows nothing; the
 * page re-renders on replay), so the PNG is drawn at the smallest display width instead of twice
 * full size.
 */
function forAgent(request: unknown): unknown {
  return isRecord(request) && request.model === true
    ? { ...request, width: MIN_DISPLAY_WIDTH }
    : request;
}

/** A figure's size as `check-svg` measured it. */
const CheckedSize = z.object({ ok: z.literal(true), width: z.number(), height: z.number() });

/**
 * The host of one agent call: the figure server's routes in process, the notebook's cells; and
 * the size `check-svg` gave a figure it passed (the PNG is rendered at it, never before).
 */
function agentHost(
  body: z.infer<typeof AgentRequest>,
  messages: ReturnType<typeof loadTranscript>['entries']
): { host: ToolHost; checked(): z.infer<typeof CheckedSize> | undefined } {
  const cells: NotebookCellJson[] = body.cells;
  const readable = messages.filter(isReadable);
  let checked: z.infer<typeof CheckedSize> | undefined;
  const host: ToolHost = {
    kind: 'figure-chat-agent',
    cells: () => cells,
    pictureData: address => (address.startsWith('cell:') ? cellPicture(cells, address) : undefined),
    request: async <T>(route: string, request: unknown, signal: AbortSignal): Promise<T> => {
      const handler = ROUTES[route];
      if (!handler) {
        throw new HttpError(400, `the agent host has no ${route} route.`, 'bad-request');
      }
      const context: RouteContext = { root: body.root, hideHidden: body.hideHidden, signal };
      const result = await handler(route === 'render' ? forAgent(request) : request, context);
      if (!('json' in result)) {
        return result.bytes as T;
      }
      if (route === 'check-svg') {
        const size = CheckedSize.safeParse(result.json);
        checked = size.success ? size.data : undefined;
      }
      return result.json as T;
    },
    vision: {
      messages: () => readable,
      // A fresh owner per call: the conversation is read anew for each call.
      owner: {},
      shared: address => savedVision(cells, address)
    }
  };
  return { host, checked: () => checked };
}

function newIds(): AgentTurnIds {
  const id = (prefix: string): string => `${prefix}${randomUUID().replace(/-/g, '')}`;
  return {
    assistant: id('a'),
    call: id('c'),
    tool: id('t'),
    created: new Date().toISOString()
  };
}

/**
 * `agent { call, root, hideHidden, cells, conversation }`: run the call; answer its status, text
 * and the messages to append (none when it failed), with the images as the payload: each vision
 * view's copy for the model (JPEG), or `present_svg`'s rendered PNG.
 */
export async function agentOp(
  registry: ToolRegistry,
  body: z.infer<typeof AgentRequest>
): Promise<KernelAnswer> {
  const loaded = loadTranscript(body.conversation);
  if (loaded.problem) {
    throw new KernelOpError(
      'request',
      'unreadable-conversation',
      `the notebook's Figure Chat conversation cannot be added to: ${loaded.problem}. Open it in JupyterLab and start a new conversation.`
    );
  }
  const { call } = body;
  const agent = agentHost(body, loaded.entries);
  const output = await registry.call(call.name, call.arguments, {
    signal: new AbortController().signal,
    host: agent.host
  });
  const images: Array<{ mime: string; width: number; height: number; caption: string }> = [];
  const bytes: Buffer[] = [];
  if (output.status === 'completed') {
    const size = agent.checked();
    if (call.name === 'present_svg' && size) {
      const png = renderFigurePng(String(call.arguments.svg), size.width, size.height);
      images.push({ mime: 'image/png', width: png.width, height: png.height, caption: '' });
      bytes.push(png.bytes);
    }
    for (const view of output.images ?? []) {
      const model = view.model ?? { mime: 'image/png', data: view.png };
      images.push({
        mime: model.mime,
        width: view.shrunkFrom?.width ?? view.width,
        height: view.shrunkFrom?.height ?? view.height,
        caption: view.caption
      });
      bytes.push(Buffer.from(model.data, 'base64'));
    }
  }
  return {
    json: {
      status: output.status,
      text: output.text,
      messages: output.status === 'completed' ? agentTurn(call, output, newIds()) : [],
      images: images.map((image, index) => ({ ...image, length: bytes[index].length }))
    },
    payload: Buffer.concat(bytes)
  };
}
