/**
 * JSON for tool-call arguments, as model servers really write it.
 *
 * llama-cpp-python's string grammar lets raw control characters (a literal newline, `\x15`) into
 * JSON strings, which strict `JSON.parse` refuses. They are taken as the characters they are,
 * byte for byte: escaping them inside strings (and nowhere else) before parsing gives exactly
 * the string the model wrote.
 */

function escapeControlsInStrings(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!inString) {
      if (c === 0x22) {
        inString = true;
      }
      continue;
    }
    if (escaped) {
      escaped = false;
    } else if (c === 0x5c) {
      escaped = true;
    } else if (c === 0x22) {
      inString = false;
    } else if (c < 0x20) {
      out += `${text.slice(last, i)}\\u${c.toString(16).padStart(4, '0')}`;
      last = i + 1;
    }
  }
  return last === 0 ? text : out + text.slice(last);
}

/**
 * Parses tool-call JSON, accepting raw control characters inside strings. Throws `SyntaxError`
 * (from `JSON.parse`) for anything else that is not JSON.
 */
export function parseToolJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const repaired = escapeControlsInStrings(text);
    if (repaired === text) {
      throw error;
    }
    return JSON.parse(repaired) as unknown;
  }
}
