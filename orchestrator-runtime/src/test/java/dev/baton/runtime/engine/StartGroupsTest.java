package dev.baton.runtime.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.runtime.engine.InstanceService.Started;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Group commit of single starts: waiting starts share a transaction; a bad one fails alone. */
class StartGroupsTest {

  /** A writer that records what it writes; every write waits until {@code gate} opens. */
  static final class RecordingWriter implements StartGroups.Writer {
    final List<List<String>> together = new CopyOnWriteArrayList<>();
    final List<String> alone = new CopyOnWriteArrayList<>();
    final CountDownLatch gate = new CountDownLatch(1);
    /** Requests the writers hold (waiting at the gate or written). */
    final AtomicInteger held = new AtomicInteger();

    @Override
    public List<Started> startTogether(List<StartGroups.Request> group) throws SQLException {
      hold(group.size());
      if (group.stream().anyMatch(r -> r.businessKey().startsWith("bad"))) {
        throw new SQLException("one of them cannot start");
      }
      together.add(group.stream().map(StartGroups.Request::businessKey).toList());
      return group.stream().map(r -> (Started) null).toList();
    }

    @Override
    public Started startAlone(StartGroups.Request request) throws SQLException {
      hold(1);
      if (request.businessKey().startsWith("bad")) {
        throw new IllegalArgumentException("spec.steps is empty");
      }
      alone.add(request.businessKey());
      return null;
    }

    private void hold(int requests) {
      held.addAndGet(requests);
      try {
        gate.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void starts_that_wait_while_a_commit_runs_share_the_next_transaction() throws Exception {
    RecordingWriter writer = new RecordingWriter();
    ExecutorService callers = Executors.newFixedThreadPool(12);
    try (StartGroups groups = new StartGroups(writer)) {
      List<Future<?>> calls = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        String key = "k-" + i;
        calls.add(callers.submit(() -> groups.submit(request(key))));
      }
      // Every start is either held by a writer at the gate (a writer holds one group at a time) or waiting.
      await().atMost(Duration.ofSeconds(10)).until(() -> groups.waiting() + writer.held.get() == 12);
      writer.gate.countDown();
      for (Future<?> f : calls) {
        f.get(10, TimeUnit.SECONDS);
      }
    } finally {
      callers.shutdownNow();
    }
    List<String> all = new ArrayList<>(writer.alone);
    writer.together.forEach(all::addAll);
    assertThat(all).hasSize(12).doesNotHaveDuplicates();
    // Two writers held at most two groups while the others waited; those went in at most one group per writer.
    assertThat(writer.together.size() + writer.alone.size()).as("transactions for 12 starts").isLessThanOrEqualTo(4);
  }

  @Test
  void a_start_that_cannot_be_made_fails_alone_and_the_others_of_its_group_succeed() throws Exception {
    RecordingWriter writer = new RecordingWriter();
    writer.gate.countDown();
    try (StartGroups groups = new StartGroups(writer)) {
      StartGroups.Request bad = request("bad-1");
      StartGroups.Request good = request("good-1");
      ExecutorService callers = Executors.newFixedThreadPool(2);
      Future<?> badCall = callers.submit(() -> groups.submit(bad));
      Future<?> goodCall = callers.submit(() -> groups.submit(good));
      goodCall.get(10, TimeUnit.SECONDS);
      assertThatThrownBy(() -> badCall.get(10, TimeUnit.SECONDS)).hasRootCauseMessage("spec.steps is empty");
      callers.shutdownNow();
    }
    assertThat(writer.alone).contains("good-1").doesNotContain("bad-1");
  }

  private static StartGroups.Request request(String key) {
    return new StartGroups.Request("default", "order", null, key, "{}", null, new CompletableFuture<>());
  }
}
