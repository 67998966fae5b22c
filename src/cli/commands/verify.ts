import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { verifyWebhook, WebhookVerificationError } from '../../receiver/index.ts';
import { likelyFinding } from '../../receiver/hint.ts';
import { fixForFinding, languageFixes, type ReceiverLanguage } from '../../shared/receiver-fixes.ts';
import { isSchemeName, schemeNames, type SchemeName } from '../../shared/schemes.ts';
import { signatureHeaderName } from '../../shared/signature.ts';
import { CliError } from '../errors.ts';
import { collect } from '../options.ts';
import { formatSpan, printJson, say } from '../output.ts';

interface VerifyFlags {
  secret: string[];
  header: string[];
  scheme?: string;
  bodyFile: string;
  tolerance: string;
  now?: string;
  language?: string;
  json?: boolean;
}

const languages = Object.keys(languageFixes) as ReceiverLanguage[];
const timeCodes = new Set(['stale_timestamp', 'future_timestamp']);

function readBody(file: string): Buffer {
  try {
    // `-` reads stdin; the bytes are verified as they are, never decoded and re-encoded.
    return readFileSync(file === '-' ? 0 : file);
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function seconds(value: string, flag: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new CliError(`${flag} must be a number of seconds ≥ 0, not ${value}`);
  return n;
}

/**
 * The headers given: each --header is "Name: value" (any header, Standard Webhooks' three included) or,
 * bare, the X-Service-Signature value; and the text the doctor reads (the value, or the lines).
 */
function headersOf(values: string[]): { headers: Record<string, string>; doctorText: string } {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const named = /^([A-Za-z][\w-]*)\s*:\s*(.*)$/s.exec(value.trim());
    const [name, text] = named ? [named[1].toLowerCase(), named[2]] : [signatureHeaderName.toLowerCase(), value];
    headers[name] =
      headers[name] === undefined ? text : `${headers[name]}${name === 'webhook-signature' ? ' ' : ','}${text}`;
  }
  const standard = Object.keys(headers).some((n) => n.startsWith('webhook-'));
  const doctorText = standard
    ? ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((n) => `${n}: ${headers[n] ?? ''}`).join('\n')
    : (headers[signatureHeaderName.toLowerCase()] ?? '');
  return { headers, doctorText };
}

/**
 * `sandbay verify --secret S --header H --body-file F [--scheme …]`: the receiver toolkit's check, offline (SPEC §6,
 * §11).
 */
export function verifyCommand(program: Command): void {
  program
    .command('verify')
    .description('check a webhook signature offline, as a receiver would (exit 0 valid, 1 invalid)')
    .requiredOption(
      '--secret <secret>',
      'the endpoint secret, whsec_… (repeat for every live secret); for ed25519 (v1a) its public key, whpk_…',
      collect,
    )
    .requiredOption(
      '--header <value>',
      'the X-Service-Signature value, or "Name: value" (repeat: webhook-id, webhook-timestamp, webhook-signature)',
      collect,
    )
    .option('--scheme <name>', `require one scheme instead of reading it off the headers: ${schemeNames.join(', ')}`)
    .requiredOption('--body-file <file>', 'the raw request body (- for stdin)')
    .option('--tolerance <seconds>', 'how far the signature time may be from now, either way', '300')
    .option('--now <unix>', 'check as of this unix time instead of the real clock')
    .option('--language <name>', `say the fix in your receiver's language: ${languages.join(', ')}`)
    .option('--json', 'print machine-readable JSON')
    .action((flags: VerifyFlags) => {
      const now = flags.now === undefined ? Math.floor(Date.now() / 1000) : seconds(flags.now, '--now');
      const language = flags.language?.toLowerCase() as ReceiverLanguage | undefined;
      if (language && !languages.includes(language))
        throw new CliError(`--language must be one of ${languages.join(', ')}, not ${flags.language}`);
      if (flags.scheme !== undefined && !isSchemeName(flags.scheme))
        throw new CliError(`--scheme must be one of ${schemeNames.join(', ')}, not ${flags.scheme}`);
      const scheme = flags.scheme as SchemeName | undefined;
      const payload = readBody(flags.bodyFile);
      const toleranceSeconds = seconds(flags.tolerance, '--tolerance');
      const { headers, doctorText } = headersOf(flags.header);
      if (scheme && scheme !== 'sandbay' && !headers['webhook-signature'])
        throw new CliError(
          `--scheme ${scheme} needs --header 'webhook-id: …', --header 'webhook-timestamp: …' and --header 'webhook-signature: …'`,
        );
      try {
        const envelope = verifyWebhook<unknown, { topic?: string; type?: string; deliveryId?: string }>({
          payload,
          headers,
          secret: flags.secret,
          scheme,
          toleranceSeconds,
          now,
        });
        if (flags.json) return printJson({ valid: true, envelope });
        const signedAt = Number(
          headers['webhook-timestamp'] ?? /t=(\d+)/.exec(headers[signatureHeaderName.toLowerCase()] ?? '')?.[1],
        );
        const what = envelope.deliveryId
          ? `${envelope.topic} ${envelope.deliveryId}`
          : `${envelope.type} ${headers['webhook-id']}`;
        say(`valid: ${what}, signed ${formatSpan(now - signedAt)} ${now >= signedAt ? 'ago' : 'ahead'}`);
      } catch (err) {
        if (err instanceof WebhookVerificationError) {
          // The receiver doctor's likeliest cause (shared code): the inspector's words, with the fix in
          // the --language given (else in every language's words), not the Node kit's Node-only fix.
          const timing = err.reason === 'timestamp_outside_tolerance';
          const found = likelyFinding(
            payload,
            doctorText,
            flags.secret,
            now,
            toleranceSeconds,
            (code) => timeCodes.has(code) === timing,
          );
          const fix =
            found &&
            fixForFinding(found.code, language ? { language } : undefined, language ? undefined : found.form?.language);
          const base = err.message.split(' Likely cause: ')[0];
          const hint = found ? `${found.title}. ${found.detail}` : null;
          if (flags.json)
            printJson({
              valid: false,
              reason: err.reason,
              message: base,
              cause: found?.code ?? null,
              hint,
              fix: fix ?? null,
            });
          throw new CliError(
            `invalid: ${err.reason} — ${base}${hint ? ` Likely cause: ${hint}` : ''}${fix ? ` Fix: ${fix}` : ''}`,
          );
        }
        if (err instanceof SyntaxError) throw new CliError('the signature matches but the body is not JSON');
        throw err;
      }
    });
}
