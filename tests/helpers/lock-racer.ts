// A child process that races for a data dir's lock: `node --import tsx lock-racer.ts <dataDir>`.
// It prints "ready", takes the lock when "go" arrives on stdin, prints "won" or "lost: <reason>",
// and (holding what it won) exits when stdin closes.
import { createInterface } from 'node:readline';
import { acquireLock } from '../../src/server/instance-lock.ts';

const dataDir = process.argv[2];
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
let release: (() => void) | undefined;
lines.once('line', async () => {
  try {
    release = await acquireLock(dataDir, `ins_racer${process.pid}`);
    process.stdout.write('won\n');
  } catch (err) {
    process.stdout.write(`lost: ${(err as Error).message}\n`);
  }
});
lines.once('close', () => {
  release?.();
  process.exit(0);
});
