-- Requests that carried an Idempotency-Key (docs/design.md#interfaces): the same key again, on the same endpoint,
-- answers what the first request answered and changes nothing. Kept 24 hours (the retention job purges them).
CREATE TABLE request_key (
  -- The endpoint, e.g. 'POST /api/v1/instances/{id}/cancel' with the path filled in.
  scope         text        NOT NULL,
  key           text        NOT NULL,
  -- SHA-256 of the request body: the same key with another request is refused.
  request_hash  text        NOT NULL,
  status        integer     NOT NULL,
  body          bytea       NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, key)
);

CREATE INDEX request_key_age ON request_key USING brin (created_at);

-- A signal sent with an Idempotency-Key is stored once, however often the client sends it again: a retry after an
-- ambiguous answer must not be consumed by a later wait of the same name.
ALTER TABLE instance_signal ADD COLUMN idempotency_key text;
CREATE UNIQUE INDEX instance_signal_key ON instance_signal (instance_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
