/** Scope areas (SPEC §3); each has :read and :write, and :write implies :read. */
export const scopeAreas = [
  'orders',
  'payments',
  'catalog',
  'customers',
  'b2b',
  'vendors',
  'payouts',
  'reports',
  'security',
  'webhooks',
  'sandbox',
] as const;

export const allScopes: string[] = scopeAreas.flatMap((area) => [`${area}:read`, `${area}:write`]);

export const isKnownScope = (scope: string) => allScopes.includes(scope);

/** True when the granted scopes include `needed` (or the :write that implies a :read). */
export function hasScope(granted: ReadonlySet<string>, needed: string): boolean {
  if (granted.has(needed)) return true;
  return needed.endsWith(':read') && granted.has(`${needed.slice(0, -5)}:write`);
}
