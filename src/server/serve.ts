/**
 * `figure-chat serve`: start the figure server on a Unix socket (what Jupyter uses) or on a
 * loopback port (tests only). It never exits 0 on its own: the proxy does not restart a clean exit.
 */
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { resolve } from 'node:path';

import { createFigureServer } from './app';
import { warmRenderer } from './warm-up';

/** Parsed `serve` options. */
export interface ServeOptions {
  socket?: string;
  port?: number;
  root: string;
  hideHidden: boolean;
}

/** Parse `serve` arguments: `--socket PATH | --port N`, `--root DIR`, `--hide-hidden` / `--show-hidden`. */
export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeOptions {
  const options: ServeOptions = {
    root: resolve(env.FIGURE_CHAT_ROOT ?? process.cwd()),
    hideHidden: env.FIGURE_CHAT_SHOW_HIDDEN !== '1'
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined) {
        throw new Error(`${arg} needs a value`);
      }
      return next;
    };
    switch (arg) {
      case '--socket':
        options.socket = value();
        break;
      case '--port':
        options.port = Number(value());
        break;
      case '--root':
        options.root = resolve(value());
        break;
      case '--hide-hidden':
        options.hideHidden = true;
        break;
      case '--show-hidden':
        options.hideHidden = false;
        break;
      default:
        throw new Error(`unknown option ${arg}`);
    }
  }
  if (!options.socket && options.port === undefined) {
    throw new Error('serve needs --socket PATH (or --port N on loopback, for tests)');
  }
  return options;
}

/** Start serving; resolves once listening. */
export async function serve(options: ServeOptions, log: (line: string) => void): Promise<void> {
  const server = createFigureServer({ root: options.root, hideHidden: options.hideHidden });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    if (options.socket) {
      if (existsSync(options.socket)) {
        unlinkSync(options.socket);
      }
      server.listen(options.socket, () => {
        // Only this user may connect; the socket's folder is private too.
        chmodSync(options.socket as string, 0o600);
        done();
      });
    } else {
      server.listen(options.port, '127.0.0.1', () => done());
    }
  });
  const address = server.address();
  log(
    `figure server listening on ${typeof address === 'string' ? address : `127.0.0.1:${address?.port}`}`
  );
  void warmRenderer().then(ms => ms !== undefined && log(`renderer warm in ${Math.round(ms)} ms`));
  const stop = (): void => {
    server.close();
    // Asked to stop: exit non-zero so a supervisor never mistakes it for finishing its work.
    process.exit(143);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
