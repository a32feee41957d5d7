-- The trace of each instance (docs/design.md#observability): the W3C traceparent of the span that started it, so
-- work no message carries (timers, signals, cancel, retry, after a restart) continues the same trace.
ALTER TABLE workflow_instance ADD COLUMN trace_parent text;
