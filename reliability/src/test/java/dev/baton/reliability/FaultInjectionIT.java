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
  /** {@code -Dbaton.faults.instances=N} runs every scenario with N instances (the long faults at small scale). */
  static final String SCALE = System.getProperty("baton.faults.instances", "");
  static final int N = SCALE.isBlank() ? (LONG ? 4_000 : 400) : Integer.parseInt(SCALE.trim());
  /**
   * The later rows (two runtimes, a memory alarm, hung handlers, a cluster, Workflow edits, oversized outputs and
   * commands, a definition that no longer loads, a lane Error) run fewer instances in CI, which keeps the module's CI
   * time modest on 2 cores.
   */
  static final int N_MORE = SCALE.isBlank() ? (LONG ? 4_000 : 150) : N;
  static Scenarios scenarios;
  static Scenarios more;
  static Infra infra;

  @BeforeAll
  static void start() {
    infra = Infra.get();
    scenarios = new Scenarios(infra, N);
    more = new Scenarios(infra, N_MORE);
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

  @Test
  @Order(7)
  void twoRuntimesOneKilledWithSigkill() throws Exception {
    check(more.twoRuntimesOneKilled(LONG ? 4 : 1));
  }

  @Test
  @Order(8)
  void brokerMemoryAlarm() throws Exception {
    check(more.memoryAlarm(Duration.ofSeconds(10)));
  }

  @Test
  @Order(9)
  void handlersThatHang() throws Exception {
    check(more.hangingHandlers());
  }

  @Test
  @Order(10)
  void oneNodeOfAThreeNodeClusterKilled() throws Exception {
    check(more.clusterNodeKilled());
  }

  @Test
  @Order(11)
  void workflowEditedMidRun() throws Exception {
    check(more.workflowEdited());
  }

  @Test
  @Order(12)
  void oversizedOutputsAmongTheInstances() throws Exception {
    check(more.oversizedOutputs(LONG ? 100 : 15));
  }

  @Test
  @Order(12)
  void oversizedCommandsAmongTheInstances() throws Exception {
    check(more.oversizedCommands(LONG ? 100 : 15));
  }

  @Test
  @Order(13)
  void aDefinitionThatNoLongerLoads() throws Exception {
    check(more.definitionNoLongerLoads());
  }

  @Test
  @Order(14)
  void aLaneError() throws Exception {
    check(more.laneError(LONG ? 10 : 3));
  }
}
