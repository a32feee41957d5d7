package dev.baton.runtime.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.runtime.engine.InstanceService.Started;
import dev.baton.runtime.store.Actor;
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
      if (group.stream().anyMatch(r -> r.businessKey().startsWith("boom"))) {
        throw new AssertionError("a bug in the writer"); // an Error, not an exception
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
      if (request.businessKey().startsWith("boom")) {
        throw new AssertionError("a bug in the writer");
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

  /** Fails on the code before: an Error in a group's write ended the writer thread and its callers waited for ever. */
  @Test
  void a_writer_that_throws_an_error_answers_its_callers_and_goes_on() throws Exception {
    RecordingWriter writer = new RecordingWriter();
    ExecutorService callers = Executors.newFixedThreadPool(8);
    try (StartGroups groups = new StartGroups(writer)) {
      List<Future<?>> calls = new ArrayList<>();
      for (String key : List.of("boom-1", "ok-1", "boom-2", "ok-2", "boom-3", "ok-3")) {
        calls.add(callers.submit(() -> groups.submit(request(key))));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> groups.waiting() + writer.held.get() >= 6);
      writer.gate.countDown();
      for (Future<?> f : calls) {
        try {
          f.get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          assertThat(e).hasRootCauseMessage("a bug in the writer");
        }
      }
      // Both writers are still there: later starts are made.
      callers.submit(() -> groups.submit(request("later-1"))).get(10, TimeUnit.SECONDS);
      callers.submit(() -> groups.submit(request("later-2"))).get(10, TimeUnit.SECONDS);
    } finally {
      callers.shutdownNow();
    }
    List<String> all = new ArrayList<>(writer.alone);
    writer.together.forEach(all::addAll);
    assertThat(all).contains("ok-1", "ok-2", "ok-3", "later-1", "later-2").noneMatch(k -> k.startsWith("boom"));
  }

  private static StartGroups.Request request(String key) {
    return new StartGroups.Request("default", "order", null, key, "{}", null, new Actor("anonymous", null),
        new CompletableFuture<>());
  }
}
