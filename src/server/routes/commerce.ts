import type { RouteDef } from '../route.ts';
import type { Services } from '../services.ts';
import { b2bRoutes } from './approvals.ts';
import { catalogRoutes } from './catalog.ts';
import { customerRoutes } from './customers.ts';
import { paymentRoutes } from './payments.ts';
import { payoutRoutes } from './payouts.ts';
import { reportRoutes } from './reports.ts';
import { securityRoutes } from './security.ts';
import { threeDSecureRoutes } from './three-d-secure.ts';
import { marketplaceRoutes } from './vendors.ts';

/**
 * Every commerce area's routes (issue 5): catalog, customers, B2B, payments, marketplace, payouts, reports, security.
 */
export const commerceRoutes = (s: Services): RouteDef[] => [
  ...catalogRoutes(s),
  ...customerRoutes(s),
  ...b2bRoutes(s),
  ...paymentRoutes(s),
  ...threeDSecureRoutes(s),
  ...marketplaceRoutes(s),
  ...payoutRoutes(s),
  ...reportRoutes(s),
  ...securityRoutes(s),
];
