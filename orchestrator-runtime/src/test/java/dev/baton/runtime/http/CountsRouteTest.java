package dev.baton.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.httpapi.CountsResponse.ScheduleReport;
import dev.baton.httpapi.CountsResponse.WorkflowCounts;
import dev.baton.runtime.store.InstanceStore.StatusCount;
import dev.baton.runtime.store.ScheduleStore;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CountsRouteTest {

  static final Instant SEEN = Instant.parse("2026-12-06T01:09:18.427Z");

  @Test
  void aScheduleShowsALastFireOnlyOnceItHasFiredAndAWorkflowWithoutInstancesIsListed() {
    List<WorkflowCounts> items = CountsRoute.byWorkflow(List.of(new StatusCount("shop", "orders", "SUCCEEDED", 4)),
        List.of(new ScheduleStore.Row("shop", "audit", "nightly", SEEN, null, Instant.parse("2026-12-07T01:00:00Z"),
                null, null, 0, 0, false),
            new ScheduleStore.Row("shop", "orders", "tick", Instant.parse("2026-12-06T01:09:30Z"), null,
                Instant.parse("2026-12-06T01:09:40Z"), UUID.randomUUID(), "tick@2026-12-06T01:09:30Z", 0, 0, true)));

    assertThat(items).extracting(WorkflowCounts::workflow).containsExactly("audit", "orders");
    assertThat(items.get(0).schedules()).containsExactly(
        new ScheduleReport("nightly", null, "2026-12-07T01:00:00Z", null, null));
    assertThat(items.get(1).succeeded()).isEqualTo(4);
    assertThat(items.get(1).schedules()).containsExactly(new ScheduleReport("tick", "2026-12-06T01:09:30Z",
        "2026-12-06T01:09:40Z", "tick@2026-12-06T01:09:30Z", null));
  }
}
