import { join } from 'node:path';
import { packageRoot } from '../shared/node/package-root.ts';

export const migrationsDir = () => join(packageRoot(), 'src', 'db', 'migrations');
export const seedDir = () => join(packageRoot(), 'seed');
