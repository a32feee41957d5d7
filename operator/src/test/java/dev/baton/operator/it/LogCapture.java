package dev.baton.operator.it;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Collects log events of the test JVM, to assert that nothing loops on errors. */
public final class LogCapture implements AutoCloseable {

  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  public LogCapture() {
    appender.start();
    root.addAppender(appender);
  }

  /** Errors anywhere, and warnings of the operator framework (which is where a failing reconcile shows). */
  public List<String> failures() {
    synchronized (appender.list) {
      return appender.list.stream()
          .filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)
              || e.getLevel().isGreaterOrEqual(Level.WARN) && e.getLoggerName().startsWith("io.javaoperatorsdk"))
          .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
          .toList();
    }
  }

  /** Every message so far (any level, any logger) that contains {@code text}. */
  public List<String> messages(String text) {
    synchronized (appender.list) {
      return appender.list.stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains(text)).toList();
    }
  }

  public void clear() {
    synchronized (appender.list) {
      appender.list.clear();
    }
  }

  @Override
  public void close() {
    root.detachAppender(appender);
  }
}
