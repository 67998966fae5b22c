// `npm run bench`: runs each section in turn and prints one table. Sections are modules
// exporting `run(): Promise<BenchRow[]>`; pass section names to run only some
// (e.g. `npm run bench -- webhooks`).
import { printTable, type BenchRow } from './table.ts';

const sections = [
  'server',
  'webhooks',
  'delivery-sql',
  'slow-readers',
  'check',
  'ui',
  'postgres',
  'team',
  'portable',
  'faults',
  'memory',
];
const wanted = process.argv.slice(2).filter((a) => sections.includes(a));
const rows: BenchRow[] = [];
for (const name of wanted.length ? wanted : sections) {
  const mod = (await import(`./${name}.ts`)) as { run(): Promise<BenchRow[]> };
  process.stderr.write(`bench: ${name}…\n`);
  rows.push(...(await mod.run()));
}
printTable(rows);
process.exit(0);
