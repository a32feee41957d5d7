package dev.baton.reliability.infra;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Three (or more) {@link PrivateRabbit} nodes on this machine, each on its own ports and data, sharing one Erlang
 * cookie and clustered with {@code rabbitmqctl join_cluster}: what quorum queues need to survive a node. The shared
 * broker is never part of it. Closed by the caller (a JVM shutdown hook too, should a test fail).
 */
public final class RabbitCluster implements AutoCloseable {

  private final List<PrivateRabbit> nodes;

  private RabbitCluster(List<PrivateRabbit> nodes) {
    this.nodes = List.copyOf(nodes);
  }

  public static RabbitCluster start(Path dir, TestCa ca, int size) {
    String cookie = "BATONCLUSTER" + UUID.randomUUID().toString().replace("-", "").toUpperCase();
    List<PrivateRabbit> nodes = new ArrayList<>();
    Thread hook = new Thread(() -> nodes.forEach(PrivateRabbit::close), "baton-reliability-cluster-teardown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      for (int i = 0; i < size; i++) {
        nodes.add(PrivateRabbit.start(dir.resolve("node-" + i), ca, cookie));
      }
      String first = nodes.get(0).node();
      for (PrivateRabbit n : nodes.subList(1, size)) {
        n.ctl(120, "stop_app");
        n.ctl(120, "join_cluster", first);
        n.startApp();
      }
      nodes.get(0).ctl(60, "await_online_nodes", String.valueOf(size));
      return new RabbitCluster(nodes);
    } catch (RuntimeException e) {
      nodes.forEach(PrivateRabbit::close);
      throw e;
    }
  }

  public PrivateRabbit node(int i) {
    return nodes.get(i);
  }

  public List<Integer> amqpPorts() {
    return nodes.stream().map(PrivateRabbit::amqpPort).toList();
  }

  /** How many nodes the cluster's members see running, asked of {@code via}. */
  public int running(PrivateRabbit via) {
    String status = via.ctl(60, "cluster_status", "--formatter", "json");
    int at = status.indexOf("\"running_nodes\"");
    if (at < 0) {
      return 0;
    }
    String list = status.substring(status.indexOf('[', at), status.indexOf(']', at) + 1);
    return (int) list.chars().filter(c -> c == '@').count();
  }

  @Override
  public void close() {
    nodes.forEach(PrivateRabbit::close);
  }
}
