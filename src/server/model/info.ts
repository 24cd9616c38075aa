/**
 * `POST model-info`: whether a model can see images, where its server can tell (issue 8). Ollama
 * answers 200 to image requests for a text-only model and silently drops the images, so the chat
 * asks once per model instead of waiting for a refusal that never comes.
 *
 * Asked in order, each a short, capped request with no credentials (these are local servers'
 * own routes, and the API key is only ever sent on the chat request itself):
 * - Ollama: `POST <origin>/api/show {"model"}` → `capabilities` lists `"vision"` or not;
 * - llama.cpp llama-server: `GET <base>/props` → `modalities.vision`;
 * - LM Studio: `GET <origin>/api/v0/models/<model>` → `type` is `"vlm"` or `"llm"`.
 * Anything else (OpenAI, vLLM, llama-cpp-python) answers `images: null`: unknown, keep trying.
 */
import { isRecord } from '../../tools/guards';
import { HttpError, type JsonRoute } from '../http/http';
import { chooseModelTarget, serverModelConfig } from './endpoint';

/** How long each probe may take. */
export const MODEL_INFO_TIMEOUT_MS = 3000;

/** The most of a probe's answer that is read. */
export const MODEL_INFO_MAX_BYTES = 256 * 1024;

/** What the route answers. */
export interface ModelInfo {
  /** Whether the model takes images; null when the server does not say. */
  readonly images: boolean | null;
  /** Which server said so. */
  readonly source: 'ollama' | 'llama.cpp' | 'lmstudio' | null;
}

/** GET or POST a JSON document, or undefined if the server does not answer with one in time. */
async function probe(url: string, body?: unknown): Promise<unknown> {
  try {
    const response = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(MODEL_INFO_TIMEOUT_MS),
      redirect: 'error'
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return undefined;
    }
    const text = await response.text();
    return text.length > MODEL_INFO_MAX_BYTES ? undefined : (JSON.parse(text) as unknown);
  } catch {
    // Not this kind of server (or not answering): the next probe may know.
    return undefined;
  }
}

/** Read what a server's answers say about images (pure; exported for tests). */
export function readOllamaShow(value: unknown): boolean | null {
  if (!isRecord(value) || !Array.isArray(value.capabilities)) {
    return null;
  }
  return value.capabilities.includes('vision');
}

export function readLlamaCppProps(value: unknown): boolean | null {
  if (!isRecord(value) || !isRecord(value.modalities)) {
    return null;
  }
  return typeof value.modalities.vision === 'boolean' ? value.modalities.vision : null;
}

export function readLmStudioModel(value: unknown): boolean | null {
  if (!isRecord(value) || typeof value.type !== 'string') {
    return null;
  }
  return value.type === 'vlm' ? true : value.type === 'llm' ? false : null;
}

/** Ask the server behind an endpoint whether a model takes images. */
export async function modelInfo(endpoint: string, model: string): Promise<ModelInfo> {
  const base = new URL(endpoint.replace(/\/+$/, '').replace(/\/chat\/completions$/, ''));
  const origin = base.origin;
  const ollama = readOllamaShow(await probe(`${origin}/api/show`, { model }));
  if (ollama !== null) {
    return { images: ollama, source: 'ollama' };
  }
  const root = base.href.replace(/\/v1$/, '');
  const llama = readLlamaCppProps(await probe(`${root}/props`));
  if (llama !== null) {
    return { images: llama, source: 'llama.cpp' };
  }
  const lmstudio = readLmStudioModel(
    await probe(`${origin}/api/v0/models/${encodeURIComponent(model)}`)
  );
  if (lmstudio !== null) {
    return { images: lmstudio, source: 'lmstudio' };
  }
  return { images: null, source: null };
}

/**
 * The route: `{endpoint, model}` in, {@link ModelInfo} out. The endpoint probed is the one in force
 * (see `endpoint.ts`): an empty `endpoint` means the user has not chosen one.
 */
export const modelInfoRoute: JsonRoute = async body => {
  const endpoint = isRecord(body) ? body.endpoint : undefined;
  const model = isRecord(body) ? body.model : undefined;
  if (
    typeof endpoint !== 'string' ||
    (endpoint.trim() !== '' && !/^https?:\/\//i.test(endpoint)) ||
    typeof model !== 'string'
  ) {
    throw new HttpError(
      400,
      'model-info expects {"endpoint": "http(s)://…" or "", "model": "name"}; check the endpoint in Settings → Figure Chat.',
      'bad-request'
    );
  }
  // A probe carries no key, so a key without FIGURE_CHAT_ENDPOINT (which stops a chat request)
  // does not stop it: it asks the endpoint the user or the default names.
  const config = serverModelConfig();
  const inForce = chooseModelTarget(endpoint, config.endpoint ? config : {});
  return { json: await modelInfo(inForce.endpoint, model) };
};
