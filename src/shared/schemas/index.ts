// Every response schema shared by the server and the inspector, for the places that want them all.
export * from './catchers.ts';
export * from './checks.ts';
export * from './common.ts';
export * from './comparison.ts';
export * from './jobs.ts';
export * from './oauth-clients.ts';
export * from './payments.ts';
export * from './sandbox.ts';
export * from './webhooks.ts';
