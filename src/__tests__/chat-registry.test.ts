/**
 * The tool registry (SPEC section 6): validation before the handler, `Tool error:` results,
 * duplicate names refused, batches (mutating calls exclusive and in order, the rest concurrent,
 * results in call order) and the JSON Schema the model is told.
 */
import { z } from 'zod';

import {
  DuplicateToolError,
  ToolRegistry,
  type ToolContext,
  type ToolDefinition,
  type ToolOutput
} from '../tools/registry';
import { deferred, type Deferred } from './helpers/async';

function context(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { signal, host: null };
}

const echoInput = z.object({
  text: z.string().min(1),
  times: z.number().int().positive().optional()
});

function echoTool(seen: unknown[] = []): ToolDefinition<typeof echoInput> {
  return {
    name: 'echo',
    description: 'Repeat the text',
    input: echoInput,
    mutates: false,
    run: async args => {
      seen.push(args);
      return { status: 'completed', text: args.text.repeat(args.times ?? 1) };
    }
  };
}

/** A tool whose every call waits until the test releases it, logging when it starts and ends. */
class GatedTool implements ToolDefinition<z.ZodObject<{ key: z.ZodString }>> {
  readonly input = z.object({ key: z.string() });
  readonly description = 'Waits for the test';
  readonly gates = new Map<string, Deferred<ToolOutput>>();
  readonly started = new Map<string, Deferred<void>>();

  constructor(
    readonly name: string,
    readonly mutates: boolean,
    private readonly _log: string[]
  ) {}

  gate(key: string): Deferred<ToolOutput> {
    let gate = this.gates.get(key);
    if (!gate) {
      gate = deferred<ToolOutput>();
      this.gates.set(key, gate);
    }
    return gate;
  }

  start(key: string): Deferred<void> {
    let start = this.started.get(key);
    if (!start) {
      start = deferred();
      this.started.set(key, start);
    }
    return start;
  }

  run = async (args: { key: string }): Promise<ToolOutput> => {
    this._log.push(`${args.key}:start`);
    this.start(args.key).resolve();
    try {
      return await this.gate(args.key).promise;
    } finally {
      this._log.push(`${args.key}:end`);
    }
  };
}

describe('ToolRegistry.call', () => {
  it('validates arguments before the handler runs and explains what is wrong', async () => {
    const seen: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register(echoTool(seen));
    const bad = await registry.call('echo', { text: '', times: 1.5 }, context());
    expect(bad.status).toBe('failed');
    expect(bad.text).toMatch(/^Tool error: invalid arguments for echo: /);
    expect(bad.text).toContain('text:');
    expect(bad.text).toContain('times:');
    expect(await registry.call('echo', 'not an object', context())).toMatchObject({
      status: 'failed',
      text: expect.stringMatching(/^Tool error: invalid arguments for echo: arguments: /)
    });
    expect(seen).toEqual([]);
    expect(await registry.call('echo', { text: 'ab', times: 2 }, context())).toEqual({
      status: 'completed',
      text: 'abab'
    });
    expect(seen).toEqual([{ text: 'ab', times: 2 }]);
  });

  it('answers an unknown tool with the names it has', async () => {
    const registry = new ToolRegistry();
    registry.register(echoTool());
    expect(await registry.call('draw', {}, context())).toEqual({
      status: 'failed',
      text: 'Tool error: unknown tool "draw"; available tools: echo'
    });
  });

  it('turns a throwing handler into a Tool error result', async () => {
    const registry = new ToolRegistry();
    registry.register({
      name: 'broken',
      description: 'Always fails',
      input: z.object({}),
      mutates: false,
      run: () => Promise.reject(new Error('the picture is gone'))
    });
    expect(await registry.call('broken', {}, context())).toEqual({
      status: 'failed',
      text: 'Tool error: the picture is gone'
    });
  });

  it('lets an abort through instead of reporting it as a tool failure', async () => {
    const abort = new AbortController();
    const registry = new ToolRegistry();
    registry.register({
      name: 'slow',
      description: 'Stops when asked',
      input: z.object({}),
      mutates: false,
      run: (_args, ctx) =>
        new Promise<ToolOutput>((_resolve, reject) =>
          ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))
        )
    });
    const call = registry.call('slow', {}, context(abort.signal));
    abort.abort();
    await expect(call).rejects.toThrow('aborted');
  });

  it('does not start a handler once the turn was stopped', async () => {
    const abort = new AbortController();
    abort.abort();
    const seen: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register(echoTool(seen));
    await expect(registry.call('echo', { text: 'x' }, context(abort.signal))).rejects.toBeDefined();
    expect(seen).toEqual([]);
  });
});

describe('ToolRegistry.register', () => {
  it('refuses a duplicate name and keeps the first tool', async () => {
    const registry = new ToolRegistry();
    registry.register(echoTool());
    const other: ToolDefinition = {
      name: 'echo',
      description: 'An impostor',
      input: z.object({}),
      mutates: true,
      run: async () => ({ status: 'completed', text: 'impostor' })
    };
    expect(() => registry.register(other)).toThrow(DuplicateToolError);
    expect(() => registry.register(other)).toThrow('A tool named "echo" is already registered');
    expect(registry.names).toEqual(['echo']);
    expect(await registry.call('echo', { text: 'a' }, context())).toEqual({
      status: 'completed',
      text: 'a'
    });
  });
});

