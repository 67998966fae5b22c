/** Quotes one argument for a POSIX shell: single quotes, with embedded ones closed and escaped. */
export const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * A curl command that POSTs `body` byte for byte with the given headers: "Copy as curl" fills it
 * with the request the engine signed afresh (GET …/deliveries/{id}/signed-request), in every scheme.
 */
export function curlCommand(url: string, headers: Record<string, string>, body: string): string {
  const lines = [
    `curl -X POST ${shellQuote(url)}`,
    ...Object.entries(headers).map(([k, v]) => `-H ${shellQuote(`${k}: ${v}`)}`),
    `--data-binary ${shellQuote(body)}`,
  ];
  return lines.join(' \\\n  ');
}
