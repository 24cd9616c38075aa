import { startJupyter } from './jupyter.mjs';

export default async function globalSetup() {
  await startJupyter({ fresh: true });
}
