/**
 * `notebook_read`: the notebook's cells (index, id, type, source, output summaries, image outputs
 * with their `cell:<id>/<n>` picture addresses, Figure Chat figures and marked pictures with their
 * marks), so the model can find pictures and context.
 */
import { z } from 'zod';

import { FIGURE_MIME, parseOutputBundle, type BundleSet } from '../../tools/bundle';
import type { NotebookCellJson } from '../../tools/host';
import type { ToolDefinition } from '../../tools/registry';
import { describeClasses, describeMark, validateRecord } from '../../tools/vision';
import { toolHost } from './host';

/** The entry a live Vision widget output carries (src/kernel-bridge); here only its presence. */
const LIVE_MIME = 'application/vnd.figure-chat.widget+json';

/** Most marks listed per marked picture; the rest are counted. */
export const MAX_LISTED_MARKS = 50;

/** Most pictures of a set listed by address; the rest are counted. */
export const MAX_LISTED_SET_PICTURES = 500;

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

/**
 * A Figure Chat output (from the chat or from kernel code): a figure's alt text, or a marked
 * picture's address, size and marks. The bundle is untrusted: it is parsed and its record checked
 * with the tools' own validation; a bad one is reported, not repaired.
 */
function describeFigureChatOutput(
  cellId: string,
  index: number,
  data: Record<string, unknown>
): string {
  const head = `  [${index}] Figure Chat`;
  const parsed = parseOutputBundle(data[FIGURE_MIME]);
  if (!parsed.ok) {
    return `${head} output (${parsed.error})`;
  }
  const bundle = parsed.value;
  if (bundle.kind === 'figure') {
    return `${head} figure: ${clip(bundle.alt)}`;
  }
  const { picture } = bundle;
  const live = LIVE_MIME in data ? ', a live Vision widget' : '';
  const where = `${head} marked picture ${picture.address} (${picture.width}×${picture.height}${live}), view image cell:${cellId}/${index}`;
  const lastId = Math.max(0, ...bundle.record.marks.map(mark => mark.id));
  try {
    const { classes } = bundle.record;
    const record = validateRecord(
      {
        image: bundle.record.image,
        ...(classes ? { classes } : {}),
        marks: bundle.record.marks,
        lastId
      },
      picture
    );
    // The class list, so the model labels with the person's classes (`label` in vision_mark).
    const named = describeClasses(record);
    const lines = record.marks
      .slice(0, MAX_LISTED_MARKS)
      .map(mark => `      ${describeMark(mark)}`);
    const more = record.marks.length - lines.length;
    return [
      `${where}${named ? `; ${named}` : ''}: ${record.marks.length} mark${record.marks.length === 1 ? '' : 's'}${lines.length ? ':' : '.'}`,
      ...lines,
      ...(more > 0 ? [`      … ${more} more`] : []),
      ...(bundle.set ? describeSet(bundle.set) : [])
    ].join('\n');
  } catch (error) {
    return `${where}: its marks are unreadable (${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * A `VisionSet`'s pictures by address, so the model can mark any of them with the vision tools
 * (their `image`); their marks are read with `vision_list`. Untrusted like the rest of the bundle:
 * only its checked fields are quoted.
 */
function describeSet(set: BundleSet): string[] {
  const listed = set.pictures.slice(0, MAX_LISTED_SET_PICTURES).map(picture => {
    const marks = Array.isArray(picture.record?.marks) ? picture.record.marks.length : 0;
    const ready = picture.sha256 ? '' : ', not read by the kernel yet';
    return `      ${picture.address} (${picture.status}${marks ? `, ${marks} marks` : ''}${ready})`;
  });
  const more = set.pictures.length - listed.length;
  return [
    `    a VisionSet of ${set.count} pictures, ${set.labelled} submitted, showing number ${set.index + 1}; each picture's address works as image for the vision tools:`,
    ...listed,
    ...(more > 0 ? [`      … ${more} more`] : [])
  ];
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
    if (FIGURE_MIME in data) {
      return describeFigureChatOutput(cellId, index, data);
    }
    const image = IMAGE_TYPES.find(mime => mime in data);
    const text = textOf(data['text/plain']);
    if (image) {
      return `  [${index}] image ${image} — picture address cell:${cellId}/${index}${text ? ` (${clip(text)})` : ''}`;
    }
    return `  [${index}] ${type} ${Object.keys(data).join(', ')}${text ? `: ${clip(text)}` : ''}`;
  });
}

/** The notebook as text for the model. */
export function describeNotebook(cells: ReadonlyArray<NotebookCellJson>, only?: number[]): string {
  const lines: string[] = [];
  const count = cells.length;
  for (let index = 0; index < count; index++) {
    if (only && !only.includes(index)) {
      continue;
    }
    const cell = cells[index];
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
    "Read the notebook beside this chat: each cell's index, id, type and source, summaries of its outputs, image outputs with their picture addresses (cell:<id>/<n>) for the vision tools, and Figure Chat figures and marked pictures with their marks. Read-only.",
  input: notebookReadInput,
  mutates: false,
  async run(args, context) {
    const cells = toolHost(context).cells();
    if (!cells) {
      return { status: 'failed', text: 'Tool error: the notebook is closed.' };
    }
    const count = cells.length;
    const missing = (args.cells ?? []).filter(index => index >= count);
    if (missing.length) {
      return {
        status: 'failed',
        text: `Tool error: no cell ${missing.join(', ')}; the notebook has ${count} cells (0–${count - 1}).`
      };
    }
    return {
      status: 'completed',
      text: `The notebook has ${count} cells.\n${describeNotebook(cells, args.cells)}`
    };
  }
};
