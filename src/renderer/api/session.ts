/** What the desktop shell's preload exposes (absent in a plain browser). */
declare global {
  interface Window {
    sandbay?: { apiBase: string; adminKey: string };
  }
}

const keyStorage = 'sandbay.adminKey';

export interface Session {
  apiBase: string;
  /** null when the page was opened without the key: the admin cookie may still let it in. */
  adminKey: string | null;
  /** The key came in this page's URL, so the server has just set the admin cookie. */
  cookieFresh: boolean;
}

/**
 * The admin key comes from the desktop preload, or from `?key=` in the ready URL; it is kept
 * in sessionStorage for this tab and removed from the address bar (SPEC §8, like Jupyter).
 */
export function loadSession(): Session {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('key');
  if (fromUrl) {
    sessionStorage.setItem(keyStorage, fromUrl);
    url.searchParams.delete('key');
    history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }
  const bridge = window.sandbay;
  return {
    apiBase: bridge?.apiBase || window.location.origin,
    adminKey: bridge?.adminKey || fromUrl || sessionStorage.getItem(keyStorage),
    cookieFresh: Boolean(fromUrl),
  };
}

/** Reloads this page with a pasted key in the URL, so the server sets the admin cookie too. */
export function signInWithKey(key: string): void {
  window.location.replace(`${window.location.pathname}?key=${encodeURIComponent(key.trim())}`);
}

/** Whether the server takes this admin key (asked before reloading with it, so a typo is told at once). */
export async function keyAccepted(key: string): Promise<boolean> {
  const res = await fetch(`${window.sandbay?.apiBase || window.location.origin}/api/v1/sandboxes?limit=1`, {
    headers: { authorization: `Bearer ${key.trim()}`, accept: 'application/json' },
    credentials: 'omit',
  });
  return res.ok;
}

/** Drops a refused key from this tab's storage, so a reload does not try it again. */
export function forgetKey(): void {
  sessionStorage.removeItem(keyStorage);
}
