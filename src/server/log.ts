/** Where the server writes. Every line goes through redact() first. */
export interface Logger {
  info(line: string): void;
  warn(line: string): void;
  error(line: string): void;
}

// Defence in depth: code never logs a secret on purpose, and anything shaped like one
// (tokens, client and webhook secrets, ed25519 signing keys, codes, the admin key) is masked if it
// slips in; Standard Webhooks secrets and keys are base64, so + / = belong to them too.
const secretShapes = /\b(sat|srt|sac|cs|whsec|whsk|sbk)_[A-Za-z0-9+/=]{6,}/g;

export function redact(line: string, extraSecrets: readonly string[] = []): string {
  let out = line.replace(secretShapes, (_m, prefix: string) => `${prefix}_…redacted`);
  for (const s of extraSecrets) if (s) out = out.split(s).join('…redacted');
  return out;
}

export function consoleLogger(extraSecrets: () => readonly string[] = () => []): Logger {
  const write = (stream: NodeJS.WriteStream, level: string) => (line: string) =>
    stream.write(`${new Date().toISOString()} ${level} ${redact(line, extraSecrets())}\n`);
  return {
    info: write(process.stdout, 'info'),
    warn: write(process.stderr, 'warn'),
    error: write(process.stderr, 'error'),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
