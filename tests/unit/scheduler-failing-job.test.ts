import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SandboxClock } from '../../src/schedule/clock.ts';
import { Scheduler, type DueJob } from '../../src/schedule/scheduler.ts';

test(
  'a job that throws during a clock advance runs once in it and is reported; the advance ends',
  { timeout: 20_000 },
  async () => {
    const clock = new SandboxClock();
    const reported: string[] = [];
    const scheduler = new Scheduler(clock, (_err, job) => reported.push(job.id));
    const broken: DueJob = {
      kind: 'quote.expire',
      tenantId: 'sbx_t',
      id: 'quo_broken',
      dueAt: clock.nowMs('sbx_t') + 60_000,
    };
    const fine: DueJob = {
      kind: 'quote.expire',
      tenantId: 'sbx_t',
      id: 'quo_fine',
      dueAt: clock.nowMs('sbx_t') + 120_000,
    };
    const ran: string[] = [];
    let fineDone = false;
    let turns = 0;
    scheduler.register('quote.expire', {
      load: async () => [],
      // The row of a job that threw still owes it: the database hands it back at every turn of the advance.
      due: async () => {
        // Without the fix the advance asks again and again: bounded here, so that it fails instead of hanging.
        if (++turns > 50) throw new Error('the advance keeps running the job that failed');
        return [broken, ...(fineDone ? [] : [fine])];
      },
      run: async (job) => {
        ran.push(job.id);
        if (job.id === broken.id) throw new Error('a row this engine cannot process');
        fineDone = true;
      },
    });
    const result = await scheduler.advance('sbx_t', 3_600_000);
    assert.deepEqual(ran, ['quo_broken', 'quo_fine'], 'each ran once, the later job after the failed one');
    assert.deepEqual(reported, ['quo_broken']);
    assert.equal(result.jobsRun, 2);
    await scheduler.stop();
  },
);
