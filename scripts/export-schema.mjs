/**
 * Export the JSON Schema of the stored conversation (`metadata.figure_chat`, SPEC 4.1) from its
 * zod schema to schema/transcript-v1.jsonschema. The extension is not `.json` on purpose:
 * JupyterLab loads every `.json` file in schema/ as a settings schema.
 *
 * Run: node scripts/export-schema.mjs [--check]   (--check: exit 1 if the file is out of date)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const top = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(top, 'schema', 'transcript-v1.jsonschema');

const bundle = await build({
  stdin: {
    contents:
      "import { z } from 'zod'; import { Transcript } from './src/tools/transcript';" +
      "module.exports = z.toJSONSchema(Transcript, { io: 'input', unrepresentable: 'any' });",
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
  ...module.exports,
  $id: 'https://jupyterlab-figure-chat/schema/transcript-v1.jsonschema',
  title: 'Figure Chat conversation (notebook metadata key "figure_chat")',
  description:
    'The conversation stored in a notebook: messages in order, tool calls with JSON arguments, tool results with short text. Readers keep fields they do not know.'
};
const text = `${JSON.stringify(schema, null, 2)}\n`;
if (process.argv.includes('--check')) {
  const current = readFileSync(target, 'utf8');
  if (current !== text) {
    process.stderr.write(`${target} is out of date: run node scripts/export-schema.mjs\n`);
    process.exit(1);
  }
  process.stdout.write('transcript schema is up to date\n');
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target}\n`);
}
