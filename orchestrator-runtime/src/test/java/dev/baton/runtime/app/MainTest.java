package dev.baton.runtime.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.contract.settings.LogFormat;
import dev.baton.contract.settings.SettingsReader;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MainTest {

  @Test
  void logFormatJsonPicksTheJsonConfigurationWhichWritesOneObjectPerLine() throws Exception {
    assertThat(Main.logConfiguration(format(" JSON "))).isEqualTo("dev/baton/runtime/logback-runtime-json.xml");
    assertThat(Main.logConfiguration(format(null))).isEqualTo("dev/baton/runtime/logback-runtime.xml");
    assertThat(Main.logConfiguration(format("text"))).isEqualTo("dev/baton/runtime/logback-runtime.xml");

    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(getClass().getClassLoader().getResource(Main.logConfiguration(format("json"))));
    @SuppressWarnings("unchecked")
    ConsoleAppender<ILoggingEvent> out = (ConsoleAppender<ILoggingEvent>) context.getLogger("ROOT").getAppender("OUT");
    LoggingEvent event = new LoggingEvent("x", context.getLogger("dev.baton.runtime.X"), Level.WARN,
        "Instance {} step {} timed out", null, new Object[] {"42", "charge"});
    String line = new String(out.getEncoder().encode(event), StandardCharsets.UTF_8);

    assertThat(line).endsWith("\n").doesNotContain("\n{");
    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.path("level").asText()).isEqualTo("WARN");
    assertThat(json.path("formattedMessage").asText()).isEqualTo("Instance 42 step charge timed out");
    context.stop();
  }

  @Test
  void aLineAboutAnInstanceCarriesItsFieldsAsJsonFieldsAndAtTheEndOfATextLine() throws Exception {
    Map<String, String> fields = Map.of("instanceId", "0b6f5f0e-0000-4000-8000-000000000001",
        "workflow", "order-fulfilment", "step", "charge", "traceId", "4bf92f3577b34da6a3ce929d0e0e4736");

    JsonNode json = new ObjectMapper().readTree(encode(format("json"), fields));
    assertThat(json.path("formattedMessage").asText()).isEqualTo("Instance 42 step charge timed out");
    fields.forEach((k, v) -> assertThat(json.path("mdc").path(k).asText()).as(k).isEqualTo(v));

    assertThat(encode(format("text"), fields)).contains("Instance 42 step charge timed out [")
        .contains("instanceId=0b6f5f0e-0000-4000-8000-000000000001", "workflow=order-fulfilment", "step=charge",
            "traceId=4bf92f3577b34da6a3ce929d0e0e4736");
    assertThat(encode(format("text"), Map.of())).endsWith("Instance 42 step charge timed out\n");
  }

  /** A WARN line with these MDC fields, as the configuration of {@code format} writes it. */
  private String encode(LogFormat format, Map<String, String> mdc) throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(getClass().getClassLoader().getResource(Main.logConfiguration(format)));
    try {
      @SuppressWarnings("unchecked")
      ConsoleAppender<ILoggingEvent> out =
          (ConsoleAppender<ILoggingEvent>) context.getLogger("ROOT").getAppender("OUT");
      LoggingEvent event = new LoggingEvent("x", context.getLogger("dev.baton.runtime.X"), Level.WARN,
          "Instance {} step {} timed out", null, new Object[] {"42", "charge"});
      event.setMDCPropertyMap(mdc);
      return new String(out.getEncoder().encode(event), StandardCharsets.UTF_8);
    } finally {
      context.stop();
    }
  }

  /** {@code BATON_LOG_FORMAT} as the process reads it (null: unset). */
  static LogFormat format(String value) {
    Map<String, String> env = new HashMap<>();
    env.put(LogFormat.VARIABLE, value);
    return SettingsReader.read(env, LogFormat::read);
  }
}
