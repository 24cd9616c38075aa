/**
 * What a model server's refusal of a request means, across servers (SPEC section 5): the model
 * cannot take images, cannot take a temperature, or has no tool support. Each has a fallback the
 * agent tries once. Pure: it reads the status and message of the error the figure server passed
 * on (which quotes the upstream server's own message).
 */

/** A refusal the agent can work around, or none. */
export type Refusal = 'images' | 'temperature' | 'tools' | 'none';

/** What the refused request carried: a refusal is only read as what the request could cause. */
export interface RefusedRequest {
  readonly images: boolean;
  readonly temperature: boolean;
  readonly tools: boolean;
}

/**
 * Image refusals as servers word them:
 * - llama.cpp llama-server without a projector: 500 "image input is not supported - hint: … mmproj"
 * - vLLM: 400 "… is not a multimodal model"
 * - LM Studio: 400 "Model does not support images. Please use a model that does."
 * - OpenAI: 400 "Invalid content type. image_url is only supported by certain models."
 * - Ollama (older): 400/500 "… does not support images" / "this model is missing data required
 *   for image input".
 */
const IMAGE_REFUSAL =
  /image input is not supported|mmproj|is not a multimodal model|(does not|doesn't) support (images|image input|vision)|image_url is only supported|missing data required for image input|vision is not supported|images are not supported/i;

/**
 * Temperature refusals: OpenAI's o-series and other fixed-temperature models answer 400
 * `unsupported_value` "Unsupported value: 'temperature' does not support 0.3 with this model. Only
 * the default (1) value is supported." (or `unsupported_parameter` for models that take none).
 */
const TEMPERATURE_REFUSAL =
  /(unsupported (value|parameter)|not supported|does not support|only the default)[\s\S]*temperature|temperature[\s\S]*(unsupported|not supported|does not support|only the default)/i;

/**
 * Tool refusals:
 * - Ollama: 400 "registry.ollama.ai/library/gemma3:4b does not support tools"
 * - vLLM: 400 "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set"
 * - llama.cpp llama-server without `--jinja`: 500 "tools param requires --jinja flag"
 * - OpenAI models without tools: 400 "Unsupported parameter: 'tools' is not supported with this model."
 * - LM Studio: 400 "… does not support tool use"
 * - llama.cpp llama-server before streamed tool calls (b4xxx): 500 "Cannot use tools with stream"
 */
const TOOL_REFUSAL =
  /(does not|doesn't) support (tools|tool use|tool calling|function calling)|tool choice requires|requires --jinja|'tools' is not supported|tools is not supported|tools are not supported|tool use is not supported|cannot use tools with stream/i;

/** Statuses a refusal comes with: client errors, and llama.cpp's 500 for unsupported input. */
function isRefusalStatus(status: number): boolean {
  return status === 400 || status === 415 || status === 422 || status === 500;
}

/**
 * Classify a failed request. Specific messages win; an unexplained 400/415/422 to a request that
 * carried images is still taken as an image refusal (what the chat did before), since that is
 * the one part of a request a text-only server is most likely to choke on.
 */
export function classifyRefusal(status: number, message: string, request: RefusedRequest): Refusal {
  if (!isRefusalStatus(status)) {
    return 'none';
  }
  if (request.images && IMAGE_REFUSAL.test(message)) {
    return 'images';
  }
  if (request.temperature && TEMPERATURE_REFUSAL.test(message)) {
    return 'temperature';
  }
  if (request.tools && TOOL_REFUSAL.test(message)) {
    return 'tools';
  }
  if (request.images && status !== 500) {
    return 'images';
  }
  return 'none';
}
