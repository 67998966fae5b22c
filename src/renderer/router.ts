import { useSyncExternalStore } from 'react';

/** The inspector's pages; deep links (SPEC §8) map onto them one to one. */
export type Route =
  | { view: 'home' }
  | { view: 'portal' }
  | { view: 'deliveries' | 'dlq'; sandboxId: string; deliveryId?: string }
  | { view: 'endpoints' | 'settings'; sandboxId: string }
  | { view: 'not-found'; path: string };

const sandboxPages = new Set(['deliveries', 'dlq', 'endpoints', 'settings']);

/** Reads a path like /sandboxes/sbx_1/deliveries/dlv_2. */
function parseRoute(pathname: string): Route {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { view: 'home' };
  if (parts[0] === 'portal' && parts[1] === 'sandbox' && parts.length === 2) return { view: 'portal' };
  if (parts[0] === 'sandboxes' && parts[1] && sandboxPages.has(parts[2])) {
    const [, sandboxId, page, deliveryId] = parts;
    if ((page === 'deliveries' || page === 'dlq') && parts.length <= 4) return { view: page, sandboxId, deliveryId };
    if ((page === 'endpoints' || page === 'settings') && parts.length === 3) return { view: page, sandboxId };
  }
  return { view: 'not-found', path: pathname };
}

/** The path of a sandbox page (and of one delivery in it). */
export function pathOf(
  view: 'deliveries' | 'dlq' | 'endpoints' | 'settings',
  sandboxId: string,
  deliveryId?: string,
): string {
  return `/sandboxes/${encodeURIComponent(sandboxId)}/${view}${deliveryId ? `/${encodeURIComponent(deliveryId)}` : ''}`;
}

const changeEvent = 'sandbay:navigate';

/** Client-side navigation (links stay real links, so they open in new tabs too). */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === window.location.pathname + window.location.search) return;
  if (options.replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  window.dispatchEvent(new Event(changeEvent));
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('popstate', onChange);
  window.addEventListener(changeEvent, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(changeEvent, onChange);
  };
}

/** The current route; re-renders on navigation. */
export function useRoute(): Route {
  const pathname = useSyncExternalStore(subscribe, () => window.location.pathname);
  return parseRoute(pathname);
}
