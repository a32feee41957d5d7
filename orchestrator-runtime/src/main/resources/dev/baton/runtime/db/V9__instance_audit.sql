-- Who did what to an instance (docs/design.md#security, "Audit"): every start, signal, retry, cancel and dead-letter
-- replay, with the user the request was authenticated as (a TokenReview's user name, static-token, anonymous), when
-- and from which address. Written in the transaction of the action itself, so an action and its entry commit
-- together; a replay (on the broker, not in this database) once the broker confirmed it. Never a token.

-- Who started the instance, on its own row: the list endpoints show it without reading the audit. Null for instances
-- started before this migration. No default: adding the column rewrites nothing.
ALTER TABLE workflow_instance ADD COLUMN created_by text;

CREATE TABLE instance_audit (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  instance_id  uuid        NOT NULL REFERENCES workflow_instance (id) ON DELETE CASCADE,
  -- start, signal, retry, cancel or replay
  action       text        NOT NULL,
  user_name    text        NOT NULL,
  at           timestamptz NOT NULL DEFAULT now(),
  -- the client's address: the peer's, or X-Forwarded-For's first hop behind a trusted proxy
  source       text,
  -- what the action named: the signal, compensate, batch, the replayed queue
  detail       text
);

-- An instance's entries in order (the instance document); the purge of finished instances cascades through it.
CREATE INDEX instance_audit_instance ON instance_audit (instance_id, id);
