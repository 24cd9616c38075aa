/**
 * `notebook_read`: the notebook's cells (index, id, type, source, output summaries, image outputs
 * with their `cell:<id>/<n>` picture addresses), so the model can find pictures and context.
 */
import type { INotebookModel } from '@jupyterlab/notebook';
import { z } from 'zod';

import type { ToolDefinition } from '../../tools/registry';
import { chatHost } from './host';

/** Longest source or text output quoted per cell. */
export const MAX_CELL_CHARS = 4000;

/** Most cell indexes one call names (every array a model sends has a named maximum). */
export const MAX_READ_CELLS = 1000;

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

export const notebookReadInput = z
  .object({
    cells: z
      .array(z.number().int().min(0))
      .max(MAX_READ_CELLS)
      .optional()
      .describe('Indexes of the cells to read; omit to read every cell.')
  })
  .strict();

function clip(text: string): string {
  return text.length > MAX_CELL_CHARS
    ? `${text.slice(0, MAX_CELL_CHARS)}… [${text.length - MAX_CELL_CHARS} more characters]`
    : text;
}

function textOf(value: unknown): string {
  return Array.isArray(value) ? value.join('') : typeof value === 'string' ? value : '';
}

/** Summaries of one code cell's outputs. */
function summarizeOutputs(
  cellId: string,
  outputs: ReadonlyArray<Record<string, unknown>>
): string[] {
  return outputs.map((output, index) => {
    const type = String(output.output_type ?? 'output');
    if (type === 'stream') {
      return `  [${index}] stream ${String(output.name ?? '')}: ${clip(textOf(output.text))}`;
    }
    if (type === 'error') {
      return `  [${index}] error ${String(output.ename ?? '')}: ${String(output.evalue ?? '')}`;
    }
    const data = (output.data ?? {}) as Record<string, unknown>;
    const image = IMAGE_TYPES.find(mime => mime in data);
    const text = textOf(data['text/plain']);
    if (image) {
      return `  [${index}] image ${image} — picture address cell:${cellId}/${index}${text ? ` (${clip(text)})` : ''}`;
    }
    return `  [${index}] ${type} ${Object.keys(data).join(', ')}${text ? `: ${clip(text)}` : ''}`;
  });
}

/** The notebook as text for the model. */
export function describeNotebook(model: INotebookModel, only?: number[]): string {
  const lines: string[] = [];
  const count = model.cells.length;
  for (let index = 0; index < count; index++) {
    if (only && !only.includes(index)) {
      continue;
    }
    const cell = model.cells.get(index).toJSON() as unknown as Record<string, unknown>;
    const id = String(cell.id ?? '');
    lines.push(`Cell ${index} (id ${id}, ${String(cell.cell_type)}):`);
    lines.push(clip(textOf(cell.source)));
    if (Array.isArray(cell.outputs) && cell.outputs.length) {
      lines.push('Outputs:');
      lines.push(...summarizeOutputs(id, cell.outputs as Array<Record<string, unknown>>));
    }
  }
  return lines.length ? lines.join('\n') : 'The notebook has no cells.';
}

/** The `notebook_read` tool. */
export const notebookReadTool: ToolDefinition<typeof notebookReadInput> = {
  name: 'notebook_read',
  description:
    "Read the notebook beside this chat: each cell's index, id, type and source, summaries of its outputs, and image outputs with their picture addresses (cell:<id>/<n>) for the vision tools. Read-only.",
  input: notebookReadInput,
  mutates: false,
  async run(args, context) {
    const model = chatHost(context).notebook();
    if (!model) {
      return { status: 'failed', text: 'Tool error: the notebook is closed.' };
    }
    const count = model.cells.length;
    const missing = (args.cells ?? []).filter(index => index >= count);
    if (missing.length) {
      return {
        status: 'failed',
        text: `Tool error: no cell ${missing.join(', ')}; the notebook has ${count} cells (0–${count - 1}).`
      };
    }
    return {
      status: 'completed',
      text: `The notebook has ${count} cells.\n${describeNotebook(model, args.cells)}`
    };
  }
};
