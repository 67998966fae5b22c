import pg from 'pg';

/**
 * Result parsers for node-postgres, per pool (never the global pg.types, which other code in the
 * process may share), matching what the PGlite adapter returns:
 * - int8 (and int8[]) as numbers: our amounts are minor units far below 2^53;
 * - date as its plain 'YYYY-MM-DD' text (a Date would be midnight in the process's TZ, a day off east of UTC);
 * - timestamp without time zone read as UTC, as PGlite does (node-postgres would read it in the local TZ);
 * - timestamptz as Date and numeric as text, node-postgres' defaults and PGlite's too.
 */
export function sandbayTypes(): pg.CustomTypesConfig {
  const types = new pg.TypeOverrides();
  const { INT8, DATE, TIMESTAMP, TIMESTAMPTZ } = pg.types.builtins;
  const INT8_ARRAY = 1016 as typeof INT8; // _int8, absent from pg-types' list of builtins
  const int8Array = pg.types.getTypeParser(INT8_ARRAY, 'text') as (value: string) => (string | null)[];
  const timestamptz = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (value: string) => Date;
  types.setTypeParser(INT8, 'text', (value: string) => Number(value));
  types.setTypeParser(INT8_ARRAY, 'text', (value: string) =>
    int8Array(value).map((v) => (v === null ? null : Number(v))),
  );
  types.setTypeParser(DATE, 'text', (value: string) => value);
  types.setTypeParser(TIMESTAMP, 'text', (value: string) => timestamptz(`${value}+00`));
  return types;
}
