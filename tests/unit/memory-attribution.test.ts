import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startSandbox } from '../../src/server/start.ts';
import { attributeMemory, trackWasmMemories } from '../bench/memory-attribution.ts';

// Issue 30: `npm run bench -- memory` and the soak split the engine's RSS by owner. The owners must add up
// to the RSS reported beside them, and PGlite's WebAssembly memory must be found, not folded into the rest.
test("the memory attribution of an engine on PGlite adds up to its RSS and names PGlite's WebAssembly memory", async () => {
  trackWasmMemories();
  const engine = await startSandbox({ memory: true, port: 0, logRequests: false });
  try {
    const m = attributeMemory();
    const total = m.owners.reduce((sum, o) => sum + o.mb, 0);
    const context = JSON.stringify(m, null, 1);
    assert.ok(
      Math.abs(total - m.rssMb) <= 0.05 * m.rssMb,
      `owners add up to ${total} MB, RSS ${m.rssMb} MB\n${context}`,
    );
    assert.ok(m.wasmSizeMb >= 128, `PGlite's module declares 128 MB at least\n${context}`);
    const wasm = m.owners.find((o) => o.owner.startsWith('PGlite'))!;
    assert.ok(wasm.mb > 0 && wasm.mb <= m.wasmSizeMb, context);
    assert.ok(m.peakMb >= m.rssMb, context);
  } finally {
    await engine.close();
  }
});
