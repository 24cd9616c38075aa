/**
 * Reading refusals across servers (issue 8): the status and the message the figure server passed
 * on decide whether images, the temperature or the tools were refused.
 */
import { classifyRefusal, type RefusedRequest } from '../chat/refusals';

const all: RefusedRequest = { images: true, temperature: true, tools: true };
const at = 'The model server at http://127.0.0.1:8080/v1 answered';

describe('classifyRefusal', () => {
  it.each([
    [
      500,
      `${at} 500: image input is not supported - hint: if this is unexpected, you may need to provide the mmproj.`,
      'images'
    ],
    [400, `${at} 400: Qwen/Qwen2.5-7B-Instruct is not a multimodal model.`, 'images'],
    [400, `${at} 400: Model does not support images. Please use a model that does.`, 'images'],
    [
      400,
      `${at} 400: Invalid content type. image_url is only supported by certain models.`,
      'images'
    ],
    [
      400,
      `${at} 400: Unsupported value: 'temperature' does not support 0.3 with this model. Only the default (1) value is supported.`,
      'temperature'
    ],
    [400, `${at} 400: registry.ollama.ai/library/gemma3:4b does not support tools.`, 'tools'],
    [
      400,
      `${at} 400: "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set.`,
      'tools'
    ],
    [500, `${at} 500: tools param requires --jinja flag.`, 'tools'],
    [400, `${at} 400: Unsupported parameter: 'tools' is not supported with this model.`, 'tools'],
    [500, `${at} 500: out of memory.`, 'none'],
    [502, 'No model server answered at http://127.0.0.1:9/v1 (ECONNREFUSED).', 'none'],
    [401, `${at} 401: invalid api key.`, 'none']
  ])('%i %s → %s', (status, message, expected) => {
    expect(classifyRefusal(status, message, all)).toBe(expected);
  });

  it('only blames what the request carried', () => {
    const message = `${at} 500: image input is not supported - hint: … mmproj.`;
    expect(classifyRefusal(500, message, { ...all, images: false })).toBe('none');
    const tools = `${at} 400: gemma3 does not support tools.`;
    expect(classifyRefusal(400, tools, { ...all, tools: false })).toBe('images');
    expect(classifyRefusal(400, tools, { images: false, temperature: true, tools: false })).toBe(
      'none'
    );
  });

  it('takes an unexplained 400/415/422 to an image request as an image refusal, not a 500', () => {
    expect(classifyRefusal(422, `${at} 422: unprocessable.`, all)).toBe('images');
    expect(classifyRefusal(500, `${at} 500: internal error.`, all)).toBe('none');
  });
});
