package dev.baton.helm;

import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.metrics.PoolStats;
import dev.baton.contract.EventResult;
import dev.baton.operator.monitoring.OperatorMetrics;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.InstanceStore.StatusCount;
import dev.baton.runtime.store.LimitStore;
import dev.baton.runtime.store.RunningSteps;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the runtime and the operator really export, as Prometheus scrapes it: their metric classes with every meter
 * touched (a meter appears in a scrape only once it has a value), the pool, broker client and HTTP meters included.
 * The dashboard and the alerts may query nothing else, and no label the series do not carry. (HttpApiIT holds a real
 * runtime's /metrics to the same names.)
 */
final class ExportedMetrics {

  /**
   * A metric of the runtime or the operator in a query: the families they export. The broker's own metrics
   * ({@code rabbitmq_detailed_*}, from its Prometheus plugin) are not theirs.
   */
  static final Pattern NAME = Pattern.compile(
      "\\b((?:baton|operator_sdk|jvm|process|system|hikaricp|http_server|rabbitmq_client)_[a-z_]+)\\b");

  /** Labels Prometheus gives every series from its scrape target, whatever the metric. */
  private static final Set<String> TARGET_LABELS = Set.of("namespace", "pod", "job", "instance", "container",
      "endpoint");
  /** A label set, whose quoted values may hold braces ({@code uri="/api/v1/instances/{id}"}). */
  private static final String LABELS = "\\{((?:[^\"}]|\"(?:[^\"\\\\]|\\\\.)*\")*)}";
  private static final Pattern SELECTOR = Pattern.compile("\\b([a-z_:][a-z0-9_:]*)" + LABELS);
  private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(?:=~|!~|!=|=)");
  private static final Pattern GROUPING = Pattern.compile("\\bby\\s*\\(([^)]*)\\)");
  private static final Pattern SERIES = Pattern.compile("(?m)^([a-z_:][a-z0-9_:]*)(?:" + LABELS + ")? ");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");

  private ExportedMetrics() {}

  static String scrape() {
    return runtime().scrape() + operator().scrape();
  }

  /**
   * What is wrong with a query, empty when nothing: a metric not exported, a label in a selector or a grouping its
   * metric does not carry. A query is taken apart at its set operators (unless, and, or): each part groups one
   * metric.
   */
  static List<String> problems(String query, String exported) {
    Map<String, Set<String>> labels = labelsByMetric(exported);
    List<String> problems = new ArrayList<>();
    for (String part : query.split("\\b(?:unless|and|or)\\b")) {
      Set<String> metrics = new TreeSet<>();
      Matcher m = NAME.matcher(part);
      while (m.find()) {
        metrics.add(m.group(1));
      }
      for (String metric : metrics) {
        if (!labels.containsKey(metric)) {
          problems.add("metric " + metric + " is not exported");
        }
      }
      Matcher selector = SELECTOR.matcher(part);
      while (selector.find()) {
        if (labels.containsKey(selector.group(1))) {
          missing(selector.group(1), names(MATCHER, selector.group(2)), labels, problems);
        }
      }
      Matcher grouping = GROUPING.matcher(part);
      while (grouping.find() && metrics.size() == 1) {
        String metric = metrics.iterator().next();
        if (labels.containsKey(metric)) {
          missing(metric, Arrays.stream(grouping.group(1).split(",")).map(String::trim).filter(l -> !l.isEmpty())
              .toList(), labels, problems);
        }
      }
    }
    return problems;
  }

  private static void missing(String metric, List<String> used, Map<String, Set<String>> labels,
      List<String> problems) {
    for (String label : used) {
      if (!TARGET_LABELS.contains(label) && !labels.get(metric).contains(label)) {
        problems.add(metric + " has no label " + label + " (it has " + labels.get(metric) + ")");
      }
    }
  }

  private static Map<String, Set<String>> labelsByMetric(String exported) {
    Map<String, Set<String>> labels = new HashMap<>();
    Matcher series = SERIES.matcher(exported);
    while (series.find()) {
      Set<String> of = labels.computeIfAbsent(series.group(1), k -> new TreeSet<>());
      if (series.group(2) != null) {
        of.addAll(names(LABEL, series.group(2)));
      }
    }
    return labels;
  }

  private static List<String> names(Pattern pattern, String text) {
    List<String> names = new ArrayList<>();
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      names.add(m.group(1));
    }
    return names;
  }

  private static RuntimeMetrics runtime() {
    RuntimeMetrics m = new RuntimeMetrics();
    m.eventApplied("default", "w", "s", EventResult.SUCCESS, 12);
    m.duplicateIgnored("default", "w");
    m.staleIgnored("default", "w");
    m.foreignIgnored("default", "w");
    m.parked("default", "w", RuntimeMetrics.ParkReason.values()[0]);
    m.instanceStarted("default", "w");
    m.stepTimedOut("default", "w");
    m.outboxPublished(1);
    m.outboxUnroutable("x.command.topic.ex", 1);
    m.instanceCounts(List.of(new StatusCount("default", "w", "RUNNING", 1)));
    m.outboxBacklog(1, 0.5);
    m.dependencies(() -> true, () -> true);
    m.runningSteps(List.of(new RunningSteps.Group("default", "w", "s", 1, 2.0, 0.1)));
    m.commandCapacity(List.of(new LimitStore.Waiting("default", "svc", "c", 1, 2)));
    m.brokerBlocked(() -> false);
    m.connectionPool().create("baton-runtime", new PoolStats(0) {
      @Override
      protected void update() {}
    }).recordConnectionAcquiredNanos(1_000);
    m.httpRequest("GET", "/api/v1/instances/{id}", 200, 1_000_000);
    // GC pauses are timed from the first collection after the meters were bound.
    System.gc();
    await().atMost(Duration.ofSeconds(10)).until(() -> m.scrape().contains("jvm_gc_pause_seconds_count"));
    return m;
  }

  private static OperatorMetrics operator() {
    OperatorMetrics m = new OperatorMetrics();
    m.deadLetters("payment", "q.dlx.payment.pay", 1);
    // JOSDK's reconciliation meters, as the operator's controllers drive them
    ConfigMap resource = new ConfigMap();
    resource.setMetadata(new ObjectMetaBuilder().withName("x").withNamespace("default").build());
    m.josdk().failedReconciliation(resource, new IllegalStateException("test"), Map.of());
    return m;
  }
}
