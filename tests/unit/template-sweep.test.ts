import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ensureTemplate, sweepTemplates, templateDir, templateKeepMs } from '../../src/db/template.ts';

const cache = mkdtempSync(join(tmpdir(), 'sandbay-template-cache-'));
after(() => rmSync(cache, { recursive: true, force: true }));

/** A pid that is certainly not running: a child that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

function template(name: string, ageMs: number): string {
  const dir = join(cache, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'PG_VERSION'), '17');
  const at = new Date(Date.now() - ageMs);
  utimesSync(dir, at, at);
  return dir;
}

test("a sweep removes other keys' templates unused for half an hour and the leftovers of dead processes, nothing else", () => {
  const current = template('template-00000000000000aa', 2 * templateKeepMs);
  const stale = template('template-00000000000000bb', templateKeepMs + 60_000);
  const recent = template('template-00000000000000cc', templateKeepMs - 60_000);
  const deadBuild = template(`template-00000000000000dd.build-${deadPid()}-ab12cd34`, 0);
  const liveBuild = template(`template-00000000000000ee.build-${process.pid}-ab12cd34`, 2 * templateKeepMs);
  const deadTrash = template(`template-00000000000000ff.trash-${deadPid()}-0011aabb`, 0);
  const other = template('not-a-template', 2 * templateKeepMs);
  const removed = sweepTemplates(cache, current);
  assert.deepEqual(removed.sort(), [stale, deadBuild, deadTrash].map((d) => d.slice(cache.length + 1)).sort());
  for (const kept of [current, recent, liveBuild, other]) assert.ok(existsSync(kept), `${kept} kept`);
  assert.deepEqual(
    readdirSync(cache).filter((n) => n.includes('.trash-')),
    [],
    'nothing left half-deleted',
  );
});

test('opening a template marks it used, so other processes keep it; a new key sweeps the old one once it is unused', async () => {
  let builds = 0;
  const build = async (dir: string) => {
    builds++;
    writeFileSync(join(dir, 'PG_VERSION'), '17');
  };
  const v1 = await ensureTemplate('migrations v1', build, cache);
  assert.equal(v1, templateDir('migrations v1', cache));
  const old = new Date(Date.now() - 2 * templateKeepMs);
  utimesSync(v1, old, old);
  assert.equal(await ensureTemplate('migrations v1', build, cache), v1);
  assert.equal(builds, 1, 'the cached template is reused');
  assert.ok(Date.now() - statSync(v1).mtimeMs < 60_000, 'and touched');

  const v2 = await ensureTemplate('migrations v2', build, cache);
  assert.ok(existsSync(v1), 'v1 was used a moment ago: another process may still be opening it');
  utimesSync(v1, old, old);
  assert.equal(await ensureTemplate('migrations v2', build, cache), v2);
  assert.ok(!existsSync(v1), 'unused for half an hour: swept');
  assert.ok(existsSync(join(v2, 'PG_VERSION')));
});
