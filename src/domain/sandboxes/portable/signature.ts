import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SandboxFileEnd } from '../../../shared/sandbox-file.ts';

/**
 * Sandbox files this Sandbay exported carry an HMAC-SHA256 of their SHA-256 under a key of its
 * database (meta `file_signing_key`, one per data dir, shared by the engines of a team): an import
 * that verifies it knows the file is as this Sandbay wrote it. Another Sandbay's file, or one edited
 * and re-hashed, is "unsigned": it may still be imported (it is checked like any input), but nothing
 * vouches for it. The SHA-256 alone detects corruption, not tampering (SPEC §12).
 */
export class FileSignature {
  constructor(private readonly key: string) {}

  sign(sha256: string): string {
    return createHmac('sha256', this.key).update(sha256).digest('hex');
  }

  verify(end: SandboxFileEnd['end']): boolean {
    if (typeof end.hmac !== 'string' || !/^[0-9a-f]{64}$/.test(end.hmac)) return false;
    return timingSafeEqual(Buffer.from(this.sign(end.sha256), 'hex'), Buffer.from(end.hmac, 'hex'));
  }
}
