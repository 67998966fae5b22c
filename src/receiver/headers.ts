/** Request headers as receivers hold them: Node's object (string | string[]), a Fetch Headers, or a plain record. */
export type HeaderSource =
  { get(name: string): string | null } | Record<string, string | readonly string[] | undefined | null>;

/** One header of a request, case-insensitively; repeated values are joined with a comma, as HTTP allows. */
export function headerOf(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | readonly string[] | undefined | null>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(',') : ((value as string | null | undefined) ?? undefined);
}
