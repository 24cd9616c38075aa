/**
 * `figure-chat kernel`: the Python package's figure program. It reads frames (./kernel-frames) on
 * stdin, one request each, and answers each with one frame on stdout, in order. It serves one
 * kernel for its lifetime and exits when stdin closes (the kernel went away).
 */
import { encodeFrame, FrameReader } from './frames';
import { KernelOpError, runKernelOp } from './ops';

/** Where the program's bytes go; a parameter so tests can run it in memory. */
export interface KernelIo {
  readonly input: AsyncIterable<Buffer>;
  write(bytes: Buffer): void;
}

async function answer(header: unknown, payload: Buffer): Promise<Buffer> {
  const id = (header as { id?: unknown } | null)?.id ?? null;
  try {
    const result = await runKernelOp(header, payload);
    return encodeFrame({ id, ok: true, ...result.json }, result.payload);
  } catch (error) {
    if (error instanceof KernelOpError) {
      return encodeFrame({
        id,
        ok: false,
        error: { type: error.type, code: error.code, message: error.message }
      });
    }
    // A bug or a broken installation: say so, and keep serving the next request.
    const message = error instanceof Error ? error.message : String(error);
    return encodeFrame({ id, ok: false, error: { type: 'internal', code: 'internal', message } });
  }
}

/**
 * Serve requests until the input ends. Requests are answered one at a time, in order: the Python
 * side waits for each answer, and a single queue keeps memory bounded for 20-megapixel pictures.
 */
export async function kernelCommand(io: KernelIo): Promise<number> {
  const reader = new FrameReader();
  for await (const chunk of io.input) {
    for (const frame of reader.push(chunk)) {
      io.write(await answer(frame.header, frame.payload));
    }
  }
  return 0;
}
