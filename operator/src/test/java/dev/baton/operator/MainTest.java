package dev.baton.operator;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
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
  void bATON_LOG_FORMATjsonWritesOneJsonObjectPerLine() throws Exception {
    assertThat(Main.logConfiguration(format("json"))).isEqualTo("baton-operator-logback-json.xml");
    assertThat(Main.logConfiguration(format(" JSON "))).isEqualTo("baton-operator-logback-json.xml");
    assertThat(Main.logConfiguration(format(null))).isEqualTo("baton-operator-logback.xml");
    assertThat(Main.logConfiguration(format("text"))).isEqualTo("baton-operator-logback.xml");

    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(MainTest.class.getClassLoader().getResource("baton-operator-logback-json.xml"));
    ch.qos.logback.classic.Logger logger = context.getLogger("dev.baton.operator.Test");
    @SuppressWarnings("unchecked")
    Encoder<ch.qos.logback.classic.spi.ILoggingEvent> encoder =
        ((ConsoleAppender<ch.qos.logback.classic.spi.ILoggingEvent>) context.getLogger("ROOT").getAppender("OUT"))
            .getEncoder();
    LoggingEvent event = new LoggingEvent("x", logger, Level.INFO, "WorkerService {} is ready", null,
        new Object[] {"shop/payment"});
    String line = new String(encoder.encode(event), StandardCharsets.UTF_8);
    assertThat(line).endsWith("\n").doesNotContain("\n{");
    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.path("level").asText()).isEqualTo("INFO");
    assertThat(json.path("loggerName").asText()).isEqualTo("dev.baton.operator.Test");
    assertThat(json.path("formattedMessage").asText()).isEqualTo("WorkerService shop/payment is ready");
    context.stop();
  }

  /** {@code BATON_LOG_FORMAT} as the process reads it (null: unset). */
  static LogFormat format(String value) {
    Map<String, String> env = new HashMap<>();
    env.put(LogFormat.VARIABLE, value);
    return SettingsReader.read(env, LogFormat::read);
  }
}
