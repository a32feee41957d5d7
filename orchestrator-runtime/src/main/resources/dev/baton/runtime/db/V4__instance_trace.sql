-- The trace of each instance (docs/design.md#observability): the W3C traceparent of the span that started it, so
-- work no message carries (timers, signals, cancel, retry, after a restart) continues the same trace.
ALTER TABLE workflow_instance ADD COLUMN trace_parent text;

-- Which steps are in flight, and since when, per workflow and step (the metric baton_step_oldest_seconds, the
-- "stuck at which step" alert): a small index over the running rows only, however many finished rows there are.
CREATE INDEX instance_step_running ON instance_step (instance_id) WHERE status = 'RUNNING';
