/** How docs/portable.md's manifest describes one table: what is exported, kept local, or secret. */

/** What an import does with a secret column of a file exported without secrets (its value is null there). */
type SecretPolicy =
  /** A new webhook secret (whsec_…): the endpoint signs with it from then on, and the report says so. */
  | 'new-webhook-secret'
  /** An empty string: the value only served the original (the secret a receiver check signed with). */
  | 'empty'
  /** Null: the value only served the original (an invitation's token hash: that invitation is then void). */
  | 'null'
  /** A new ed25519 signing key (whsk_…): the endpoint's public key changes with its secret (reported renewed). */
  | 'new-signing-key';

export interface PortableTable {
  table: string;
  /** Exported as they are (tenant_id never is: the importing sandbox has its own id). */
  columns: readonly string[];
  /** Exported only with secrets (--include-secrets); otherwise written as null and replaced on import. */
  secrets?: Readonly<Record<string, SecretPolicy>>;
  /** Not exported, with why: the importing database fills them (sequences, leases, caches). */
  local?: Readonly<Record<string, string>>;
  /**
   * Columns whose value only means something in its own database: `out` is what the file carries (an
   * SQL expression over the exported row `t`), `in` what the import writes (an SQL expression over the
   * file's row `f`; default the file's value as it is), and `afterImport` may fix it up afterwards.
   */
  portable?: Readonly<Record<string, { out: string; in?: string }>>;
  /** Export order, which is also insertion order on import (lists ordered by insertion keep their order). */
  order: readonly string[];
  /** An SQL expression over the exported row `t` sorted by before `order` (a list's commit position). */
  sortKey?: string;
  /** SQL run once every table's rows are in ($1 = the new sandbox id): fixes up `portable` columns. */
  afterImport?: string;
}

/** The columns an import writes for a table, in file order: exported, secret and portable ones. */
export const importedColumns = (t: PortableTable): string[] => [
  ...t.columns,
  ...Object.keys(t.secrets ?? {}),
  ...Object.keys(t.portable ?? {}),
];
