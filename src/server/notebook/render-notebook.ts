/**
 * `figure-chat render NOTEBOOK --out DIR [--root DIR]`: every figure of a saved conversation as an
 * SVG file and every vision view as a PNG file, rebuilt from the transcript alone: figures are the
 * `present_svg` arguments of completed calls (checked again, written byte for byte), views are
 * re-planned on the record the call saw, with the same pure functions the live path uses.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import {
  isReadable,
  loadTranscript,
  METADATA_KEY,
  type StoredMessage
} from '../../tools/transcript';
import {
  isVisionTool,
  planVisionCall,
  recordFor,
  walkVisionCalls,
  type PendingCall,
  type VisionFoldState
} from '../../tools/vision';
import { notebookPictures, type NotebookJson } from './notebook-pictures';
import { renderView } from '../render/render';
import { checkSvg } from '../svg/svg';

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function writeFigures(
  messages: readonly StoredMessage[],
  outDir: string,
  failures: string[]
): Promise<void> {
  const completed = new Set(
    messages
      .filter(m => m.role === 'tool' && m.status === 'completed')
      .map(m => (m.role === 'tool' ? m.tool_call_id : ''))
  );
  let count = 0;
  for (const message of messages) {
    if (message.role !== 'assistant') {
      continue;
    }
    for (const call of message.tool_calls ?? []) {
      if (call.name !== 'present_svg' || !completed.has(call.id)) {
        continue;
      }
      const svg = call.arguments.svg;
      const check = typeof svg === 'string' ? await checkSvg(svg) : undefined;
      if (typeof svg !== 'string' || !check?.ok) {
        failures.push(
          `figure of call ${call.id}: ${check && !check.ok ? check.error.message : 'no svg argument'}`
        );
        continue;
      }
      count++;
      await writeFile(
        join(outDir, `figure-${String(count).padStart(3, '0')}-${safeName(call.id)}.svg`),
        svg,
        'utf8'
      );
    }
  }
}

interface VisionCall {
  readonly call: PendingCall;
  readonly result: StoredMessage & { role: 'tool' };
  readonly before: VisionFoldState;
}

async function writeViews(
  notebook: NotebookJson,
  messages: readonly StoredMessage[],
  outDir: string,
  root: string,
  failures: string[]
): Promise<void> {
  const calls: VisionCall[] = [];
  walkVisionCalls(messages, (call, result, before) => calls.push({ call, result, before }));
  const load = notebookPictures(notebook, root);
  let count = 0;
  for (const { call, result, before } of calls) {
    const fingerprint = result.picture;
    const name = `${call.name} call ${result.tool_call_id}`;
    if (!isVisionTool(call.name) || !fingerprint) {
      failures.push(`views of ${name}: its result has no picture fingerprint`);
      continue;
    }
    try {
      const plan = planVisionCall(
        call.name,
        call.args,
        recordFor(before, fingerprint.address),
        fingerprint
      );
      if (plan.views.length === 0) {
        continue;
      }
      const picture = await load(fingerprint.address, fingerprint.sha256);
      for (const [index, view] of plan.views.entries()) {
        const rendered = await renderView(picture, view, plan.record);
        count++;
        const file = `view-${String(count).padStart(3, '0')}-${safeName(result.tool_call_id)}-${index + 1}.png`;
        await writeFile(join(outDir, file), rendered.bytes);
      }
    } catch (error) {
      failures.push(`views of ${name} (${fingerprint.address}): ${messageOf(error)}`);
    }
  }
}

/**
 * Render a saved conversation into `outDir`. Workspace pictures resolve against `root` (hidden
 * files refused); `cell:` pictures come from the notebook's own image outputs. Resolves to what
 * could not be rendered, one line each (empty when everything was).
 */
export async function renderNotebook(
  notebookPath: string,
  outDir: string,
  root: string
): Promise<string[]> {
  let notebook: NotebookJson;
  try {
    notebook = JSON.parse(await readFile(notebookPath, 'utf8')) as NotebookJson;
  } catch (error) {
    return [`${notebookPath}: ${messageOf(error)}`];
  }
  const transcript = loadTranscript(notebook.metadata?.[METADATA_KEY]);
  if (transcript.problem) {
    return [`${notebookPath}: ${transcript.problem}`];
  }
  const failures: string[] = [];
  const messages: StoredMessage[] = [];
  for (const entry of transcript.entries) {
    if (isReadable(entry)) {
      messages.push(entry);
    } else {
      failures.push(`unreadable entry ${entry.index}: ${entry.reason}`);
    }
  }
  await mkdir(outDir, { recursive: true });
  await writeFigures(messages, outDir, failures);
  await writeViews(notebook, messages, outDir, root, failures);
  return failures;
}
