// Where a process's resident memory goes, so each megabyte has an owner: PGlite's WebAssembly memory,
// V8's heap, buffers outside the heap, the mapped binaries, and what remains (compiled code, malloc
// arenas, thread stacks). Read from this process's /proc (Linux only), for `npm run bench -- memory`
// (through servers/memory-probe.ts in the engine's process) and the soak.
import { readFileSync } from 'node:fs';

// The node typings carry no WebAssembly globals (no DOM lib here): the little of them this file uses.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
type WasmMemoryClass = (new (descriptor: { initial: number; maximum?: number }) => WasmMemory) & { tracked?: boolean };
const wasmApi = (globalThis as unknown as { WebAssembly: { Memory: WasmMemoryClass } }).WebAssembly;

/** What starts the line servers/memory-probe.ts answers with, before the JSON of a MemoryAttribution. */
export const probeAnswer = 'memory-probe ';

const live = new Set<WeakRef<WasmMemory>>();

/**
 * Notes every WebAssembly.Memory created from now on (PGlite makes its own with `new`, before it
 * instantiates its module), so its size can be read without a handle on the PGlite instance.
 */
export function trackWasmMemories(): void {
  const Original = wasmApi.Memory;
  if (Original.tracked) return;
  class Tracked extends Original {
    static tracked = true;
    constructor(descriptor: { initial: number; maximum?: number }) {
      super(descriptor);
      live.add(new WeakRef(this));
    }
  }
  wasmApi.Memory = Tracked;
}

/** The byteLength of each WebAssembly memory still alive (a closed PGlite's is collected). */
function wasmMemoryBytes(): number[] {
  const sizes: number[] = [];
  for (const ref of live) {
    const memory = ref.deref();
    if (memory) sizes.push(memory.buffer.byteLength);
    else live.delete(ref);
  }
  return sizes;
}

interface Mapping {
  bytes: number;
  name: string;
  rssKb: number;
}

function mappings(): Mapping[] {
  const out: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const range = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (range) {
      current = { bytes: parseInt(range[2], 16) - parseInt(range[1], 16), name: range[3], rssKb: 0 };
      out.push(current);
    } else if (current && line.startsWith('Rss:')) current.rssKb = Number(line.split(/\s+/)[1]);
  }
  return out;
}

const statusMb = (field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

export interface MemoryAttribution {
  /** VmRSS and VmHWM (the peak since start, or since /proc/<pid>/clear_refs was written 5), MB. */
  rssMb: number;
  peakMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  /** The WebAssembly memories' size (what PGlite's module may touch), resident or not. */
  wasmSizeMb: number;
  /** Resident MB by owner; they add up to rssMb, within what the kernel's two counters disagree by. */
  owners: { owner: string; mb: number }[];
}

export function attributeMemory(): MemoryAttribution {
  const usage = process.memoryUsage();
  const wasm = wasmMemoryBytes();
  const maps = mappings();
  const mb = (kb: number) => kb / 1024;
  // A WebAssembly memory is one anonymous read-write mapping of exactly its byteLength (its guard pages are
  // mapped apart, inaccessible).
  const wasmMaps = maps.filter((m) => m.name === '' && wasm.includes(m.bytes));
  const wasmKb = wasmMaps.reduce((sum, m) => sum + m.rssKb, 0);
  const fileKb = maps.filter((m) => m.name.startsWith('/')).reduce((sum, m) => sum + m.rssKb, 0);
  const anonymousKb = maps.filter((m) => !m.name.startsWith('/')).reduce((sum, m) => sum + m.rssKb, 0) - wasmKb;
  const wasmSize = wasm.reduce((a, b) => a + b, 0);
  // V8 counts a WebAssembly memory as external; the rest of external is Buffers, ArrayBuffers, and the like.
  const otherExternalKb = Math.max(0, usage.external - wasmSize) / 1024;
  const heapKb = usage.heapTotal / 1024;
  return {
    rssMb: statusMb('VmRSS'),
    peakMb: statusMb('VmHWM'),
    heapUsedMb: usage.heapUsed / 2 ** 20,
    heapTotalMb: usage.heapTotal / 2 ** 20,
    externalMb: usage.external / 2 ** 20,
    arrayBuffersMb: usage.arrayBuffers / 2 ** 20,
    wasmSizeMb: wasmSize / 2 ** 20,
    owners: [
      { owner: 'PGlite WebAssembly memory, resident', mb: mb(wasmKb) },
      { owner: 'V8 heap (committed)', mb: mb(heapKb) },
      { owner: 'external buffers besides it', mb: mb(otherExternalKb) },
      { owner: 'node binary and libraries (file-backed)', mb: mb(fileKb) },
      {
        owner: 'the rest: compiled JS and wasm code, malloc, stacks',
        mb: mb(anonymousKb - heapKb - otherExternalKb),
      },
    ],
  };
}
