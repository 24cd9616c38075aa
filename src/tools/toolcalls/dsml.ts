/**
 * DeepSeek's DSML call markup (SPEC section 5), with or without the `｜DSML｜` marker
 * (`｜` is U+FF5C FULLWIDTH VERTICAL LINE):
 *
 * ```
 * <｜DSML｜function_calls>
 * <｜DSML｜invoke name="present_svg">
 * <｜DSML｜parameter name="svg" string="true">…</｜DSML｜parameter>
 * </｜DSML｜invoke>
 * </｜DSML｜function_calls>
 * ```
 *
 * An invoke holds either parameter tags or one JSON object. A parameter with `string="true"` is
 * a raw string; otherwise its value is JSON, or the raw string when it is not valid JSON.
 */
import {
  argumentsFrom,
  matchAt,
  matchTagName,
  scanJsonValue,
  scanTagRest,
  skipToCloser,
  skipWhitespace,
  tryParseJson
} from './scan';
import { isRecord } from '../guards';
import type { BlockParse, CallSyntax, Lookahead, ParsedToolCall } from './types';

/** The marker DeepSeek puts in every tag name. */
export const DSML_MARKER = '\uff5cDSML\uff5c';

/** The tags of one spelling of DSML. */
interface DsmlTags {
  opener: string;
  closer: string;
  invoke: string;
  invokeEnd: string;
  parameter: string;
  parameterEnd: string;
}

function tags(marker: string): DsmlTags {
  return {
    opener: `<${marker}function_calls>`,
    closer: `</${marker}function_calls>`,
    invoke: `<${marker}invoke`,
    invokeEnd: `</${marker}invoke>`,
    parameter: `<${marker}parameter`,
    parameterEnd: `</${marker}parameter>`
  };
}

/** The result of reading one invoke: the call (or why not), and where reading stopped. */
type InvokeParse =
  | { kind: 'done'; end: number; call: ParsedToolCall | string }
  | { kind: 'incomplete'; callName?: string }
  | { kind: 'malformed'; at: number };

function dsmlSyntax(marker: string): CallSyntax {
  const t = tags(marker);

  const confirm = (text: string, bodyStart: number): Lookahead => {
    const i = skipWhitespace(text, bodyStart);
    if (i === text.length) {
      return 'more';
    }
    const invoke = matchTagName(text, i, t.invoke);
    const close = matchAt(text, i, t.closer);
    if (invoke === 'yes' || close === 'yes') {
      return 'call';
    }
    return invoke === 'partial' || close === 'partial' ? 'more' : 'prose';
  };

  const parse = (text: string, bodyStart: number): BlockParse => {
    const calls: ParsedToolCall[] = [];
    const errors: string[] = [];
    let i = bodyStart;
    for (;;) {
      i = skipWhitespace(text, i);
      if (i === text.length) {
        return { kind: 'incomplete', calls, errors };
      }
      const close = matchAt(text, i, t.closer);
      if (close === 'yes') {
        return { kind: 'complete', end: i + t.closer.length, calls, errors };
      }
      const invoke = matchTagName(text, i, t.invoke);
      if (invoke === 'partial' || close === 'partial') {
        return { kind: 'incomplete', calls, errors };
      }
      const result: InvokeParse =
        invoke === 'yes' ? parseInvoke(text, i + t.invoke.length, t) : { kind: 'malformed', at: i };
      if (result.kind === 'incomplete') {
        return { kind: 'incomplete', calls, errors, callName: result.callName };
      }
      if (result.kind === 'malformed') {
        return skipToCloser(
          text,
          result.at,
          t.closer,
          calls,
          errors,
          near =>
            `The model's tool call markup is malformed near "${near}"; expected ` +
            `${t.invoke} name="…"> with ${t.parameter} name="…"> tags or one JSON object.`
        );
      }
      if (typeof result.call === 'string') {
        errors.push(result.call);
      } else {
        calls.push(result.call);
      }
      i = result.end;
    }
  };

  const firstName = (text: string, bodyStart: number): string | undefined => {
    const i = skipWhitespace(text, bodyStart);
    if (matchTagName(text, i, t.invoke) !== 'yes') {
      return undefined;
    }
    const tag = scanTagRest(text, i + t.invoke.length);
    return (tag.kind === 'end' && tag.attributes.get('name')) || undefined;
  };

  return { opener: t.opener, closer: t.closer, confirm, parse, firstName };
}

