/**
 * `present_svg`: a static SVG figure shown inline. The figure server checks it (the XML allowlist,
 * then a resvg parse) before the call reports success; the SVG itself stays only in the call's
 * arguments. It needs only a ToolHost's figure-server call, so the chat and the kernel program
 * (Python's `Figure`) run this same handler.
 */
import type { ToolDefinition } from './registry';
import { PRESENT_SVG_DESCRIPTION, presentSvgInput } from './svg';
import { NoToolHostError } from './vision-tools';

interface CheckSvgAnswer {
  ok: boolean;
  error?: { kind: string; message: string };
}

/** The `present_svg` tool. */
export const presentSvgTool: ToolDefinition<typeof presentSvgInput> = {
  name: 'present_svg',
  description: PRESENT_SVG_DESCRIPTION,
  input: presentSvgInput,
  mutates: false,
  async run(args, context) {
    if (!context.host) {
      throw new NoToolHostError();
    }
    const answer = await context.host.request<CheckSvgAnswer>(
      'check-svg',
      { svg: args.svg },
      context.signal
    );
    if (!answer.ok) {
      return {
        status: 'failed',
        text: `Tool error: ${answer.error?.message ?? 'the SVG was refused'}`
      };
    }
    return { status: 'completed', text: `SVG presented inline: ${args.alt}` };
  }
};
