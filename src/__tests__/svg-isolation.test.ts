/**
 * The trust boundary reads no file and opens no connection (SPEC section 14). Hostile figures
 * point at a real temp file, a FIFO and a loopback listener; after checking them directly and
 * through a real figure-server socket, the listener has seen no connection, no `fs` call touched
 * the temp folder, and nothing opened the FIFO. The FIFO also catches native reads (resvg reads in
 * Rust, invisible to `fs` spies), which a control with bare resvg proves.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Server } from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Resvg } from '@resvg/resvg-js';

import { createFigureServer } from '../server/app';
import { checkSvg } from '../server/svg/svg';
import { resvgOptions } from '../server/svg/fonts';

/**
 * A FIFO whose writer numbers its opens: each open for reading receives the next number, so the
 * number we read at the end is 0 exactly when nothing else opened it (after one foreign open the
 * writer may go round several times while that reader closes, so only zero is exact). The writer
 * loops, so a reader that should not have been there never blocks the test.
 */
class FifoTrap {
  readonly path: string;
  private readonly writer: ChildProcess;

  constructor(directory: string, name: string) {
    this.path = join(directory, name);
    expect(spawnSync('mkfifo', [this.path]).status).toBe(0);
    // A separate process, so a synchronous native read on our main thread cannot deadlock it.
    this.writer = spawn(
      'sh',
      [
        '-c',
        // A reader that closes before the write must not kill the writer (SIGPIPE), or the next
        // reader would wait for a writer forever; the loop ends when the FIFO is gone.
        'trap "" PIPE; i=0; while [ -p "$1" ]; do printf "$i;" 2>/dev/null > "$1"; i=$((i+1)); done',
        'sh',
        this.path
      ],
      { stdio: 'ignore' }
    );
  }

  /** Stop the writer (by its pid). */
  dispose(): void {
    if (this.writer.exitCode === null && this.writer.signalCode === null) {
      this.writer.kill();
    }
  }

  /** Open it ourselves: 0 when nobody opened it before us, more otherwise. */
  async openedBefore(): Promise<number> {
    const fd = fs.openSync(this.path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      const buffer = Buffer.alloc(64);
      for (;;) {
        try {
          const read = fs.readSync(fd, buffer, 0, buffer.length, null);
          if (read > 0) {
            return Number(buffer.subarray(0, read).toString().split(';')[0]);
          }
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
            throw error;
          }
        }
        // The writer has not written to us yet: wait for that state, not for a time.
        await new Promise(resolve => setImmediate(resolve));
      }
    } finally {
      fs.closeSync(fd);
      this.dispose();
    }
  }
}

/** A loopback listener that counts connections. */
async function listener(): Promise<{
  server: net.Server;
  port: number;
  connections: () => number;
}> {
  let count = 0;
  const server = net.createServer(socket => {
    count++;
    socket.destroy();
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => count };
}

/** Connect once and wait until the listener counted it; earlier connections were counted first. */
async function settle(port: number, connections: () => number): Promise<number> {
  const before = connections();
  await new Promise<void>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end());
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
  while (connections() === before) {
    await new Promise(resolve => setImmediate(resolve));
  }
  return connections() - 1;
}

function hostileFigures(secret: string, fifo: string, port: number): string[] {
  const remote = `http://127.0.0.1:${port}`;
  const wrap = (body: string): string =>
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="50" height="50">${body}<rect width="9" height="9"/></svg>`;
  const targets = [secret, `file://${secret}`, fifo, `file://${fifo}`, `${remote}/a.svg`];
  const figures: string[] = [];
  for (const target of targets) {
    figures.push(
      wrap(`<use href="${target}#a"/>`),
      wrap(`<use xlink:href="${target}"/>`),
      wrap(`<image href="${target}" width="9" height="9"/>`),
      wrap(`<filter id="f"><feImage href="${target}"/></filter><rect filter="url(#f)"/>`),
      wrap(`<rect width="9" height="9" fill="url(${target}#g)"/>`),
      wrap(`<rect width="9" height="9" style="fill: url('${target}#g')"/>`),
      wrap(`<style>@import url("${target}");</style>`),
      wrap(
        `<style>@font-face { font-family: x; src: url(${target}) }</style><text font-family="x">a</text>`
      ),
      wrap(
        `<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${target}" parse="text"/>`
      ),
      `<!DOCTYPE svg [<!ENTITY x SYSTEM "${target}">]>${wrap('<text>&x;</text>')}`,
      `<?xml-stylesheet href="${target}"?>${wrap('')}`
    );
  }
  return figures;
}

