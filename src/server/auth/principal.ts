import { hasScope } from '../../shared/scopes.ts';

/** Who is calling: a sandbox token, the admin key (acting on a sandbox or not), or nobody. */
export interface Principal {
  kind: 'anonymous' | 'token' | 'admin';
  /** The sandbox acted on; set for tokens and for the admin key with Sandbay-Sandbox. */
  tenantId?: string;
  scopes: ReadonlySet<string>;
}

export const anonymous: Principal = { kind: 'anonymous', scopes: new Set() };

export function can(principal: Principal, scope: string): boolean {
  return principal.kind === 'admin' || hasScope(principal.scopes, scope);
}

/** The sandbox a sandbox-scoped route acts on (auth guarantees it is set). */
export function tenantOf(principal: Principal): string {
  if (!principal.tenantId) throw new Error('route reached without a sandbox');
  return principal.tenantId;
}
