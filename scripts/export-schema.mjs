/**
 * Export, from their zod schemas (the one source):
 * - the JSON Schema of the stored conversation (`metadata.figure_chat`, SPEC 4.1) to
 *   schema/transcript-v1.jsonschema. The extension is not `.json` on purpose: JupyterLab loads
 *   every `.json` file in schema/ as a settings schema;
 * - the tools as the model is told about them (name, description, input JSON Schema) to
 *   jupyterlab_figure_chat/tool_specs.json, which the Python side (MCP, the docs' tools reference)
 *   reads without Node.
 *
 * Run: node scripts/export-schema.mjs [--check]   (--check: exit 1 if a file is out of date)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const top = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(top, 'schema', 'transcript-v1.jsonschema');
const toolsTarget = join(top, 'jupyterlab_figure_chat', 'tool_specs.json');

const bundle = await build({
  stdin: {
    contents:
      "import { z } from 'zod'; import { Transcript } from './src/tools/transcript';" +
      "import { ToolRegistry } from './src/tools/registry';" +
      "import { presentSvgTool } from './src/tools/present-svg';" +
      "import { visionTools } from './src/tools/vision-tools';" +
      'const registry = new ToolRegistry();' +
      'for (const tool of [presentSvgTool, ...visionTools]) registry.register(tool);' +
      "module.exports = { transcript: z.toJSONSchema(Transcript, { io: 'input', unrepresentable: 'any' })," +
      ' tools: registry.specs().map(spec => spec.function) };',
    resolveDir: top,
    loader: 'ts'
  },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  write: false
});
const module = { exports: {} };
new Function('module', 'exports', 'require', bundle.outputFiles[0].text)(
  module,
  module.exports,
  () => {
    throw new Error('the schema bundle needs no require');
  }
);
const schema = {
  ...module.exports.transcript,
  $id: 'https://jupyterlab-figure-chat/schema/transcript-v1.jsonschema',
  title: 'Figure Chat conversation (notebook metadata key "figure_chat")',
  description:
    'The conversation stored in a notebook: messages in order, tool calls with JSON arguments, tool results with short text. Readers keep fields they do not know.'
};
const outputs = [
  [target, `${JSON.stringify(schema, null, 2)}\n`],
  [toolsTarget, `${JSON.stringify({ version: 1, tools: module.exports.tools }, null, 2)}\n`]
];
if (process.argv.includes('--check')) {
  for (const [file, text] of outputs) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // A missing file is out of date too.
    }
    if (current !== text) {
      process.stderr.write(`${file} is out of date: run node scripts/export-schema.mjs\n`);
      process.exit(1);
    }
  }
  process.stdout.write('transcript schema and tool specs are up to date\n');
} else {
  for (const [file, text] of outputs) {
    writeFileSync(file, text);
    process.stdout.write(`wrote ${file}\n`);
  }
}
