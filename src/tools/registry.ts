/**
 * The one tool registry: each tool is data — name, description, zod input schema, handler.
 * Arguments are validated before the handler runs; a failing tool returns `Tool error: …` text the
 * model can read. Only protocol failures throw.
 */
import { z } from 'zod';

import type { ToolHost } from './host';
import type { PictureFingerprint } from './transcript';
import type { VisionRecord } from './vision';
import type { ModelImage } from './wire';

/** An image a tool shows to the user and, when it accepts images, to the model. */
export interface ToolImage {
  /** PNG bytes as base64. */
  readonly png: string;
  readonly width: number;
  readonly height: number;
  readonly caption: string;
  /** The same view encoded for the model (a fraction of the PNG's bytes), when it was asked for. */
  readonly model?: ModelImage;
  /**
   * The view's own size when `png` is the view drawn smaller for display (`width` and `height`
   * are then the PNG's): the viewer, an export or an insert asks for the full view.
   */
  readonly shrunkFrom?: { readonly width: number; readonly height: number };
}

/** What a tool call produced. */
export interface ToolOutput {
  readonly status: 'completed' | 'failed';
  /** The short text the model sees (and that is stored). */
  readonly text: string;
  /** Views rendered for this call; never stored, re-rendered on replay. */
  readonly images?: ReadonlyArray<ToolImage>;
  /** The picture a vision call worked on. */
  readonly picture?: PictureFingerprint;
  /** The shared record the vision call started from (see `ToolMessage.record`). */
  readonly record?: VisionRecord;
}

/** What a handler may use besides its arguments; supplied by the host (the chat). */
export interface ToolContext {
  readonly signal: AbortSignal;
  /** The notebook, pictures, figure server and vision state; null where a tool runs hostless. */
  readonly host: ToolHost | null;
}

/** A tool definition. `mutates` tools run one at a time, never interleaved. */
export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly input: Schema;
  readonly mutates: boolean;
  run(args: z.infer<Schema>, context: ToolContext): Promise<ToolOutput>;
}

/** A tool as the model is told about it (OpenAI `tools` entry). */
export interface ToolSpec {
  readonly type: 'function';
  readonly function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** A tool error result, with the text the model reads. */
export function toolError(message: string): ToolOutput {
  return { status: 'failed', text: `Tool error: ${message}` };
}

/** Describe zod issues in one line a model can act on. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map(issue => `${issue.path.length ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
}

/** Raised when a tool's name is already registered. */
export class DuplicateToolError extends Error {
  constructor(name: string) {
    super(`A tool named "${name}" is already registered`);
    this.name = 'DuplicateToolError';
  }
}

/** A registration: dispose it to remove the tool. */
export interface RegisteredTool {
  readonly isDisposed: boolean;
  dispose(): void;
}

/** The registry of tools the model may call. */
export class ToolRegistry {
  private readonly _tools = new Map<string, ToolDefinition>();

  /**
   * Add a tool; refuses a duplicate name. Disposing the result removes the tool again (a
   * third-party extension that is unloaded takes its tool with it). The result has the shape of
   * Lumino's `IDisposable`, which this layer may not import.
   */
  register<Schema extends z.ZodType>(tool: ToolDefinition<Schema>): RegisteredTool {
    if (this._tools.has(tool.name)) {
      throw new DuplicateToolError(tool.name);
    }
    // No cast: `run` is a method, so a tool for any schema widens to the erased definition. Sound
    // here because `call` hands `run` only what the tool's own `input` parsed.
    const stored: ToolDefinition = tool;
    this._tools.set(tool.name, stored);
    let disposed = false;
    return {
      get isDisposed() {
        return disposed;
      },
      dispose: () => {
        if (!disposed && this._tools.get(tool.name) === stored) {
          this._tools.delete(tool.name);
        }
        disposed = true;
      }
    };
  }

  get(name: string): ToolDefinition | undefined {
    return this._tools.get(name);
  }

  get names(): string[] {
    return [...this._tools.keys()];
  }

  /** The tools as JSON Schema, for the model request. */
  specs(): ToolSpec[] {
    return [...this._tools.values()].map(tool => {
      const parameters = z.toJSONSchema(tool.input, { io: 'input' }) as Record<string, unknown>;
      delete parameters.$schema;
      return {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters }
      };
    });
  }

  /** Validate and run one call; never throws for a tool's own failure. */
  async call(name: string, args: unknown, context: ToolContext): Promise<ToolOutput> {
    // After Stop nothing new starts, not even a mutating call queued behind a running one.
    context.signal.throwIfAborted();
    const tool = this._tools.get(name);
    if (!tool) {
      return toolError(`unknown tool "${name}"; available tools: ${this.names.join(', ')}`);
    }
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      return toolError(`invalid arguments for ${name}: ${describeIssues(parsed.error)}`);
    }
    try {
      return await tool.run(parsed.data, context);
    } catch (error) {
      if (context.signal.aborted) {
        throw error;
      }
      return toolError(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * Run a batch of calls: mutating calls one at a time in call order, the others concurrently.
   * Results keep call order. `onSettled` reports each result as soon as it is known.
   */
  async callBatch(
    calls: ReadonlyArray<{ id: string; name: string; arguments: unknown }>,
    context: ToolContext,
    onSettled: (index: number, output: ToolOutput) => void = () => undefined
  ): Promise<ToolOutput[]> {
    let exclusive: Promise<unknown> = Promise.resolve();
    const runs = calls.map((call, index) => {
      const start = (): Promise<ToolOutput> => this.call(call.name, call.arguments, context);
      let run: Promise<ToolOutput>;
      if (this._tools.get(call.name)?.mutates) {
        run = exclusive.then(start, start);
        exclusive = run.catch(() => undefined);
      } else {
        run = start();
      }
      return run.then(output => {
        onSettled(index, output);
        return output;
      });
    });
    return Promise.all(runs);
  }
}
