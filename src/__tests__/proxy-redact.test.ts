/**
 * Issue 7.2 and issue 8.7: what the model server sends back never carries the key, in any shape,
 * in error bodies or in streamed answers; an HTML error page becomes a short text; error documents
 * of every server's shape are read. Through the real figure server against a scripted endpoint.
 */

import { KeyRedactor, MAX_HELD_LINE_CHARS, REDACTED, StreamRedactor } from '../server/model/redact';
import { MAX_HTML_SUMMARY_CHARS } from '../server/model/upstream-error';

import { isolateProxyEnv } from './helpers/env';
import { FakeEndpoint, useFigureServer } from './helpers/loopback';
import { DONE, textChunk } from './helpers/sse';

const KEY = 'sk-Figure-Chat-Secret-0123456789abcdef';

/** Every shape of the key an echo has been seen in. */
function echoes(key: string): Record<string, string> {
  const jsonEscaped = [...key]
    .map(char => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');
  return {
    raw: key,
    lower: key.toLowerCase(),
    upper: key.toUpperCase(),
    jsonEscaped,
    urlEncoded: [...key].map(char => `%${char.charCodeAt(0).toString(16)}`).join(''),
    urlEncodedPartly: encodeURIComponent(key).replace('s', '%73'),
    base64Basic: Buffer.from(`user:${key}`).toString('base64'),
    base64Offset1: Buffer.from(`x${key}y`).toString('base64'),
    base64Offset2: Buffer.from(`xy${key}`).toString('base64url')
  };
}

/** Whether any echo shape of the key is still in `text`. */
function leaks(text: string): string[] {
  const decoded = [
    text,
    text.toLowerCase(),
    ...text.split(/[^A-Za-z0-9+/_=-]+/).map(part => Buffer.from(part, 'base64').toString('latin1'))
  ];
  let unescaped = text;
  try {
    unescaped = decodeURIComponent(text.replace(/%(?![0-9a-f]{2})/gi, '%25'));
  } catch {
    // keep the text
  }
  decoded.push(unescaped, unescaped.toLowerCase());
  try {
    decoded.push(JSON.parse(`"${text.replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`) as string);
  } catch {
    // not a JSON string body
  }
  const needle = KEY.toLowerCase().slice(0, 12);
  return decoded.filter(view => view.toLowerCase().includes(needle));
}

describe('KeyRedactor', () => {
  const redactor = new KeyRedactor(KEY);

  it.each(Object.entries(echoes(KEY)))('redacts the %s shape', (_shape, echo) => {
    const text = `Incorrect API key provided: ${echo}. Try again.`;
    const out = redactor.redact(text);
    expect(out).toContain(REDACTED);
    expect(out.startsWith('Incorrect API key provided: ')).toBe(true);
    expect(leaks(out)).toEqual([]);
  });

  it('redacts a key cut off at the end of a capped body', () => {
    expect(redactor.redact(`echo: ${KEY.slice(0, 9)}`, true)).toBe(`echo: ${REDACTED}`);
  });

  it('a stream split at every position never lets any shape out', () => {
    for (const [shape, echo] of Object.entries(echoes(KEY))) {
      const body = `data: {"error":"bad key ${echo}"}\n\ndata: [DONE]\n\n`;
      const bytes = Buffer.from(body);
      for (let cut = 1; cut < bytes.length; cut++) {
        const stream = new StreamRedactor(redactor);
        const out =
          stream.push(bytes.subarray(0, cut)) + stream.push(bytes.subarray(cut)) + stream.end();
        if (leaks(out).length) {
          throw new Error(`${shape} leaked with a split at ${cut}: ${out}`);
        }
        expect(out).toBe(body.replace(echo, redactor.redact(echo)));
        expect(out).toContain(REDACTED);
      }
    }
  });

  it('a line longer than the hold limit goes out in parts, with a key at any boundary redacted', () => {
    const jsonEscaped = echoes(KEY).jsonEscaped;
    for (const offset of [7, 5000]) {
      const before = 'a'.repeat(MAX_HELD_LINE_CHARS - offset);
      const line = `${before}${jsonEscaped}${'b'.repeat(300_000)}${KEY}`;
      const stream = new StreamRedactor(redactor);
      const bytes = Buffer.from(line);
      let out = '';
      for (let at = 0; at < bytes.length; at += 4093) {
        out += stream.push(bytes.subarray(at, at + 4093));
      }
      out += stream.end();
      expect(out).toBe(`${before}${REDACTED}${'b'.repeat(300_000)}${REDACTED}`);
    }
  });
});

const figure = useFigureServer('figure-chat-redact-');
let endpoint: FakeEndpoint;

isolateProxyEnv();

beforeEach(async () => {
  endpoint = await new FakeEndpoint().start();
  process.env.FIGURE_CHAT_API_KEY = KEY;
  process.env.FIGURE_CHAT_ENDPOINT = `${endpoint.url}/v1`;
});

afterEach(() => endpoint.close());

function ask(): Promise<Response> {
  return figure.post('model', {
    endpoint: `${endpoint.url}/v1`,
    body: { model: 'm', stream: true, messages: [] }
  });
}

describe('error bodies', () => {
  it.each(Object.entries(echoes(KEY)))('a 401 echoing the key %s', async (_shape, echo) => {
    endpoint.handler = (_request, res) => {
      // JSON.stringify keeps `\u…` escapes in the shape as text; the raw body holds them escaped
      // once more, which the server's JSON decoding undoes: the echo reaches the message as is.
      const body = `{"error":{"message":"Incorrect API key provided: ${echo.replace(/\\/g, '\\\\')}"}}`;
      res.writeHead(401, { 'Content-Type': 'application/json' }).end(body);
    };
    const response = await ask();
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(leaks(text)).toEqual([]);
    // base64 keeps the characters around the key that also hold other bytes.
    expect(text).toMatch(/Incorrect API key provided: [A-Za-z0-9]{0,8}\[API key\]/);
  });

  it('a JSON-escaped key in the raw body (decoded by the JSON parse) is redacted', async () => {
    const escaped = [...KEY].map(c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    endpoint.handler = (_request, res) => {
      res
        .writeHead(401, { 'Content-Type': 'application/json' })
        .end(`{"error":{"message":"Incorrect API key provided: ${escaped.join('')}"}}`);
    };
    const text = await (await ask()).text();
    expect(leaks(text)).toEqual([]);
    expect(text).toContain(REDACTED);
  });

  it('a key past the 2000th character is redacted before the text is cut', async () => {
    endpoint.handler = (_request, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${'x'.repeat(1990)}${KEY}`);
    };
    const text = await (await ask()).text();
    expect(leaks(text)).toEqual([]);
    expect(text).not.toContain(KEY.slice(0, 6));
  });

  it('an HTML 500 becomes a short plain-text summary', async () => {
    endpoint.handler = (_request, res) => {
      res.writeHead(500, { 'Content-Type': 'text/html' }).end(
        `<!DOCTYPE html><html><head><title>Oops</title><style>body{color:red}</style>
        <script>var token="${KEY}";</script></head><body><h1>Internal Server Error</h1>
        <p>The proxy &amp; the model failed.</p>${'<div>padding</div>'.repeat(300)}</body></html>`
      );
    };
    const response = await ask();
    expect(response.status).toBe(500);
    const { message } = ((await response.json()) as { error: { message: string } }).error;
    expect(message).toContain('answered 500: Internal Server Error The proxy & the model failed.');
    expect(message).not.toMatch(/<|color:red|token/);
    expect(message.length).toBeLessThan(MAX_HTML_SUMMARY_CHARS + 200);
  });

  it.each([
    ['OpenAI, llama.cpp', { error: { message: 'model is loading', type: 'server_error' } }],
    ['vLLM', { object: 'error', message: 'model is loading', type: 'BadRequestError' }],
    ['Ollama', { error: 'model is loading' }],
    ['FastAPI', { detail: 'model is loading' }],
    ['FastAPI validation', { detail: [{ loc: ['body'], msg: 'model is loading' }] }]
  ])('reads the %s error shape', async (_server, document) => {
    endpoint.handler = (_request, res) => {
      res.writeHead(503, { 'Content-Type': 'application/json' }).end(JSON.stringify(document));
    };
    const { message } = ((await (await ask()).json()) as { error: { message: string } }).error;
    expect(message).toBe(`The model server at ${endpoint.url}/v1 answered 503: model is loading.`);
  });
});

describe('streamed answers', () => {
  it('a key echoed inside a 2xx stream, split across chunks and in any case, is redacted', async () => {
    const first = textChunk(`Your key is ${KEY}`);
    const split = first.indexOf(KEY) + 8;
    const chunks = [
      first.slice(0, split),
      first.slice(split),
      textChunk(` and ${KEY.toLowerCase()} and ${echoes(KEY).jsonEscaped}`),
      DONE
    ];
    endpoint.handler = async (_request, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      for (const chunk of chunks) {
        res.write(chunk);
        await new Promise(resolve => setImmediate(resolve));
      }
      res.end();
    };
    const text = await (await ask()).text();
    expect(leaks(text)).toEqual([]);
    expect(text).toContain(REDACTED);
    expect(text.endsWith(DONE)).toBe(true);
  });
});
