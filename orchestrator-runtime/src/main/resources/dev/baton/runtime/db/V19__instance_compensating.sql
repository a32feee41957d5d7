-- The sweep of child workflows (docs/design.md#workflow-language, child workflow) also looks for parents undoing their
-- steps that wait for nothing: no step in flight and no child still going. Such a parent was waiting for its child to
-- end, and the child ended while its runtime stopped before telling it. Only instances undoing their steps are in
-- this index, a handful next to the table; status is indexed already (V1), so no update that was HOT stops being so.
CREATE INDEX workflow_instance_compensating ON workflow_instance (id) WHERE status = 'COMPENSATING';
