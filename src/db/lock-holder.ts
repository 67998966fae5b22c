import type { Queryable } from './database.ts';

interface Holder {
  pid: number;
  application_name: string | null;
  addr: string | null;
  backend_start: Date | null;
}

/**
 * Why a session advisory lock could not be had: the message names the backend holding it (an advisory
 * lock on hashtextextended(key, 0) is classid = its high 32 bits, objid = its low ones), so the operator
 * can see which engine it is and end it if it is stuck.
 */
export async function describeLockHolder(query: Queryable['query'], key: string): Promise<string> {
  const rows = await query<Holder>(
    `with k as (select hashtextextended($1, 0) as h)
     select a.pid, a.application_name, host(a.client_addr) as addr, a.backend_start
       from k, pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.objsubid = 1
        and l.database = (select oid from pg_database where datname = current_database())
        and l.classid::text::bigint = (k.h >> 32) & 4294967295 and l.objid::text::bigint = k.h & 4294967295`,
    [key],
  ).catch(() => [] as Holder[]);
  const holder = rows[0];
  const who = holder
    ? `backend pid ${holder.pid} (application ${holder.application_name || 'unnamed'}${holder.addr ? `, client ${holder.addr}` : ''}` +
      `${holder.backend_start ? `, connected since ${holder.backend_start.toISOString()}` : ''})`
    : 'a session that has since let go';
  return (
    `could not take the lock ${key}: it is held by ${who}; if that engine is stuck, stop it or end its session ` +
    `(select pg_terminate_backend(${holder?.pid ?? '<pid>'}))`
  );
}
