import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressKind, AllowList, embeddedIpv4, parseRange } from '../../src/webhooks/outbound/address-ranges.ts';
import { policyConnector } from '../../src/webhooks/outbound/connector.ts';
import {
  BlockedByPolicy,
  databaseAddress,
  OutboundPolicy,
  type HostLookup,
} from '../../src/webhooks/outbound/policy.ts';

// No test here opens a socket: the decisions are pure, and the connector's socket opener is a stub
// that records what it was asked to connect to.

/** A resolver stub: each name to its addresses; an unknown name fails as the system resolver would. */
const resolver = (table: Record<string, string[]>): HostLookup & { asked: string[] } => {
  const asked: string[] = [];
  const lookup = async (name: string) => {
    asked.push(name);
    const addresses = table[name];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { asked });
};

const shared = (extra: Partial<ConstructorParameters<typeof OutboundPolicy>[0]> = {}) =>
  new OutboundPolicy({ shared: true, lookup: resolver({}), ...extra });

test('address kinds: loopback, private, link-local, metadata and reserved ranges, IPv4 inside IPv6 judged as IPv4', () => {
  const cases: [string, string | undefined][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    // SIIT's IPv4-translated form (RFC 2765) and NAT64's local-use prefix (RFC 8215) carry an IPv4 address too.
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['64:ff9b:1::7f00:1', 'loopback'],
    ['64:ff9b:1:2::a00:1', 'reserved'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd00::1', 'private'],
    ['fc12:3456::1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['169.254.0.5', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['not-an-ip', 'reserved'],
    ['93.184.216.34', undefined],
    ['8.8.8.8', undefined],
    ['172.32.0.1', undefined],
    ['2606:4700:4700::1111', undefined],
    ['::ffff:8.8.8.8', undefined],
  ];
  for (const [address, kind] of cases) assert.equal(addressKind(address), kind, address);
  assert.equal(embeddedIpv4('::ffff:c0a8:101'), '192.168.1.1');
  assert.equal(embeddedIpv4('2606:4700::1'), undefined);
  assert.equal(embeddedIpv4('64:ff9b:1::808:808'), '8.8.8.8');
});

test('--allow-receivers entries: CIDR blocks and single addresses, IPv4 blocks matching IPv4-mapped IPv6', () => {
  const list = new AllowList(['10.20.0.0/16', '127.0.0.1', ' fd00::/8 ']);
  for (const yes of ['10.20.3.4', '127.0.0.1', '::ffff:127.0.0.1', '::ffff:a14:304', 'fd00::1', '[fd12::9]'])
    assert.ok(list.has(yes), yes);
  for (const no of ['10.21.0.1', '127.0.0.2', '::1', 'fe80::1', '8.8.8.8']) assert.ok(!list.has(no), no);
  assert.throws(() => parseRange('10.0.0.0/33'), /prefix length outside 0–32/);
  assert.throws(() => parseRange('example.com/8'), /not an IP address or CIDR block/);
  assert.throws(() => parseRange('10.0.0.0/8/1'), /not an IP address or CIDR block/);
  assert.deepEqual(parseRange('fd00::/8'), { text: 'fd00::/8', network: 'fd00::', prefix: 8, family: 'ipv6' });
});

test("the policy's decision: a laptop refuses nothing; a shared server refuses every non-public address unless listed", () => {
  const laptop = new OutboundPolicy({ shared: false });
  for (const address of ['127.0.0.1', '10.0.0.1', '169.254.169.254', 'fd00::1'])
    assert.equal(laptop.decide(address, 80), undefined);
  const policy = shared();
  assert.equal(policy.decide('127.0.0.1', 80), 'a loopback address');
  assert.equal(policy.decide('::ffff:127.0.0.1', 80), 'a loopback address');
  assert.equal(policy.decide('10.0.0.1', 80), 'a private address');
  assert.equal(policy.decide('fd00::1', 443), 'a private address');
  assert.equal(policy.decide('169.254.169.254', 80), 'a cloud metadata address');
  assert.equal(policy.decide('fe80::1', 80), 'a link-local address');
  assert.equal(policy.decide('0.0.0.0', 80), 'a reserved (not public) address');
  assert.equal(policy.decide('93.184.216.34', 443), undefined, 'a public address');
  const listed = shared({ allowReceivers: ['10.0.0.0/8', '127.0.0.0/8'] });
  assert.equal(listed.decide('10.0.0.1', 80), undefined);
  assert.equal(listed.decide('::ffff:127.0.0.1', 80), undefined);
  assert.equal(listed.decide('169.254.169.254', 80), 'a cloud metadata address', 'only what is listed');
});

test("the server's own port and the database's host and port are named as such", async () => {
  const policy = shared({
    database: { host: 'db.internal', port: 5432 },
    lookup: resolver({ 'db.internal': ['203.0.113.50'] }),
  });
  policy.attach({ ownUrl: 'http://127.0.0.1:4602', port: 4602, publicUrl: 'https://sandbay.example.com' });
  assert.deepEqual(await policy.vet('127.0.0.1', 4602), { refused: "127.0.0.1 is this Sandbay server's own address" });
  assert.deepEqual(await policy.vet('203.0.113.50', 5432), { refused: "203.0.113.50 is the database's address" });
  assert.deepEqual(await policy.vet('203.0.113.50', 443), {
    refused: '203.0.113.50 is a reserved (not public) address',
  });
  assert.deepEqual(databaseAddress('postgres://u:p@[::1]:54320/db'), { host: '::1', port: 54320 });
  assert.deepEqual(databaseAddress('postgres://u@db.internal/db'), { host: 'db.internal', port: 5432 });
  assert.equal(databaseAddress(undefined), undefined);
});

test('names are resolved once and every address they give is judged: one refused address refuses the name', async () => {
  const lookup = resolver({
    'rebind.test': ['127.0.0.1'],
    'mixed.test': ['93.184.216.34', '10.0.0.1'],
    'public.test': ['2606:4700::1', '93.184.216.34'],
  });
  const policy = shared({ lookup });
  assert.deepEqual(await policy.vet('rebind.test', 80), {
    refused: 'rebind.test resolves to 127.0.0.1, a loopback address',
  });
  assert.deepEqual(await policy.vet('mixed.test', 80), {
    refused: 'mixed.test resolves to 10.0.0.1, a private address',
  });
  assert.deepEqual(await policy.vet('public.test', 443), { addresses: ['2606:4700::1', '93.184.216.34'] });
  assert.deepEqual(lookup.asked, ['rebind.test', 'mixed.test', 'public.test']);
  await assert.rejects(policy.vet('nowhere.test', 80), /ENOTFOUND/);
});

test('at registration a refused URL is 422 blocked_by_policy naming the policy; an unresolvable name is left to connect time', async () => {
  const policy = shared({ lookup: resolver({ 'rebind.test': ['127.0.0.1'], 'public.test': ['93.184.216.34'] }) });
  policy.attach({ ownUrl: 'http://127.0.0.1:4602', port: 4602, publicUrl: 'https://sandbay.example.com' });
  for (const url of [
    'http://2130706433/hook',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://[::ffff:127.0.0.1]:8080/',
    'http://rebind.test/',
    'http://169.254.169.254/latest/meta-data/',
  ]) {
    await assert.rejects(
      policy.assertAllowed(url, '/url'),
      (err: any) => {
        assert.equal(err.status, 422);
        assert.equal(err.code, 'blocked_by_policy');
        assert.match(err.detail, /^Refused by the outbound policy: .* --allow-receivers/);
        assert.deepEqual(
          err.options.errors.map((e: any) => e.path),
          ['/url'],
        );
        return true;
      },
      url,
    );
  }
  await policy.assertAllowed('https://public.test/hook', '/url');
  await policy.assertAllowed('https://not-yet.test/hook', '/url');
  await policy.assertAllowed('https://sandbay.example.com/catch/sbx_1/demo', '/url');
  await assert.rejects(
    policy.assertAllowed('https://sandbay.example.com/api/v1/sandboxes', '/url'),
    /blocked_by_policy|outbound policy/,
  );
  await new OutboundPolicy({ shared: false }).assertAllowed('http://127.0.0.1:1/', '/url');
});

test("a shared server's own catcher URLs go to the engine itself, and nothing else of it", () => {
  const policy = shared();
  policy.attach({ ownUrl: 'http://127.0.0.1:4602', port: 4602, publicUrl: 'https://sandbay.example.com' });
  assert.equal(
    policy.selfRoute('https://sandbay.example.com/catch/sbx_1/demo?x=1'),
    'http://127.0.0.1:4602/catch/sbx_1/demo?x=1',
  );
  assert.equal(
    policy.selfRoute('https://sandbay.example.com/catch/sbx_1/../../api/v1/sandboxes'),
    undefined,
    'dot segments are resolved before matching',
  );
  assert.equal(policy.selfRoute('https://sandbay.example.com/catch/sbx_1/demo/more'), undefined);
  assert.equal(policy.selfRoute('http://sandbay.example.com/catch/sbx_1/demo'), undefined, 'another origin (scheme)');
  assert.equal(policy.selfRoute('https://sandbay.example.com/api/v1/health'), undefined);
  const laptop = new OutboundPolicy({ shared: false });
  laptop.attach({ ownUrl: 'http://127.0.0.1:4400', port: 4400 });
  assert.equal(laptop.selfRoute('http://127.0.0.1:4400/catch/sbx_1/demo'), undefined);
});

/**
 * Asks the connector to connect as undici would, with a socket opener that only records the request
 * (and fails for the addresses in `unreachable`, as a connection refused would).
 */
async function connectWith(
  policy: OutboundPolicy,
  opts: { hostname: string; host?: string; protocol: string; port: string },
  unreachable: string[] = [],
) {
  const opened: any[] = [];
  const base = ((options: any, callback: any) => {
    opened.push(options);
    if (unreachable.includes(options.hostname))
      callback(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), null);
    else callback(null, { fake: true });
  }) as any;
  const connector = policyConnector(policy, {}, base);
  const result = await new Promise<{ err: Error | null }>((resolve) =>
    connector({ ...opts, host: opts.host ?? opts.hostname } as any, ((err: Error | null) => resolve({ err })) as any),
  );
  return { ...result, opened };
}

test('the connector refuses before any socket opens, and connects to exactly the address it judged', async () => {
  const lookup = resolver({
    'rebind.test': ['10.0.0.1'],
    'public.test': ['93.184.216.34'],
    'v6.test': ['2606:4700::1'],
    'both.test': ['2606:4700::1', '93.184.216.34'],
  });
  const policy = shared({ lookup });
  for (const hostname of [
    '10.0.0.1',
    '169.254.169.254',
    '[fd00::1]',
    '[::ffff:7f00:1]',
    'rebind.test',
    '127.0.0.1',
    '0.0.0.0',
  ]) {
    const { err, opened } = await connectWith(policy, { hostname, protocol: 'http:', port: '80' });
    assert.ok(err instanceof BlockedByPolicy, hostname);
    assert.match(err!.message, /^blocked_by_policy: /);
    assert.deepEqual(opened, [], `no socket for ${hostname}`);
  }
  const plain = await connectWith(policy, { hostname: 'public.test', protocol: 'http:', port: '' });
  assert.equal(plain.err, null);
  assert.equal(plain.opened[0].hostname, '93.184.216.34', 'the resolved address, not the name again');
  const tls = await connectWith(policy, {
    hostname: 'v6.test',
    host: 'v6.test:8443',
    protocol: 'https:',
    port: '8443',
  });
  assert.equal(tls.opened[0].hostname, '2606:4700::1');
  assert.equal(tls.opened[0].servername, 'v6.test', 'the name stays for SNI and the certificate');
  assert.deepEqual(lookup.asked, ['rebind.test', 'public.test', 'v6.test'], 'one resolution per connection');

  const fallback = await connectWith(policy, { hostname: 'both.test', protocol: 'http:', port: '80' }, [
    '2606:4700::1',
  ]);
  assert.equal(fallback.err, null);
  assert.deepEqual(
    fallback.opened.map((o) => o.hostname),
    ['2606:4700::1', '93.184.216.34'],
    'the next judged address when one is unreachable',
  );
  const unresolved = await connectWith(policy, { hostname: 'nowhere.test', protocol: 'http:', port: '80' });
  assert.match(String(unresolved.err), /ENOTFOUND/);
  assert.deepEqual(unresolved.opened, []);
});
