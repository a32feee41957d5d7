package dev.baton.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.suite.OperatorScenario;
import dev.baton.reliability.suite.Report;
import dev.baton.reliability.suite.Scenarios;
import dev.baton.reliability.suite.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The fault-injection suite against a private RabbitMQ node and a private PostgreSQL cluster (the shared ones are
 * never stopped). {@code -Dbaton.faults=short} (the default, in {@code mvn verify}): hundreds of instances per
 * scenario; {@code -Pfaults} ({@code baton.faults=long}): thousands, more and longer faults. The table is printed and
 * written to {@code .baton/reliability/report.md}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultInjectionIT {

  static final boolean LONG = "long".equals(System.getProperty("baton.faults", "short"));
  static final int N = LONG ? 4_000 : 400;
  static Scenarios scenarios;
  static Infra infra;

  @BeforeAll
  static void start() {
    infra = Infra.get();
    scenarios = new Scenarios(infra, N);
  }

  @AfterAll
  static void report() {
    Report.write(LONG ? "long (-Pfaults)" : "short (CI)");
  }

  private static void check(Verdict v) {
    Report.add(v);
    assertThat(v.ok()).as(v.toString()).isTrue();
  }

  @Test
  @Order(1)
  void runtimeKilledWithSigkillAndRestarted() throws Exception {
    check(scenarios.runtimeKilled(LONG ? 4 : 2));
  }

  @Test
  @Order(2)
  void brokerConnectionsForceClosedAndBrokerRestarted() throws Exception {
    check(scenarios.brokerConnectionsAndRestart(Duration.ofSeconds(LONG ? 10 : 3)));
  }

  @Test
  @Order(3)
  void postgresRestartedMidRun() throws Exception {
    check(scenarios.postgresRestarted(LONG ? 2 : 1, Duration.ofSeconds(LONG ? 10 : 3)));
  }

  @Test
  @Order(4)
  void workerKilledMidMessage() throws Exception {
    check(scenarios.workerKilled(LONG ? 4 : 2));
  }

  @Test
  @Order(5)
  void poisonAndMalformedMessagesAreParkedWhileGoodTrafficFlows() throws Exception {
    check(scenarios.poison(1_000));
  }

  @Test
  @Order(6)
  void operatorBrokerUnreachableThenBackAndChurn() throws Exception {
    check(new OperatorScenario(infra, 100).run(Duration.ofSeconds(LONG ? 15 : 6)));
  }
}
