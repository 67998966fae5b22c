import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import ts from 'typescript';
import { cacheRegistry, processState, type CacheName } from '../../src/db/cache-registry.ts';
import type { Db } from '../../src/db/database.ts';
import { openSandboxDatabase } from '../../src/server/database.ts';

// src/db/cache-registry.ts is the one list of what an engine caches and what keeps it true. These tests
// hold it to the database (every cache's source tables announce every change, by trigger, so no write
// path can forget) and to the code (every long-lived map of an engine is either a registered cache or
// state that cannot grow with the sandboxes ever made).
const root = resolve(import.meta.dirname, '../..');
let db: Db;
before(async () => {
  db = await openSandboxDatabase({ memory: true });
});
after(() => db.close());

const sources = Object.entries(cacheRegistry).flatMap(([cache, entry]) =>
  entry.sources.map((s) => ({ cache: cache as CacheName, ...s })),
);

test('every announcing trigger in the database is in the registry, and every registered one is in the database', async () => {
  const rows = await db.query<{ table: string; trigger: string }>(
    `select c.relname as table, t.tgname as trigger from pg_trigger t
       join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid
      where not t.tgisinternal and p.prosrc like '%sandbay_invalidate%' order by 1, 2`,
  );
  const registered = sources
    .map((s) => ({ table: s.table, trigger: s.trigger }))
    .sort((x, y) => `${x.table}.${x.trigger}`.localeCompare(`${y.table}.${y.trigger}`));
  assert.deepEqual(rows, registered);
});

type Announcement = Record<string, unknown>;

/**
 * Each kind of write to each source table as a new code path (or a psql session) would make it, with no
 * announcement of its own, and the messages it must announce. A source table without one here fails the
 * test below: add one.
 */
const writes: Record<string, (tenant: string) => { sql: string; announces: Announcement[] }[]> = {
  oauth_tokens: (t) => [
    {
      sql: `update oauth_tokens set revoked_at = now() where tenant_id = '${t}'`,
      announces: [{ cache: 'tokens', tenantId: t }],
    },
    { sql: `delete from oauth_tokens where tenant_id = '${t}'`, announces: [{ cache: 'tokens', tenantId: t }] },
  ],
  webhook_endpoints: (t) => {
    const endpoint = [{ cache: 'endpoints', tenantId: t, id: 'whe_probe' }];
    return [
      {
        sql: `insert into webhook_endpoints (tenant_id, id, url, topics, created_at, updated_at) values ('${t}', 'whe_probe', 'http://127.0.0.1:9/', '{*}', now(), now())`,
        announces: endpoint,
      },
      {
        sql: `update webhook_endpoints set url = 'http://127.0.0.1:8/' where tenant_id = '${t}' and id = 'whe_probe'`,
        announces: endpoint,
      },
      { sql: `delete from webhook_endpoints where tenant_id = '${t}' and id = 'whe_probe'`, announces: endpoint },
    ];
  },
  webhook_secrets: (t) => {
    const endpoint = [{ cache: 'endpoints', tenantId: t, id: 'whe_probe' }];
    return [
      {
        sql: `insert into webhook_secrets (tenant_id, endpoint_id, secret, created_at) values ('${t}', 'whe_probe', 'whsec_probe', now())`,
        announces: endpoint,
      },
      {
        sql: `update webhook_secrets set expires_at = now() where tenant_id = '${t}' and endpoint_id = 'whe_probe'`,
        announces: endpoint,
      },
      {
        sql: `delete from webhook_secrets where tenant_id = '${t}' and endpoint_id = 'whe_probe'`,
        announces: endpoint,
      },
    ];
  },
  tenants: (t) => [
    {
      sql: `update tenants set clock_offset_ms = 7000 where id = '${t}'`,
      announces: [{ cache: 'clock', tenantId: t, offsetMs: 7000 }],
    },
    {
      sql: `update tenants set webhook_test_secret = 'whsec_other' where id = '${t}'`,
      announces: [{ cache: 'testSecrets', tenantId: t }],
    },
  ],
};

async function notificationsOf(statements: string[], commit: boolean): Promise<Announcement[]> {
  const heard: Announcement[] = [];
  const stop = await db.listen('sandbay_invalidate', (payload) => heard.push(JSON.parse(payload)));
  try {
    await db
      .transaction(async (tx) => {
        for (const sql of statements) await tx.query(sql);
        assert.deepEqual(heard, [], 'nothing before COMMIT');
        if (!commit) throw new Error('roll back');
      })
      .catch((err) => {
        if (commit) throw err;
      });
    await new Promise((r) => setImmediate(r));
    return heard;
  } finally {
    await stop();
  }
}

