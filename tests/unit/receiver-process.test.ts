// The other languages' receivers run on a port freePort found free; another process may bind it first. The helper
// must then move the receiver to another port, never hand the test the stranger's server (which would make a
// correct receiver look as if it rejected everything).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { useReceiverProcesses } from '../helpers/receiver-process.ts';

const start = useReceiverProcesses();
const receiver = `require('node:http').createServer((q, s) => s.end('receiver')).listen(process.env.PORT, '127.0.0.1')`;

test("a port another process binds first is given up for another: the test gets the receiver's", async () => {
  const stranger = createServer((_req, res) => res.end('stranger'));
  const ports: number[] = [];
  try {
    const { url } = await start(
      tmpdir(),
      (port) => {
        if (ports.length === 0) stranger.listen(port, '127.0.0.1');
        ports.push(port);
        return [process.execPath, ['-e', receiver]];
      },
      process.env,
    );
    assert.equal(ports.length, 2);
    assert.equal(url, `http://127.0.0.1:${ports[1]}/hook`);
    assert.equal(await (await fetch(url, { method: 'POST' })).text(), 'receiver');
  } finally {
    stranger.close();
  }
});
