package dev.baton.worker;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/** The log lines a logger (and those below it) writes during each test; register it with {@code @RegisterExtension}. */
final class CapturedLines implements BeforeEachCallback, AfterEachCallback {

  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();
  private final Logger logger;

  CapturedLines(String loggerName) {
    this.logger = (Logger) LoggerFactory.getLogger(loggerName);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    lines.list.clear();
    lines.start();
    logger.addAppender(lines);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    logger.detachAppender(lines);
  }

  List<ILoggingEvent> list() {
    return lines.list;
  }
}
