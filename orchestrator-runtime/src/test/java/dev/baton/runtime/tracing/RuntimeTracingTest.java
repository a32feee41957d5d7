package dev.baton.runtime.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Without any OTEL_* variable, spans are made (their ids go into commands and logs) and nothing is exported; a named
 * exporter gets them; OTLP works with no variable but {@code OTEL_TRACES_EXPORTER=otlp} (http/protobuf) and over
 * grpc when asked; the propagators are OTEL_PROPAGATORS' (tracecontext and baggage by default).
 */
class RuntimeTracingTest {

  @Test
  void spans_have_real_ids_even_when_nothing_exports_them() throws Exception {
    try (RuntimeTracing tracing = RuntimeTracing.fromEnvironment(Map.of())) {
      Span span = tracing.openTelemetry().getTracer("test").spanBuilder("start").startSpan();
      span.end();
      assertThat(span.getSpanContext().isValid()).isTrue();
      assertThat(span.getSpanContext().isSampled()).isTrue();
    }
  }

  @Test
  void an_exporter_named_in_the_environment_gets_the_spans() throws Exception {
    // The logging exporter writes each span to java.util.logging.
    Logger exporterLog = Logger.getLogger("io.opentelemetry.exporter.logging.LoggingSpanExporter");
    List<String> printed = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord r) {
        printed.add(r.getMessage());
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    exporterLog.addHandler(capture);
    String traceId;
    try (RuntimeTracing tracing = RuntimeTracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "logging"))) {
      Span span = tracing.openTelemetry().getTracer("test").spanBuilder("start default/logged").startSpan();
      span.end();
      traceId = span.getSpanContext().getTraceId();
    } finally {
      exporterLog.removeHandler(capture);
    }
    assertThat(printed).anySatisfy(line -> assertThat(line).contains("'start default/logged'", traceId));
  }

  @Test
  void otlp_named_alone_starts_and_sends_http_protobuf() throws Exception {
    // Baton's default protocol is http/protobuf (OpenTelemetry's is grpc): an endpoint given alone means port 4318.
    try (RuntimeTracing tracing = RuntimeTracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "otlp"))) {
      assertThat(tracing.openTelemetry().getTracer("test").spanBuilder("unsent").startSpan().getSpanContext()
          .isValid()).isTrue();
    }

    // ... and the spans go to the endpoint as OTLP over HTTP (POST /v1/traces, protobuf).
    List<String> received = new CopyOnWriteArrayList<>();
    HttpServer collector = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    collector.createContext("/", exchange -> {
      received.add(exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
          + exchange.getRequestHeaders().getFirst("Content-Type"));
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(200, -1);
      exchange.close();
    });
    collector.start();
    try {
      try (RuntimeTracing tracing = RuntimeTracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "otlp",
          "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + collector.getAddress().getPort()))) {
        tracing.openTelemetry().getTracer("test").spanBuilder("start").startSpan().end();
      } // closing flushes the batch
      assertThat(received).contains("POST /v1/traces application/x-protobuf");
    } finally {
      collector.stop(0);
    }
  }

  @Test
  void otlp_over_grpc_sends_to_the_trace_service() throws Exception {
    // An HTTP/1.1 server cannot speak gRPC's HTTP/2, but the sender reaches it: the connection is the exporter's, on
    // grpc, and the export fails on the protocol (not for want of a sender, as it did before grpc was shipped).
    List<String> connections = new CopyOnWriteArrayList<>();
    try (ServerSocket collector = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread accepting = new Thread(() -> {
        try (Socket s = collector.accept()) {
          byte[] preface = s.getInputStream().readNBytes(24);
          connections.add(new String(preface, StandardCharsets.US_ASCII));
        } catch (IOException e) {
          connections.add(e.toString());
        }
      });
      accepting.start();
      try (RuntimeTracing tracing = RuntimeTracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "otlp",
          "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc",
          "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + collector.getLocalPort(),
          "OTEL_EXPORTER_OTLP_TIMEOUT", "2000"))) {
        tracing.openTelemetry().getTracer("test").spanBuilder("start").startSpan().end();
      }
      accepting.join(10_000);
    }
    // h2c: the HTTP/2 connection preface, which only a gRPC (HTTP/2) client sends first.
    assertThat(connections).containsExactly("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
  }

  @Test
  void the_default_propagators_carry_trace_context_and_baggage() throws Exception {
    try (RuntimeTracing tracing = RuntimeTracing.fromEnvironment(Map.of())) {
      assertThat(tracing.openTelemetry().getPropagators().getTextMapPropagator().fields())
          .contains("traceparent", "tracestate", "baggage");
    }
  }

  @Test
  void otel_propagators_chooses_them_b3_included() throws Exception {
    try (RuntimeTracing tracing = RuntimeTracing.fromEnvironment(Map.of("OTEL_PROPAGATORS", "b3multi,tracecontext"))) {
      assertThat(tracing.openTelemetry().getPropagators().getTextMapPropagator().fields())
          .contains("X-B3-TraceId", "traceparent").doesNotContain("baggage");
    }
  }

  @Test
  void an_unknown_propagator_fails_the_start_naming_it() {
    assertThatThrownBy(() -> RuntimeTracing.fromEnvironment(Map.of("OTEL_PROPAGATORS", "tracecontext,w3c")).close())
        .hasMessageContaining("w3c");
  }
}
