-- The whole instance's deadline (docs/design.md#runtime-semantics, spec.timeout): fixed when the instance starts (its
-- creation time plus the timeout of its revision), counted again from a retry. Past it the timer sweep times the
-- instance out. Null for instances of Workflows without spec.timeout, and for those started before this migration.
-- No default: adding the column rewrites nothing.
ALTER TABLE workflow_instance ADD COLUMN deadline timestamptz;

-- The sweep's search: the deadlines of the instances going forward, soonest first. An instance that is compensating
-- or has ended leaves the index, so one past its deadline is found once. Neither column changes at a step (a retry
-- writes the deadline, a failure the status): the step loop's updates of the instance row stay on their page (V5).
CREATE INDEX workflow_instance_deadline ON workflow_instance (deadline)
  WHERE deadline IS NOT NULL AND status = 'RUNNING';
