import { lookup } from 'node:dns/promises';
import type { HostLookup } from '../../src/webhooks/outbound/policy.ts';

/**
 * A resolver stub for outbound-policy tests: names in the table resolve as it says (a function
 * answers per call, for a name that changes its answer); `localhost` goes to the system resolver
 * (it is loopback everywhere); every other name is not found, so no test ever reaches beyond loopback.
 */
export function testResolver(
  table: Record<string, string[] | ((call: number) => string[] | undefined)>,
): HostLookup & { calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const resolve = async (name: string) => {
    const call = (calls.get(name) ?? 0) + 1;
    calls.set(name, call);
    if (name === 'localhost') return lookup(name, { all: true });
    const entry = table[name];
    const addresses = typeof entry === 'function' ? entry(call) : entry;
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { calls });
}

export interface Spelling {
  label: string;
  url: string;
}

/**
 * Every way the issue names of writing "this machine" in a receiver URL, each aimed at a loopback
 * listener: the receiver's IPv4 port, its IPv6 port, the engine's own port, the database's.
 */
export function loopbackSpellings(ports: { v4: number; v6: number; engine: number; database?: number }): Spelling[] {
  const { v4, v6, engine, database } = ports;
  return [
    { label: '127.0.0.1', url: `http://127.0.0.1:${v4}/hook` },
    { label: 'localhost', url: `http://localhost:${v4}/hook` },
    { label: '[::1]', url: `http://[::1]:${v6}/hook` },
    { label: '::ffff:127.0.0.1', url: `http://[::ffff:127.0.0.1]:${v4}/hook` },
    { label: '2130706433', url: `http://2130706433:${v4}/hook` },
    { label: '0x7f000001', url: `http://0x7f000001:${v4}/hook` },
    { label: '0177.0.0.1', url: `http://0177.0.0.1:${v4}/hook` },
    { label: '0.0.0.0', url: `http://0.0.0.0:${v4}/hook` },
    { label: 'a name the resolver maps to loopback', url: `http://loopback.test:${v4}/hook` },
    { label: "the server's own port", url: `http://127.0.0.1:${engine}/api/v1/health` },
    ...(database ? [{ label: 'the database port', url: `http://127.0.0.1:${database}/` }] : []),
  ];
}

/** The resolver table the spellings need. */
export const loopbackNames = { 'loopback.test': ['127.0.0.1'] };
