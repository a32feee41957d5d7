-- Commands the broker refused (docs/design.md#runtime-semantics, "refused commands fail fast"): over its
-- max_message_size, not permitted, unroutable for good. The relay keeps the broker's reason here, sets the row aside
-- for ever (next_attempt_at 'infinity': no claim takes it) and hands it to the engine, which deletes the row and fails
-- the attempt that sent it, in the instance's transaction. NULL for every other row.
ALTER TABLE outbox ADD COLUMN refused text;

-- When the broker first returned the command unroutable (no queue bound): it counts as refused once that has lasted
-- long enough for a WorkerService being declared to have its bindings.
ALTER TABLE outbox ADD COLUMN unroutable_since timestamptz;

-- Published, but the broker's confirm did not come while the relay held the row (a memory or disk alarm blocked
-- publishers): the command may reach a worker once the alarm clears, so a cancel that withdraws the row must not
-- take the task for one that never ran.
ALTER TABLE outbox ADD COLUMN in_doubt boolean NOT NULL DEFAULT false;

-- The engine's search for refused rows: a handful at most, whatever the outbox holds.
CREATE INDEX outbox_refused ON outbox (id) WHERE refused IS NOT NULL;
