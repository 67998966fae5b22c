/**
 * whsec_••••••••abcd: enough to tell secrets apart, never enough to use one. The ten characters
 * shown (six of prefix, four at the end) are shown only when at least as many stay hidden; a
 * shorter secret (one a user typed, say) is masked whole. Sandbay's own are 38 characters or more.
 */
export const maskSecret = (secret: string) =>
  secret.length < 20 ? '••••••••' : `${secret.slice(0, 6)}••••••••${secret.slice(-4)}`;
