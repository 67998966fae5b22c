// Loaded into an engine's process by `npm run bench -- memory` (node --import): notes PGlite's
// WebAssembly memory as it is made and answers each line on stdin with a line on stdout saying where the
// process's memory goes. Not IPC: `sandbay serve` replaces its process to add V8 flags (bin/sandbay.mjs),
// and only stdin, stdout and stderr survive that.
import { createInterface } from 'node:readline';
import { attributeMemory, probeAnswer, trackWasmMemories } from '../memory-attribution.ts';

trackWasmMemories();
createInterface({ input: process.stdin }).on('line', () =>
  process.stdout.write(`${probeAnswer}${JSON.stringify(attributeMemory())}\n`),
);
process.stdin.unref(); // stdin alone must not keep a stopped engine alive
