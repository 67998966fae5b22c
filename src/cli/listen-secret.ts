import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The signing secret `listen` reuses for a sandbox across runs, as the Stripe CLI does, so a receiver keeps the
 * secret it was configured with: kept per server and sandbox in the user's Sandbay data dir (0600, like the
 * admin key beside it). `--new-secret` replaces it.
 */
export class ListenSecrets {
  private readonly file: string;

  /** `dataDir`: the client's (--data-dir, SANDBAY_DATA_DIR, else the platform's). */
  constructor(dataDir: string) {
    this.file = join(dataDir, 'listen-secrets.json');
  }

  private read(): Record<string, string> {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8'));
      return typeof parsed === 'object' && parsed !== null ? parsed : {};
    } catch {
      return {}; // none yet, or unreadable: listen makes a new one and writes it
    }
  }

  get(server: string, sandbox: string): string | undefined {
    const secret = this.read()[`${server} ${sandbox}`];
    return typeof secret === 'string' && secret.startsWith('whsec_') ? secret : undefined;
  }

  set(server: string, sandbox: string, secret: string): void {
    const all = { ...this.read(), [`${server} ${sandbox}`]: secret };
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileSync(this.file, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    chmodSync(this.file, 0o600);
  }
}
