// Access tokens are only ever shown by the API once (at creation or from the token endpoint),
// so the portal keeps the latest one per sandbox for this tab, until it expires.

const key = (sandboxId: string) => `sandbay.token.${sandboxId}`;

/** Keeps a sandbox's latest access token for this tab, until it expires. */
export function rememberToken(sandboxId: string, token: string, expiresInSeconds: number): void {
  sessionStorage.setItem(key(sandboxId), JSON.stringify({ token, expiresAt: Date.now() + expiresInSeconds * 1000 }));
}

/** The remembered token, or null when there is none or it has expired. */
export function rememberedToken(sandboxId: string): string | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(key(sandboxId)) ?? 'null') as {
      token: string;
      expiresAt: number;
    } | null;
    return saved && saved.expiresAt > Date.now() + 60_000 ? saved.token : null;
  } catch {
    return null;
  }
}