describe('no file read and no connection', () => {
  let directory: string;
  let secret: string;
  let network: Awaited<ReturnType<typeof listener>>;
  const traps: FifoTrap[] = [];
  const trap = (name: string): FifoTrap => {
    const made = new FifoTrap(directory, name);
    traps.push(made);
    return made;
  };

  beforeAll(async () => {
    directory = fs.mkdtempSync(join(tmpdir(), 'figure-chat-svg-'));
    secret = join(directory, 'secret.svg');
    fs.writeFileSync(
      secret,
      '<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><rect id="a" width="9" height="9"/><text>figure-chat-secret-7f3a</text></svg>'
    );
    network = await listener();
    resvgOptions(); // resolve the fonts before watching fs: their lookup is not the figure's
  });

  afterAll(async () => {
    traps.forEach(made => made.dispose());
    await new Promise(resolve => network.server.close(resolve));
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('the FIFO trap detects a native read (control: bare resvg follows <image href>)', async () => {
    const control = trap('control.svg');
    new Resvg(
      `<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><image href="${control.path}" width="9" height="9"/></svg>`,
      resvgOptions()
    );
    expect(await control.openedBefore()).toBeGreaterThan(0);
  });

  it('the listener counts connections (control)', async () => {
    const before = network.connections();
    await settle(network.port, network.connections);
    await settle(network.port, network.connections);
    expect(network.connections() - before).toBe(2);
  });

  it('hostile figures checked directly and over a figure-server socket touch nothing', async () => {
    const fifo = trap('trap.svg');
    const figures = hostileFigures(secret, fifo.path, network.port);
    expect(figures.length).toBeGreaterThanOrEqual(50);

    const server: Server = createFigureServer({ root: directory, hideHidden: true });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/figure-chat/check-svg`;

    const touched: string[] = [];
    // Spies call through; they only record which paths JavaScript asked for.
    const spies: jest.SpyInstance[] = [
      jest.spyOn(fs, 'readFileSync'),
      jest.spyOn(fs, 'readFile'),
      jest.spyOn(fs, 'openSync'),
      jest.spyOn(fs, 'open'),
      jest.spyOn(fs, 'createReadStream'),
      jest.spyOn(fs, 'existsSync'),
      jest.spyOn(fs, 'statSync'),
      jest.spyOn(fs.promises, 'readFile'),
      jest.spyOn(fs.promises, 'open')
    ];
    const connectionsBefore = network.connections();
    try {
      for (const svg of figures) {
        const direct = checkSvg(svg);
        expect(direct.ok).toBe(false);
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ svg })
        });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({
          ok: false,
          error: direct.ok ? null : direct.error
        });
      }
      for (const spy of spies) {
        for (const call of spy.mock.calls as unknown[][]) {
          const first = call[0];
          if (String(first).includes(directory)) {
            touched.push(String(first));
          }
        }
      }
    } finally {
      spies.forEach(spy => spy.mockRestore());
      await new Promise(resolve => server.close(resolve));
    }
    expect(touched).toEqual([]);
    expect(await settle(network.port, network.connections)).toBe(connectionsBefore);
    expect(await fifo.openedBefore()).toBe(0);
  });

  it('the fs spies would have seen a read of the secret (control)', () => {
    const spy = jest.spyOn(fs, 'readFileSync');
    try {
      fs.readFileSync(secret);
      expect(spy).toHaveBeenCalledWith(secret);
    } finally {
      spy.mockRestore();
    }
  });
});
