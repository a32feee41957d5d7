"""Trace context: continued in an OpenTelemetry span when ``opentelemetry`` is importable, else copied."""

from __future__ import annotations

import contextlib
from typing import Dict, Iterator, Optional

try:  # optional: the SDK works without it, copying the command's traceparent onto its events
    from opentelemetry import context as _otel_context
    from opentelemetry import propagate as _otel_propagate
    from opentelemetry import trace as _otel_trace
    from opentelemetry.trace import SpanKind as _SpanKind, Status as _Status, StatusCode as _StatusCode
except ImportError:  # pragma: no cover - depends on what is installed
    _otel_trace = None

from .messages import INSTANCE, STEP, WORKFLOW, plain


def available() -> bool:
    return _otel_trace is not None


class Handling:
    """The span a delivery is handled in; ``headers()`` is its trace context (and the command's baggage) for the
    events, written by the configured propagators (empty without a span)."""

    def __init__(self, span=None, parent=None):
        self.span = span
        self._context = None if span is None else _otel_trace.set_span_in_context(span, parent)

    def headers(self) -> Dict[str, str]:
        if self.span is None:
            return {}
        carrier: Dict[str, str] = {}
        _otel_propagate.inject(carrier, context=self._context)
        return carrier

    def failed(self, failure: BaseException) -> None:
        if self.span is not None:
            self.span.record_exception(failure)
            self.span.set_status(_Status(_StatusCode.ERROR, str(failure)))

    def end(self) -> None:
        if self.span is not None:
            self.span.end()

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Makes the span (and the command's baggage) current in the handler's thread, so its own spans and logs
        join the trace."""
        if self.span is None:
            yield
            return
        token = _otel_context.attach(self._context)
        try:
            yield
        finally:
            _otel_context.detach(token)


def start(service: str, consumer: str, headers: Dict[str, object], retries: int) -> Handling:
    """A consumer span ``process <service>.command.topic.ex`` whose parent is the context the command carries (read
    by the configured propagators: W3C trace context and baggage unless ``OTEL_PROPAGATORS`` says otherwise)."""
    if _otel_trace is None:
        return Handling()
    carrier = {k: str(plain(v)) for k, v in headers.items() if isinstance(plain(v), str)}
    parent = _otel_propagate.extract(carrier)
    exchange = f"{service}.command.topic.ex"
    tracer = _otel_trace.get_tracer("baton_worker")
    span = tracer.start_span(f"process {exchange}", context=parent, kind=_SpanKind.CONSUMER, attributes={
        "messaging.system": "rabbitmq",
        "messaging.operation": "process",
        "messaging.destination.name": exchange,
        "baton.service": service,
        "baton.command": consumer,
        "baton.instance": str(plain(headers.get(INSTANCE)) or ""),
        "baton.workflow": str(plain(headers.get(WORKFLOW)) or ""),
        "baton.step": str(plain(headers.get(STEP)) or ""),
        "baton.retries": retries,
    })
    return Handling(span, parent)
