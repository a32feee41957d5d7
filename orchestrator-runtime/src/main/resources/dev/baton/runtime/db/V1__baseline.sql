-- The runtime's state (docs/design.md#runtime-semantics): definitions by revision, instances, one row per step attempt, the outbox of
-- commands not yet confirmed by the broker, and the ids of events already applied.

-- A Workflow spec as it was when an instance started. Revision counts distinct specs per (namespace, name); it is
-- not metadata.generation, which restarts at 1 on an in-memory dev API server while this table persists.
CREATE TABLE workflow_definition (
  namespace   text        NOT NULL,
  name        text        NOT NULL,
  revision    integer     NOT NULL,
  spec        jsonb       NOT NULL,
  spec_hash   text        NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace, name, revision),
  UNIQUE (namespace, name, spec_hash)
);

CREATE TABLE workflow_instance (
  id                    uuid        PRIMARY KEY,
  namespace             text        NOT NULL,
  workflow              text        NOT NULL,
  revision              integer     NOT NULL,
  business_key          text        NOT NULL,
  -- RUNNING | SUCCEEDED | FAILED | COMPENSATING | COMPENSATED | CANCELLED
  status                text        NOT NULL,
  -- FORWARD | COMPENSATION: which way the instance is walking its steps
  phase                 text        NOT NULL,
  -- The step in flight, or where the instance stopped (so a retry knows what to send again).
  current_step_index    integer     NOT NULL,
  current_step_name     text        NOT NULL,
  current_execution_id  bigint,
  -- The dispatch attempt in flight (baton-attempt); events of other attempts are stale.
  attempt               integer     NOT NULL,
  -- Dispatches of the current step since it started or was retried by hand (bounded by maxDispatches).
  dispatches            integer     NOT NULL,
  step_started_at       timestamptz,
  -- When the step in flight times out; NULL without a timeout or when nothing is in flight.
  step_deadline         timestamptz,
  input                 jsonb       NOT NULL,
  outputs               jsonb       NOT NULL DEFAULT '{}'::jsonb,
  last_error            jsonb,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  finished_at           timestamptz,
  UNIQUE (namespace, workflow, business_key),
  FOREIGN KEY (namespace, workflow, revision) REFERENCES workflow_definition (namespace, name, revision)
);

-- Listing by workflow and status, newest first; also serves the per-status counts of the metrics.
CREATE INDEX workflow_instance_list ON workflow_instance (namespace, workflow, status, created_at DESC);
-- The timeout poller's claim: only instances with a step in flight that can time out.
CREATE INDEX workflow_instance_due ON workflow_instance (step_deadline) WHERE step_deadline IS NOT NULL;
-- Retention: finished instances by age (finished_at is NULL while an instance is active).
CREATE INDEX workflow_instance_finished ON workflow_instance (finished_at) WHERE finished_at IS NOT NULL;
-- Unfinished instances by workflow: consumers stay up for deleted Workflows until these are done.
CREATE INDEX workflow_instance_active ON workflow_instance (workflow) WHERE finished_at IS NULL;

CREATE TABLE step_execution (
  id                  bigserial   PRIMARY KEY,
  instance_id         uuid        NOT NULL REFERENCES workflow_instance (id) ON DELETE CASCADE,
  step_index          integer     NOT NULL,
  step_name           text        NOT NULL,
  -- STEP | COMPENSATION
  kind                text        NOT NULL,
  -- The step's action, or the compensating command: what the events of this execution carry.
  action              text        NOT NULL,
  attempt             integer     NOT NULL,
  -- RUNNING | SUCCEEDED | FAILED | ERROR | TIMED_OUT | CANCELLED
  status              text        NOT NULL,
  command_message_id  uuid        NOT NULL,
  started_at          timestamptz NOT NULL DEFAULT now(),
  finished_at         timestamptz,
  output              jsonb,
  error_code          text,
  error_reason        text
);

CREATE INDEX step_execution_instance ON step_execution (instance_id, id);

-- Commands written in the same transaction as the state change that asks for them, published afterwards with
-- confirms and then deleted. message_id is fixed here, so a re-send after a crash carries the same id.
CREATE TABLE outbox (
  id               bigserial   PRIMARY KEY,
  message_id       uuid        NOT NULL,
  exchange         text        NOT NULL,
  routing_key      text        NOT NULL,
  correlation_id   text,
  headers          jsonb       NOT NULL,
  body             bytea       NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  attempts         integer     NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  last_error       text
);

-- Rows set aside after an unroutable publish; fresh rows are found through the primary key.
CREATE INDEX outbox_backoff ON outbox (next_attempt_at) WHERE attempts > 0;

-- Ids of events already applied: a redelivered event is recognised before any state is read.
CREATE TABLE processed_event (
  message_id    text        PRIMARY KEY,
  instance_id   uuid        NOT NULL,
  processed_at  timestamptz NOT NULL DEFAULT now()
);

-- Append-only by time: a BRIN index serves the retention purge at almost no cost on the hot path.
CREATE INDEX processed_event_age ON processed_event USING brin (processed_at);
