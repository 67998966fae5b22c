// Loaded into an engine's process by `npm run bench -- memory` (node --import): notes PGlite's
// WebAssembly memory as it is made and answers each IPC message with where the process's memory goes.
import { attributeMemory, trackWasmMemories } from '../memory-attribution.ts';

trackWasmMemories();
process.on('message', () => process.send!(attributeMemory()));
process.channel?.unref(); // the channel alone must not keep a stopped engine alive
