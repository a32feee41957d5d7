package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code baton dev}'s console lines (cli's logback.xml): a line about an instance ends with its fields, compactly. */
class DevLogPatternTest {

  @Test
  void a_line_about_an_instance_ends_with_its_workflow_step_id_and_trace() throws Exception {
    assertThat(line(Map.of("instanceId", "0b6f5f0e-0000-4000-8000-000000000001", "workflow", "order-fulfilment",
        "step", "charge", "traceId", "4bf92f3577b34da6a3ce929d0e0e4736")))
        .endsWith(" WARN  d.b.e.PaymentWorker - card declined [order-fulfilment/charge"
            + " 0b6f5f0e-0000-4000-8000-000000000001 trace 4bf92f3577b34da6a3ce929d0e0e4736]\n");
    assertThat(line(Map.of("instanceId", "0b6f5f0e-0000-4000-8000-000000000001", "workflow", "order-fulfilment")))
        .endsWith(" - card declined [order-fulfilment 0b6f5f0e-0000-4000-8000-000000000001]\n");
    assertThat(line(Map.of())).endsWith(" WARN  d.b.e.PaymentWorker - card declined\n");
  }

  private String line(Map<String, String> mdc) throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(getClass().getClassLoader().getResource("logback.xml"));
    try {
      @SuppressWarnings("unchecked")
      ConsoleAppender<ILoggingEvent> console =
          (ConsoleAppender<ILoggingEvent>) context.getLogger("ROOT").getAppender("CONSOLE");
      LoggingEvent event = new LoggingEvent("x", context.getLogger("dev.baton.examples.PaymentWorker"), Level.WARN,
          "card declined", null, new Object[0]);
      event.setMDCPropertyMap(mdc);
      return new String(console.getEncoder().encode(event), StandardCharsets.UTF_8);
    } finally {
      context.stop();
    }
  }
}
