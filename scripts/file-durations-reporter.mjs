// A node:test reporter for scripts/run-tests.mjs: one JSON line per test file, with how long its process
// ran (the file-level test's duration, before() and after() hooks included), for the slowest-files table.
import { resolve } from 'node:path';

export default async function* fileDurations(source) {
  for await (const event of source) {
    if (event.type !== 'test:complete' || event.data.nesting !== 0 || !event.data.file) continue;
    // Each file is a test of its own, named by its path; its tests complete at nesting 0 too, named otherwise.
    if (resolve(event.data.name) !== event.data.file) continue;
    yield `${JSON.stringify({ file: event.data.name, ms: Math.round(event.data.details.duration_ms) })}\n`;
  }
}
