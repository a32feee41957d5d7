-- Child workflows (docs/design.md#workflow-language, child workflow): which instance a child workflow step started.
-- A row per child, written in the transaction that starts it (with the child's first steps); deleted with the child.
-- parent_step is the name of the parent's step row (ship-one[3] inside a map); parent_attempt the attempt of that step
-- the child answers, raised when a retry of the step retries the child, so an older end never ends a newer attempt.
-- No foreign key to the parent: the retention purge may take a parent before its children.
CREATE TABLE instance_link (
  child_id        uuid    PRIMARY KEY REFERENCES workflow_instance (id) ON DELETE CASCADE,
  parent_id       uuid    NOT NULL,
  parent_step     text    NOT NULL,
  parent_attempt  integer NOT NULL,
  UNIQUE (parent_id, parent_step)
);

-- The sweep's search for child workflow steps in flight (a parent to wake whose child ended while its runtime was
-- down): only those rows, a handful next to the table.
CREATE INDEX instance_step_child_in_flight ON instance_step (instance_id) WHERE kind = 'workflow' AND status = 'RUNNING';
