import { stopJupyter } from './jupyter.mjs';

export default async function globalTeardown() {
  await stopJupyter();
}
