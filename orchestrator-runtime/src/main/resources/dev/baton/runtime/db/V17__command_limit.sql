-- Concurrency limits per command (docs/design.md#concurrency-limits): commands[].maxInFlight of a WorkerService, as
-- the runtimes see it. The relay's ordinary claims skip a limited command's outbox rows; they are claimed within the
-- limit's capacity only, holding the limit's row (FOR UPDATE SKIP LOCKED) for the claim's transaction, so two
-- replicas never hand out the same capacity.
CREATE TABLE command_limit (
  exchange       text    NOT NULL,
  routing_key    text    NOT NULL,
  namespace      text    NOT NULL,
  service        text    NOT NULL,
  command        text    NOT NULL,
  max_in_flight  integer NOT NULL CHECK (max_in_flight > 0),
  PRIMARY KEY (exchange, routing_key)
);

-- A limited command dispatched and not yet over: taken when its row is claimed, given back (deleted) once its step
-- attempt is no longer running (answered, timed out, cancelled) or its row is gone without a step (withdrawn).
CREATE TABLE command_slot (
  message_id   uuid        PRIMARY KEY,
  exchange     text        NOT NULL,
  routing_key  text        NOT NULL,
  instance_id  uuid        NOT NULL,
  taken_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX command_slot_command ON command_slot (exchange, routing_key);
