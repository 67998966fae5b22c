-- Replay by filter (issue 31): the DLQ replay job generalised. A job remembers the whole filter it
-- selected its deliveries with (statuses, topic pattern, endpoint, sandbox-time range, ids); topic and
-- endpoint_id stay for the DLQ replays of before, whose filter is null (they replayed dead deliveries).
alter table dlq_replay_jobs add column filter jsonb;
