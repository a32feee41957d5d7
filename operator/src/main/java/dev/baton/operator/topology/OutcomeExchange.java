package dev.baton.operator.topology;

import dev.baton.contract.Names;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.operator.broker.BrokerException;
import dev.baton.operator.broker.BrokerSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The vhost's instance outcome exchange {@code baton.instance.topic.ex} (docs/design.md#broker-names): durable, topic,
 * one per vhost, where the runtime publishes how each instance ended. The runtime declares nothing, so the operator
 * keeps it: at start-up and every resync, on the leader only, declared when missing (read from the shared
 * {@link BrokerSnapshot}: a resync that finds it sends no request). Never deleted: subscribers' queues are bound to
 * it, and the runtime may publish to it at any time. Failures are logged (once at WARN, then DEBUG), never thrown.
 */
public final class OutcomeExchange implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(OutcomeExchange.class);

  static final ExchangeSpec SPEC = new ExchangeSpec(Names.instanceOutcomeExchange(), ExchangeSpec.Type.TOPIC);

  private final BrokerSnapshot broker;
  private final Duration resync;
  private ScheduledExecutorService timer;
  private volatile String failing;

  public OutcomeExchange(BrokerSnapshot broker, Duration resync) {
    this.broker = broker;
    this.resync = resync;
  }

  /** One pass: declared when missing. @return what was changed, for the log */
  public List<String> ensure() {
    broker.refreshIfStale();
    Optional<String> type = broker.exchange(SPEC.name()).map(e -> e.type());
    if (type.isEmpty()) {
      broker.declareExchange(SPEC);
      return List.of("declared exchange " + SPEC.name());
    }
    if (!SPEC.type().brokerName().equals(type.get())) {
      // Someone else's exchange of that name: left alone (exchanges cannot change type), and said so each pass.
      LOG.warn("Exchange {} is a {} exchange, not a topic exchange: subscriptions to Workflow outcomes cannot be "
          + "bound to it; delete it so that the operator declares it again", SPEC.name(), type.get());
    }
    return List.of();
  }

  /** Keeps it now and then every resync period, until closed. */
  public synchronized void start() {
    if (timer == null) {
      timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "baton-outcome-exchange");
        t.setDaemon(true);
        return t;
      });
      timer.scheduleWithFixedDelay(this::ensureQuietly, 0, resync.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
      timer = null;
    }
  }

  private void ensureQuietly() {
    try {
      List<String> actions = ensure();
      if (!actions.isEmpty()) {
        LOG.info("Instance outcomes: {}", String.join("; ", actions));
      }
      if (failing != null) {
        LOG.info("Exchange {} is in place again", SPEC.name());
        failing = null;
      }
    } catch (BrokerException e) {
      if (failing == null) {
        LOG.warn("Cannot keep exchange {}: {}; retrying every {} s", SPEC.name(), e.getMessage(), resync.toSeconds());
      } else {
        LOG.debug("Still cannot keep exchange {}: {}", SPEC.name(), e.getMessage());
      }
      failing = e.getMessage();
    } catch (RuntimeException e) {
      LOG.warn("Keeping exchange {} failed unexpectedly: {}", SPEC.name(), e.toString());
    }
  }
}
