import { useEffect } from 'react';
import { ApiProblem } from '../../api/client.ts';
import type { Delivery, LiveSecret } from '../../../shared/api-types.ts';
import { secretsKey, useDetail, type SigningSecrets } from '../../store/detail.ts';

/** The live secrets that sign a delivery (loaded on first use), or the problem that kept them away. */
export function useSigningSecrets(delivery: Delivery): SigningSecrets | ApiProblem | undefined {
  const key = secretsKey(delivery);
  const value = useDetail((s) => s.secrets[key]);
  useEffect(() => {
    // Cannot reject: loadSecrets() catches: the error is stored as the value.
    void useDetail.getState().loadSecrets(delivery);
    // Keyed by endpoint: the delivery object changes on every refresh, the secrets that sign it do not.
  }, [key]);
  return value;
}

/** The live secrets, or an empty list while they load or failed. */
export const liveSecrets = (value: SigningSecrets | ApiProblem | undefined): LiveSecret[] =>
  value && !(value instanceof ApiProblem) ? value.secrets : [];

/** The secret strings, or an empty list while they load or failed. */
export const secretValues = (value: SigningSecrets | ApiProblem | undefined): string[] =>
  liveSecrets(value).map((s) => s.secret);

/** The whpk_ public keys of the live secrets that have one (ed25519), in order. */
export const publicKeyValues = (value: SigningSecrets | ApiProblem | undefined): string[] =>
  liveSecrets(value).flatMap((s) => (s.publicKey ? [s.publicKey] : []));
