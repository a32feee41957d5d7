-- The search of instances (docs/design.md#interfaces, GET /api/v1/instances): newest first by creation time then id,
-- a page at a time. Across Workflows and namespaces the creation time orders the scan, which stops after a page; by
-- error code (which step failed with what) the last error's code does, only for the instances that have one. A search
-- of one Workflow and status uses the list index (V1). Neither column changes on the step loop's hot updates of an
-- instance (a step that succeeds writes neither), so those updates stay on their page (V5).
CREATE INDEX workflow_instance_newest ON workflow_instance (created_at DESC, id DESC);
CREATE INDEX workflow_instance_error_code ON workflow_instance ((last_error->>'errorCode'), created_at DESC, id DESC)
  WHERE last_error IS NOT NULL;
