-- Storage that does not grow per event (docs/design.md#runtime-semantics):
-- * instance_step replaces step_execution, processed_event and workflow_instance.outputs: one row per step attempt,
--   which says whether an event is the answer in flight (status RUNNING, same attempt), a duplicate (the same
--   result_message_id) or stale, and holds the attempt's output. Nothing is written per event beyond that row, and
--   nothing is rewritten per step (the outputs blob grew with the square of the step count).
-- * timers (step timeouts, delays, wait timeouts) are the deadlines of the steps in flight, so there may be several
--   per instance (parallel branches);
-- * instance_signal keeps signals until a wait consumes them, in order;
-- * outbox rows carry their instance, so an instance that ends withdraws its commands not yet published.

CREATE TABLE instance_step (
  id                 bigserial   PRIMARY KEY,
  instance_id        uuid        NOT NULL REFERENCES workflow_instance (id) ON DELETE CASCADE,
  -- The step's name, unique in the Workflow; a compensation is '<step>/compensate'.
  name               text        NOT NULL,
  -- task | parallel | choice | wait | delay (a compensation is a task)
  kind               text        NOT NULL,
  -- The enclosing parallel or choice step's name; NULL at the top level.
  parent             text,
  attempt            integer     NOT NULL,
  -- RUNNING | SUCCEEDED | FAILED | ERROR | TIMED_OUT | CANCELLED
  status             text        NOT NULL,
  -- Tasks: the action their events carry (the compensating command for a compensation) and the command sent.
  action             text,
  command_message_id uuid,
  -- Sends of this step since it started or was retried by hand (bounded by maxDispatches).
  dispatches         integer     NOT NULL DEFAULT 1,
  -- When the step in flight times out (task, wait) or is over (delay); NULL once it ended or without a timeout.
  deadline           timestamptz,
  -- A choice: the case it took ('0', '1', ... or 'otherwise'), evaluated once.
  chosen             text,
  -- The order in which steps of the instance ended (compensation runs in reverse of it, across branches).
  finish_seq         integer,
  -- The message id of the event that ended the attempt: the same event again is a duplicate.
  result_message_id  text,
  -- A result that came after the attempt had ended (timed out, error, cancelled): recorded, not applied.
  late               jsonb,
  started_at         timestamptz NOT NULL DEFAULT now(),
  finished_at        timestamptz,
  output             jsonb,
  error_code         text,
  error_reason       text
);

CREATE INDEX instance_step_instance ON instance_step (instance_id, id);
-- The timer sweep's claim: only steps in flight that have a deadline.
CREATE INDEX instance_step_due ON instance_step (deadline) WHERE deadline IS NOT NULL;

-- The history so far, as it was: compensations become tasks named '<step>/compensate'; the execution in flight
-- keeps its deadline and dispatch count; finished attempts are numbered in the order they finished.
INSERT INTO instance_step (instance_id, name, kind, parent, attempt, status, action, command_message_id, dispatches,
    deadline, finish_seq, started_at, finished_at, output, error_code, error_reason)
  SELECT e.instance_id,
         CASE e.kind WHEN 'COMPENSATION' THEN e.step_name || '/compensate' ELSE e.step_name END,
         'task', NULL, e.attempt, e.status, e.action, e.command_message_id,
         CASE WHEN e.id = i.current_execution_id THEN greatest(i.dispatches, 1) ELSE 1 END,
         CASE WHEN e.id = i.current_execution_id AND e.status = 'RUNNING' THEN i.step_deadline END,
         CASE WHEN e.finished_at IS NOT NULL
              THEN row_number() OVER (PARTITION BY e.instance_id, e.finished_at IS NOT NULL ORDER BY e.finished_at, e.id)
         END,
         e.started_at, e.finished_at, e.output, e.error_code, e.error_reason
  FROM step_execution e JOIN workflow_instance i ON i.id = e.instance_id
  ORDER BY e.id;

DROP TABLE step_execution;
DROP TABLE processed_event;

-- Cancel with {"compensate": true}: the instance compensates and then ends CANCELLED, not COMPENSATED.
ALTER TABLE workflow_instance ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false;
DROP INDEX workflow_instance_due;
ALTER TABLE workflow_instance
  DROP COLUMN outputs,
  DROP COLUMN step_deadline,
  DROP COLUMN current_step_index,
  DROP COLUMN current_execution_id,
  DROP COLUMN dispatches;

CREATE TABLE instance_signal (
  id           bigserial   PRIMARY KEY,
  instance_id  uuid        NOT NULL REFERENCES workflow_instance (id) ON DELETE CASCADE,
  name         text        NOT NULL,
  body         jsonb       NOT NULL,
  received_at  timestamptz NOT NULL DEFAULT now(),
  -- The wait step that consumed it; NULL while it is stored for a wait to come.
  consumed_by  text,
  consumed_at  timestamptz
);

CREATE INDEX instance_signal_stored ON instance_signal (instance_id, id) WHERE consumed_at IS NULL;

ALTER TABLE outbox ADD COLUMN instance_id uuid;
UPDATE outbox SET instance_id = correlation_id::uuid
  WHERE correlation_id ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
CREATE INDEX outbox_instance ON outbox (instance_id);