/** Reads one invoke from just after its tag name to just after its closing tag. */
function parseInvoke(text: string, afterTagName: number, t: DsmlTags): InvokeParse {
  const tag = scanTagRest(text, afterTagName);
  if (tag.kind === 'partial') {
    return { kind: 'incomplete' };
  }
  if (tag.kind === 'bad') {
    return { kind: 'malformed', at: afterTagName };
  }
  const name = tag.attributes.get('name') ?? '';
  const incomplete: InvokeParse = { kind: 'incomplete', callName: name || undefined };
  let i = skipWhitespace(text, tag.end);
  if (i === text.length) {
    return incomplete;
  }
  if (text[i] === '{') {
    return parseJsonBody(text, i, name, t);
  }
  const entries: [string, unknown][] = [];
  let problem = '';
  for (;;) {
    i = skipWhitespace(text, i);
    if (i === text.length) {
      return incomplete;
    }
    const end = matchAt(text, i, t.invokeEnd);
    if (end === 'yes') {
      return {
        kind: 'done',
        end: i + t.invokeEnd.length,
        call: callOrError(name, entries, problem)
      };
    }
    const parameter = matchTagName(text, i, t.parameter);
    if (parameter === 'partial' || end === 'partial') {
      return incomplete;
    }
    if (parameter === 'no') {
      return { kind: 'malformed', at: i };
    }
    const parameterTag = scanTagRest(text, i + t.parameter.length);
    if (parameterTag.kind === 'partial') {
      return incomplete;
    }
    if (parameterTag.kind === 'bad') {
      return { kind: 'malformed', at: i };
    }
    const valueEnd = text.indexOf(t.parameterEnd, parameterTag.end);
    if (valueEnd === -1) {
      return incomplete;
    }
    const key = parameterTag.attributes.get('name');
    if (key === undefined || key === '') {
      problem ||= `The model's call to ${name || 'a tool'} has a parameter without a name.`;
    } else {
      const raw = text.slice(parameterTag.end, valueEnd);
      entries.push([key, parameterValue(raw, parameterTag.attributes.get('string'))]);
    }
    i = valueEnd + t.parameterEnd.length;
  }
}

/** An invoke whose body is one JSON object holding the arguments. */
function parseJsonBody(text: string, start: number, name: string, t: DsmlTags): InvokeParse {
  const scan = scanJsonValue(text, start);
  if (scan.kind === 'partial') {
    return { kind: 'incomplete', callName: name || undefined };
  }
  if (scan.kind === 'bad') {
    return { kind: 'malformed', at: start };
  }
  const after = skipWhitespace(text, scan.end);
  const end = matchAt(text, after, t.invokeEnd);
  if (end === 'partial') {
    return { kind: 'incomplete', callName: name || undefined };
  }
  if (end === 'no') {
    return { kind: 'malformed', at: after };
  }
  const parsed = tryParseJson(text.slice(start, scan.end));
  let call: ParsedToolCall | string;
  if (!parsed.ok) {
    call = `The model's call to ${name || 'a tool'} has arguments that are not valid JSON (${parsed.error}).`;
  } else if (!isRecord(parsed.value)) {
    call = `The model's call to ${name || 'a tool'} has arguments that are not a JSON object.`;
  } else {
    call = name ? { name, arguments: parsed.value } : noName();
  }
  return { kind: 'done', end: after + t.invokeEnd.length, call };
}

function callOrError(
  name: string,
  entries: [string, unknown][],
  problem: string
): ParsedToolCall | string {
  if (!name) {
    return noName();
  }
  return problem || { name, arguments: argumentsFrom(entries) };
}

function noName(): string {
  return 'The model\'s tool call has no name="…" on its invoke tag.';
}

/** `string="true"`: the exact text. Otherwise JSON, or the exact text when it is not JSON. */
function parameterValue(raw: string, stringFlag: string | undefined): unknown {
  if (stringFlag === 'true') {
    return raw;
  }
  const parsed = tryParseJson(raw);
  return parsed.ok ? parsed.value : raw;
}

/** DSML with the `｜DSML｜` marker, as DeepSeek V3.2 writes it. */
export const dsmlMarked: CallSyntax = dsmlSyntax(DSML_MARKER);

/** The same markup without the marker (`<function_calls><invoke name=…>`). */
export const dsmlPlain: CallSyntax = dsmlSyntax('');
