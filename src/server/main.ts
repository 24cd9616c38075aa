/**
 * The `figure-chat` program: `serve`, `check-svg`, `parse-calls`, `export`, `render`.
 */
import { readFile } from 'node:fs/promises';

import { parseToolCallsFromText } from '../tools/toolcalls';
import { exportCommand } from './notebook/export-assets';
import { kernelCommand } from './kernel/cli';
import { renderNotebook } from './notebook/render-notebook';
import { parseServeArgs, serve } from './serve';
import { checkSvgCommand } from './svg/svg';
import { FIGURE_CHAT_VERSION } from './version';

const USAGE = `usage: figure-chat <command> …
  serve --socket PATH [--root DIR]       run the figure server (what Jupyter starts)
  check-svg FILE|- [--json]              check an SVG figure (exit 0 valid, 1 rejected)
  parse-calls FILE|-                     the tool calls in a raw model reply, as JSON
  export NOTEBOOK [--assets DIR]         the conversation as Markdown (pictures as files beside it)
  render NOTEBOOK --out DIR [--root DIR] every figure (SVG) and view (PNG) of a conversation
  kernel                                 framed requests on stdin (the Python Figure and Vision)
  --version                              print the version
`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readInput(path: string): Promise<string> {
  return path === '-' ? readStdin() : readFile(path, 'utf8');
}

function fail(message: string, code = 2): number {
  process.stderr.write(`figure-chat: ${message}\n`);
  return code;
}

/** Run one command; resolves to the exit code (or never, for `serve`). */
export async function run(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await serve(parseServeArgs(rest), line => process.stderr.write(`${line}\n`));
      return new Promise<number>(() => undefined);
    case 'check-svg':
      return checkSvgCommand(rest, {
        readFile: path => readFile(path, 'utf8'),
        stdin: readStdin,
        stdout: text => process.stdout.write(text),
        stderr: text => process.stderr.write(text)
      });
    case 'parse-calls': {
      if (rest.length !== 1) {
        return fail('parse-calls takes one FILE or -');
      }
      const parsed = parseToolCallsFromText(await readInput(rest[0]));
      process.stdout.write(`${JSON.stringify(parsed, null, 2)}\n`);
      return 0;
    }
    case 'export':
      return exportCommand(rest, {
        stdout: t => process.stdout.write(t),
        stderr: t => process.stderr.write(t)
      });
    case 'render': {
      const notebook = rest[0];
      const outIndex = rest.indexOf('--out');
      const rootIndex = rest.indexOf('--root');
      if (!notebook || notebook.startsWith('--') || outIndex < 0 || !rest[outIndex + 1]) {
        return fail('usage: figure-chat render NOTEBOOK --out DIR [--root DIR]');
      }
      const root = rootIndex >= 0 ? rest[rootIndex + 1] : process.cwd();
      const failures = await renderNotebook(notebook, rest[outIndex + 1], root);
      for (const failure of failures) {
        process.stderr.write(`figure-chat: could not render ${failure}\n`);
      }
      return failures.length ? 1 : 0;
    }
    case 'kernel':
      return kernelCommand({ input: process.stdin, write: bytes => process.stdout.write(bytes) });
    case '--version':
      process.stdout.write(`${FIGURE_CHAT_VERSION}\n`);
      return 0;
    case undefined:
    case '-h':
    case '--help':
      process.stdout.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      return fail(`unknown command ${command}\n${USAGE}`);
  }
}

if (require.main === module) {
  run(process.argv.slice(2)).then(
    code => process.exit(code),
    (error: unknown) => {
      process.stderr.write(
        `figure-chat: ${error instanceof Error ? error.message : String(error)}\n`
      );
      process.exit(1);
    }
  );
}
