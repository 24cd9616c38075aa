/**
 * `present_svg`: a static SVG figure shown inline. The figure server checks it (the XML allowlist,
 * then a resvg parse) before the call reports success; the SVG itself stays only in the call's
 * arguments.
 */
import type { ToolDefinition } from '../../tools/registry';
import { PRESENT_SVG_DESCRIPTION, presentSvgInput } from '../../tools/svg';
import { toolHost } from './host';

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
    const answer = await toolHost(context).request<CheckSvgAnswer>(
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