test('every write to a cached table, by any code, is announced at COMMIT naming its cache and sandbox; a rollback announces nothing', async () => {
  const tenant = 'sbx_registry';
  await db.query(`insert into tenants (id, name, webhook_test_secret) values ($1, $1, 'whsec_probe')`, [tenant]);
  await db.query(
    `insert into oauth_clients (client_id, tenant_id, public, scope) values ('cli_probe', $1, true, 'orders:read')`,
    [tenant],
  );
  await db.query(
    `insert into oauth_tokens (hash, tenant_id, client_id, kind, scope, family_id, expires_at)
                  values ('h_probe', $1, 'cli_probe', 'access', '', 'fam_probe', now() + interval '1 hour')`,
    [tenant],
  );
  for (const table of new Set(sources.map((s) => s.table))) {
    assert.ok(writes[table], `no write of ${table} in this test: add one`);
    const statements = writes[table](tenant);
    const rolledBack = await notificationsOf(
      statements.map((w) => w.sql),
      false,
    );
    assert.deepEqual(rolledBack, [], `${table}: rolled back`);
    // One transaction per operation, so that each insert, update and delete must be announced by itself
    // (in one transaction, one operation's message would hide another's missing trigger).
    const heardOf = new Set<string>();
    for (const { sql, announces } of statements) {
      const heard = await notificationsOf([sql], true);
      assert.deepEqual(heard, announces, `${sql.split(' ').slice(0, 2).join(' ')} ${table}`);
      for (const message of heard) heardOf.add(String(message.cache));
    }
    const caches = sources.filter((s) => s.table === table).map((s) => s.cache);
    assert.deepEqual(
      [...heardOf].sort(),
      [...new Set(caches)].sort(),
      `${table}: every cache it feeds is announced, and only those`,
    );
  }
  // Issuing a token or using a refresh token changes no cached token: nothing announced.
  assert.deepEqual(
    await notificationsOf(
      [
        `insert into oauth_tokens (hash, tenant_id, client_id, kind, scope, family_id, expires_at) values ('h_new', '${tenant}', 'cli_probe', 'refresh', '', 'fam_new', now())`,
        `update oauth_tokens set used_at = now() where hash = 'h_new'`,
      ],
      true,
    ),
    [],
  );
});

test('every cache in the registry is registered by the file the registry names', () => {
  for (const [name, entry] of Object.entries(cacheRegistry)) {
    const source = readFileSync(join(root, entry.owner), 'utf8');
    assert.match(source, new RegExp(`invalidations\\.on\\('${name}'`), `${entry.owner} registers ${name}`);
  }
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** `file field` for every class field initialised with a new Map, Set, WeakMap or LruMap. */
function longLivedCollections(): string[] {
  // The inspector, the CLI and the Electron shell are not the engine.
  const engine = ['db', 'schedule', 'webhooks', 'domain', 'server', 'shared', 'receiver', 'testing'];
  const found: string[] = [];
  for (const file of engine.flatMap((dir) => sourceFiles(join(root, 'src', dir)))) {
    const text = readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (
        ts.isPropertyDeclaration(node) &&
        node.initializer &&
        ts.isNewExpression(node.initializer) &&
        /^(Map|Set|WeakMap|LruMap)$/.test(node.initializer.expression.getText(sf))
      ) {
        found.push(`${relative(root, file)} ${node.name.getText(sf)}`);
      }
      // `this.cache = new LruMap(…)` in a constructor counts too.
      if (
        ts.isBinaryExpression(node) &&
        node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
        ts.isNewExpression(node.right) &&
        /^(Map|Set|WeakMap|LruMap)$/.test(node.right.expression.getText(sf)) &&
        ts.isPropertyAccessExpression(node.left) &&
        node.left.expression.kind === ts.SyntaxKind.ThisKeyword
      ) {
        found.push(`${relative(root, file)} ${node.left.name.getText(sf)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return [...new Set(found)].sort();
}

test('every long-lived map or set of the engine is listed in the registry, with why it cannot grow with sandboxes ever made', () => {
  const found = longLivedCollections();
  const unlisted = found.filter((f) => !(f in processState));
  assert.deepEqual(unlisted, [], 'add each to processState in src/db/cache-registry.ts, saying what bounds it');
  const stale = Object.keys(processState).filter((f) => !found.includes(f));
  assert.deepEqual(stale, [], 'listed in processState but no longer in the code');
  assert.ok(found.length >= 20, `the scan finds the engine's fields (${found.length})`);
});
