package dev.baton.operator.runtime;

import static dev.baton.operator.it.FakeRuntime.item;
import static dev.baton.operator.it.FakeRuntime.items;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.ScheduleStatus;
import dev.baton.api.v1alpha1.WorkflowStatus;
import dev.baton.operator.it.FakeRuntime;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeCountsTest {

  @Test
  void readsEveryWorkflowsCountsInOneRequestWithTheToken() {
    try (FakeRuntime runtime = FakeRuntime.start()) {
      runtime.answer(items(item("default", "order-fulfilment", 3, 10, 1, 2, 0), item("b", "x", 0, 1, 0, 0, 4)));
      Map<ResourceID, InstanceCounts> counts = new RuntimeCounts(new RuntimeApi(runtime.url() + "/", "s3cret")).fetch();
      assertThat(counts).containsExactlyInAnyOrderEntriesOf(Map.of(
          new ResourceID("order-fulfilment", "default"), new InstanceCounts(3, 10, 1, 2, 0),
          new ResourceID("x", "b"), new InstanceCounts(0, 1, 0, 0, 4)));
      assertThat(runtime.requests()).isEqualTo(1);
      assertThat(runtime.authorizations).containsExactly("Bearer s3cret");
    }
  }

  @Test
  void aTokenFromAFileIsReadAgainBeforeEachRequestSoARenewedOneIsSent(@TempDir Path dir) throws IOException {
    Path token = dir.resolve("token");
    Files.writeString(token, "first-token\n");
    try (FakeRuntime runtime = FakeRuntime.start()) {
      runtime.answer(items(item("default", "order-fulfilment", 1, 0, 0, 0, 0)));
      RuntimeCounts counts = new RuntimeCounts(new RuntimeApi(runtime.url(), RuntimeApi.tokenOf(null, token)));
      counts.fetch();
      Files.writeString(token, "renewed-token\n"); // the kubelet renews a projected ServiceAccount token
      counts.fetch();
      assertThat(runtime.authorizations).containsExactly("Bearer first-token", "Bearer renewed-token");
    }
  }

  @Test
  void missingNumbersAreZeroAndUnknownFieldsAreIgnored() {
    assertThat(RuntimeCounts.parse("{\"items\":[{\"namespace\":\"a\",\"workflow\":\"w\",\"running\":2,\"new\":1},"
        + "{\"workflow\":\"no-namespace\"}],\"more\":true}"))
        .containsExactly(Map.entry(new ResourceID("w", "a"), new InstanceCounts(2, 0, 0, 0, 0)));
  }

  @Test
  void schedulesReachTheStatusWithTheSoonestNextFireAndTheLatestLastFire() {
    Map<ResourceID, InstanceCounts> counts = RuntimeCounts.parse("{\"items\":[{\"namespace\":\"a\","
        + "\"workflow\":\"w\",\"succeeded\":1,\"schedules\":["
        + "{\"name\":\"heartbeat\",\"lastFire\":\"2026-12-05T12:00:30Z\",\"nextFire\":\"2026-12-05T12:01:00Z\","
        + "\"lastBusinessKey\":\"heartbeat@2026-12-05T12:00:30Z\"},"
        + "{\"name\":\"nightly\",\"lastFire\":\"2026-12-05T01:00:00Z\",\"nextFire\":\"2026-12-06T01:00:00Z\"}]}]}");
    WorkflowStatus status = new WorkflowStatus();
    counts.get(new ResourceID("w", "a")).applyTo(status);

    assertThat(status.getSchedules()).extracting(ScheduleStatus::getName).containsExactly("heartbeat", "nightly");
    assertThat(status.getSchedules().get(0).getLastBusinessKey()).isEqualTo("heartbeat@2026-12-05T12:00:30Z");
    assertThat(status.getNextFire()).isEqualTo("2026-12-05T12:01:00Z");
    assertThat(status.getLastFire()).isEqualTo("2026-12-05T12:00:30Z");
    assertThat(InstanceCounts.of(status)).contains(counts.get(new ResourceID("w", "a")));
  }

  @Test
  void unreadableAnswersAndErrorsAreUnavailable() {
    assertThatThrownBy(() -> RuntimeCounts.parse("<html>")).isInstanceOf(RuntimeApi.Unavailable.class)
        .hasMessageContaining("not JSON");
    assertThatThrownBy(() -> RuntimeCounts.parse("{\"counts\":[]}")).isInstanceOf(RuntimeApi.Unavailable.class)
        .hasMessageContaining("'items'");
    try (FakeRuntime runtime = FakeRuntime.start()) {
      runtime.down(true);
      assertThatThrownBy(() -> new RuntimeCounts(new RuntimeApi(runtime.url(), (String) null)).fetch())
          .isInstanceOf(RuntimeApi.Unavailable.class).hasMessageContaining("HTTP 503");
    }
  }

  @Test
  void aRuntimeThatIsNotThereIsUnavailable() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    assertThatThrownBy(() -> new RuntimeCounts(new RuntimeApi("http://127.0.0.1:" + port, "s3cret")).fetch())
        .isInstanceOf(RuntimeApi.Unavailable.class)
        .hasMessageContaining("cannot reach http://127.0.0.1:" + port + "/api/v1/counts")
        .message().doesNotContain("s3cret");
  }
}
