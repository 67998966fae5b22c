import { packageVersion } from '../shared/node/package-root.ts';
import { OAuthClients } from '../domain/oauth/client-registry.ts';
import { Catchers } from '../webhooks/catcher/catchers.ts';
import type { AuthConfig } from './auth/authenticate.ts';
import type { RouteDef } from './route.ts';
import { catcherRoutes } from './routes/catcher.ts';
import { checkRoutes } from './routes/checks.ts';
import { clockRoutes } from './routes/clock.ts';
import { jobRoutes } from './routes/jobs.ts';
import { commerceRoutes } from './routes/commerce.ts';
import { deliveryCompareRoutes } from './routes/delivery-compare.ts';
import { deliveryExportRoutes } from './routes/delivery-export.ts';
import { eventRoutes } from './routes/events.ts';
import { healthRoutes } from './routes/health.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { metaRoutes } from './routes/meta.ts';
import { oauthClientRoutes } from './routes/oauth-clients.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { orderRoutes } from './routes/orders.ts';
import { portableRoutes } from './routes/portable.ts';
import { sandboxRoutes, type SandboxCreation } from './routes/sandboxes.ts';
import { sessionRoutes } from './routes/session.ts';
import { topicRoutes, webhooksSection } from './routes/topics.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { endpointEnableRoutes } from './routes/endpoints-enable.ts';
import type { Services } from './services.ts';
import { defaultMaxImportBytes } from './upload.ts';

interface RouteTableOptions {
  instanceId: string;
  /** A worker of `serve --workers N`: its metrics are the primary's sum over the cluster. */
  worker: boolean;
  shared: boolean;
  creation: SandboxCreation;
  /** Known once the server listens (the cookie names carry the port); read only while serving. */
  auth: () => AuthConfig;
  maxImportBytes?: number;
}

/** Every route the server serves, in the router's order; the OpenAPI document is built from the same list. */
export function routeTable(services: Services, options: RouteTableOptions): RouteDef[] {
  const { shared, creation, auth } = options;
  const routes: RouteDef[] = [];
  routes.push(
    ...sessionRoutes(services, { shared, auth, openSandboxCreation: creation.open }),
    ...sandboxRoutes(services, creation),
    ...portableRoutes(services, { maxImportBytes: options.maxImportBytes ?? defaultMaxImportBytes, creation }),
    ...oauthClientRoutes(services, new OAuthClients(services.db, services.tokens)),
    ...oauthRoutes(services, { shared, auth }),
    ...orderRoutes(services),
    ...clockRoutes(services),
    ...jobRoutes(services),
    ...topicRoutes(),
    ...deliveryExportRoutes(services),
    ...webhookRoutes(services),
    ...endpointEnableRoutes(services),
    ...deliveryCompareRoutes(services),
    ...checkRoutes(services),
    ...eventRoutes(services),
    ...commerceRoutes(services),
    ...catcherRoutes(services, new Catchers(services.db, services.clock, services.baseUrl)),
    ...healthRoutes({
      instanceId: options.instanceId,
      version: packageVersion(),
      database: () => services.webhooks.databaseState(),
    }),
    ...metricsRoutes(services.db, options.worker),
    ...metaRoutes(
      () => routes,
      () => ({ webhooks: webhooksSection() }),
      services.baseUrl,
    ),
  );
  return routes;
}
