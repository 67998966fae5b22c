import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../shared/node/package-root.ts';

export const migrationsDir = () => join(packageRoot(), 'src', 'db', 'migrations');
export const seedDir = () => join(packageRoot(), 'seed');

/** Sandbay's own version (package.json), recorded with each migration it applies. */
export const packageVersion = (): string => JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).version;
