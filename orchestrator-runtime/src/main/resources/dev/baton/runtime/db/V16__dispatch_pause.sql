-- Paused Workflows and WorkerServices (docs/design.md#pause-and-resume). A row holds back, from every runtime's outbox
-- relay, the commands of a service (by its command exchange) or of a Workflow's instances (by the namespace and
-- workflow in their headers). Written by whichever runtime sees the pause first; deleted by the one that resumes it,
-- in the transaction that gives the held steps their time back, so a resume is applied once.
CREATE TABLE dispatch_pause (
  kind        text        NOT NULL CHECK (kind IN ('workflow', 'service')),
  namespace   text        NOT NULL,
  name        text        NOT NULL,
  exchange    text,       -- a service's command exchange; null for a Workflow
  paused_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, namespace, name)
);

-- A step whose timer a pause stopped: its deadline is taken away and what was left of it kept here, given back as
-- now() + held_remaining when the pause ends.
ALTER TABLE instance_step ADD COLUMN held_remaining interval;

-- The parked steps, found at a resume without reading the table; a step's own updates never touch the column, so they
-- stay HOT.
CREATE INDEX instance_step_held ON instance_step (instance_id) WHERE held_remaining IS NOT NULL;
