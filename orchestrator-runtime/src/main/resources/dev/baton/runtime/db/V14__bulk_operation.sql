-- Bulk operations (docs/design.md#interfaces, POST /api/v1/operations): an action on every instance a search finds.
-- Stored, so an operation carries on after a restart from where it stopped (its cursor: the last instance it acted on,
-- newest first as the search pages); `upto` is its creation time, so instances started after it are not part of it.
-- A runtime takes an operation for a lease and works one page at a time; another may take it once the lease lapses.
CREATE TABLE bulk_operation (
  id              uuid        PRIMARY KEY,
  action          text        NOT NULL CHECK (action IN ('cancel', 'retry', 'signal')),
  filter          jsonb       NOT NULL,
  compensate      boolean     NOT NULL DEFAULT false,
  signal          text,
  body            jsonb,
  upto            timestamptz NOT NULL,
  state           text        NOT NULL CHECK (state IN ('RUNNING', 'DONE')),
  matched         bigint      NOT NULL,
  done            bigint      NOT NULL DEFAULT 0,
  failed          bigint      NOT NULL DEFAULT 0,
  last_failure    text,
  cursor_at       timestamptz,
  cursor_id       uuid,
  leased_until    timestamptz,
  created_by      text        NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  finished_at     timestamptz
);

-- The runners' search for work: only the operations still running.
CREATE INDEX bulk_operation_running ON bulk_operation (created_at) WHERE state = 'RUNNING';
