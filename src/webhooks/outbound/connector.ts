import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import type { OutboundPolicy } from './policy.ts';

type Connector = buildConnector.connector;

/**
 * An undici connector that asks the policy before every connection: the host is resolved once,
 * every address it gave is judged, and the socket is opened to exactly the first of them (the
 * name is kept for TLS: SNI and the certificate check). A refusal fails the request before any
 * socket exists, so no open or closed port can be told from another. On a laptop the policy
 * refuses nothing and this is undici's own connector with one resolution.
 * `base` opens the socket; tests pass one that records the address instead.
 */
export function policyConnector(policy: OutboundPolicy, options: buildConnector.BuildOptions = {}, base: Connector = buildConnector(options)): Connector {
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    policy.vet(host, port).then(
      (verdict) => {
        if ('refused' in verdict) return callback(policy.blocked(verdict.refused), null);
        const servername = opts.servername ?? (isIP(host) ? undefined : host);
        base({ ...opts, hostname: verdict.address, ...(servername ? { servername } : {}) }, callback);
      },
      (err: Error) => callback(err, null),
    );
  };
}