describe('ToolRegistry.specs', () => {
  it('describes each tool as an OpenAI function with a JSON Schema of its input', () => {
    const registry = new ToolRegistry();
    registry.register(echoTool());
    registry.register({
      name: 'pick',
      description: 'Pick colours',
      input: z.object({ colours: z.array(z.enum(['red', 'blue'])).optional() }),
      mutates: true,
      run: async () => ({ status: 'completed', text: '' })
    });
    const specs = registry.specs();
    expect(specs.map(spec => spec.function.name)).toEqual(['echo', 'pick']);
    const echo = specs[0];
    expect(echo.type).toBe('function');
    expect(echo.function.description).toBe('Repeat the text');
    expect(echo.function.parameters).not.toHaveProperty('$schema');
    expect(echo.function.parameters).toMatchObject({
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1 },
        times: { type: 'integer', exclusiveMinimum: 0 }
      },
      required: ['text']
    });
    expect(specs[1].function.parameters).toMatchObject({
      type: 'object',
      properties: { colours: { type: 'array', items: { enum: ['red', 'blue'] } } }
    });
    expect(specs[1].function.parameters.required ?? []).toEqual([]);
    // What the model is sent must survive JSON.
    expect(JSON.parse(JSON.stringify(specs))).toEqual(specs);
  });
});

describe('ToolRegistry.callBatch', () => {
  function setup(): { registry: ToolRegistry; log: string[]; mark: GatedTool; look: GatedTool } {
    const log: string[] = [];
    const mark = new GatedTool('mark', true, log);
    const look = new GatedTool('look', false, log);
    const registry = new ToolRegistry();
    registry.register(mark);
    registry.register(look);
    return { registry, log, mark, look };
  }

  const done = (text: string): ToolOutput => ({ status: 'completed', text });

  it('runs mutating calls one at a time in call order, the rest at once, results in call order', async () => {
    const { registry, log, mark, look } = setup();
    const settled: number[] = [];
    const calls = [
      { id: 'c1', name: 'mark', arguments: { key: 'm1' } },
      { id: 'c2', name: 'look', arguments: { key: 'r1' } },
      { id: 'c3', name: 'mark', arguments: { key: 'm2' } },
      { id: 'c4', name: 'look', arguments: { key: 'r2' } },
      { id: 'c5', name: 'mark', arguments: { key: 'm3' } }
    ];
    const batch = registry.callBatch(calls, context(), index => settled.push(index));

    // Both read-only calls and the first mutating call run together...
    await Promise.all([
      look.start('r1').promise,
      look.start('r2').promise,
      mark.start('m1').promise
    ]);
    // ...while the later mutating calls wait for it.
    expect(log).not.toContain('m2:start');
    expect(log).not.toContain('m3:start');

    // Read-only calls settle in any order; results still come back in call order.
    look.gate('r2').resolve(done('r2'));
    look.gate('r1').resolve(done('r1'));
    mark.gate('m1').resolve(done('m1'));
    await mark.start('m2').promise;
    expect(log).not.toContain('m3:start');
    mark.gate('m2').resolve({ status: 'failed', text: 'Tool error: m2' });
    await mark.start('m3').promise;
    mark.gate('m3').resolve(done('m3'));

    const results = await batch;
    expect(results.map(result => result.text)).toEqual(['m1', 'r1', 'Tool error: m2', 'r2', 'm3']);
    const mutating = log.filter(line => line.startsWith('m'));
    expect(mutating).toEqual(['m1:start', 'm1:end', 'm2:start', 'm2:end', 'm3:start', 'm3:end']);
    // `onSettled` reports as results arrive, not in call order.
    expect(settled.indexOf(3)).toBeLessThan(settled.indexOf(1));
    expect([...settled].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('starts the next mutating call after one whose handler threw', async () => {
    const { registry, log, mark } = setup();
    const batch = registry.callBatch(
      [
        { id: 'c1', name: 'mark', arguments: { key: 'm1' } },
        { id: 'c2', name: 'mark', arguments: { key: 'm2' } }
      ],
      context()
    );
    await mark.start('m1').promise;
    mark.gate('m1').reject(new Error('mark 1 broke'));
    await mark.start('m2').promise;
    expect(log).toEqual(['m1:start', 'm1:end', 'm2:start']);
    mark.gate('m2').resolve(done('m2'));
    expect(await batch).toEqual([
      { status: 'failed', text: 'Tool error: mark 1 broke' },
      done('m2')
    ]);
  });

  it('validates each call of a batch on its own', async () => {
    const seen: unknown[] = [];
    const registry = new ToolRegistry();
    registry.register(echoTool(seen));
    const results = await registry.callBatch(
      [
        { id: 'c1', name: 'echo', arguments: { text: 'a' } },
        { id: 'c2', name: 'echo', arguments: {} },
        { id: 'c3', name: 'nope', arguments: {} }
      ],
      context()
    );
    expect(results.map(result => result.status)).toEqual(['completed', 'failed', 'failed']);
    expect(results[1].text).toMatch(/^Tool error: invalid arguments for echo: text: /);
    expect(seen).toEqual([{ text: 'a' }]);
  });
});
