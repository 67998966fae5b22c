import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import type { OutboundPolicy } from './policy.ts';

type Connector = buildConnector.connector;
type Callback = buildConnector.Callback;

/**
 * An undici connector that asks the policy before every connection: the host is resolved once,
 * every address it gave is judged, and sockets are opened to those addresses only, in the
 * resolver's order, the next one tried when one cannot be reached (`localhost` may give ::1 first
 * to a receiver listening on 127.0.0.1). The name is kept for TLS: SNI and the certificate check.
 * A refusal fails the request before any socket exists, so no open or closed port can be told
 * from another. `base` opens the socket; tests pass one that records the address instead.
 */
export function policyConnector(
  policy: OutboundPolicy,
  options: buildConnector.BuildOptions = {},
  base: Connector = buildConnector(options),
): Connector {
  return (opts, callback) => {
    const host = opts.hostname.replace(/^\[|\]$/g, '');
    const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
    policy.vet(host, port).then(
      (verdict) => {
        if ('refused' in verdict) return callback(policy.blocked(verdict.refused), null);
        const servername = opts.servername ?? (isIP(host) ? undefined : host);
        const attempt = (i: number) => {
          const next: Callback = (...args) => {
            if (args[0] && i + 1 < verdict.addresses.length) return attempt(i + 1);
            callback(...args);
          };
          base({ ...opts, hostname: verdict.addresses[i], ...(servername ? { servername } : {}) }, next);
        };
        attempt(0);
      },
      (err: Error) => callback(err, null),
    );
  };
}
