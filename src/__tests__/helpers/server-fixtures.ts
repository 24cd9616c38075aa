/**
 * Recorded model-server answers (`fixtures/servers/<server>-<version>.<case>.http`): the status
 * line, the content type and the body, byte for byte as the server sends them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** One recorded answer. */
export interface ServerFixture {
  readonly name: string;
  readonly status: number;
  readonly contentType: string;
  /** The body exactly as sent (SSE events with their own line ends, or an error's JSON). */
  readonly body: string;
}

const FIXTURES = join(__dirname, '..', 'fixtures', 'servers');

/** Load one fixture by file name. */
export function loadServerFixture(name: string): ServerFixture {
  const raw = readFileSync(join(FIXTURES, name), 'utf8');
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(head[0])?.[1]);
  const contentType = head
    .slice(1)
    .find(line => line.toLowerCase().startsWith('content-type:'))
    ?.slice('content-type:'.length)
    .trim();
  if (!status || !contentType) {
    throw new Error(`fixture ${name} lacks a status line or a content type`);
  }
  return { name, status, contentType, body: raw.slice(split + 4) };
}

/** Every fixture's file name. */
export function serverFixtureNames(): string[] {
  return readdirSync(FIXTURES).filter(name => name.endsWith('.http'));
}
