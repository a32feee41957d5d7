package dev.baton.bench;

import dev.baton.contract.topology.QueueType;

/**
 * One measurement's knobs. Zero for a runtime knob means "the runtime's own default" (what a user gets).
 *
 * @param steps steps per workflow (no-op workers)
 * @param instances instances preloaded for the saturation (drain) measurement and the ceiling
 * @param durationSeconds length of the sustained and fixed-rate measurement windows
 * @param warmupSeconds time before the sustained window opens
 * @param rate fixed start rate in workflows/s; 0: half of the measured saturation
 * @param threads runtime consumer threads (0: default)
 * @param prefetch runtime prefetch per consumer (0: default)
 * @param outboxBatch outbox relay batch size (0: default)
 * @param eventBatch events per step-loop transaction (0: default)
 * @param poolSize database pool size (0: default)
 * @param queueType queue type of every command and orchestrator queue
 * @param payloadBytes size of each instance's input (and so of every command body)
 * @param workerPrefetch prefetch of each worker channel
 * @param workerChannels worker channels per command queue
 * @param httpClients concurrent HTTP clients starting instances
 * @param inFlight instances kept running in the sustained (closed-loop) measurement
 * @param stepTimeout every step's timeout (e.g. 5m), or null for none
 * @param shape how the steps are arranged: {@link Shape}
 * @param batchSize starts per request of the batch start phase (the endpoint takes up to 1,000)
 * @param batchClients concurrent clients posting batches
 * @param commands how many distinct commands the tasks take in turn (task {@code i} runs command {@code i mod
 *     commands}, each command on a service of its own up to {@link Stack#MAX_SERVICES}); 0: one per task
 * @param items the length of the list {@code items} in each instance input (0: none); a {@link Shape#MAP} maps over it
 * @param mapConcurrency a {@link Shape#MAP}'s {@code maxConcurrency}; 0 leaves it unset (every iteration at once)
 * @param maxInFlight every command's {@code maxInFlight} on its WorkerService; 0: no limit (no WorkerService at all)
 */
record BenchConfig(
    int steps,
    int instances,
    int durationSeconds,
    int warmupSeconds,
    double rate,
    int threads,
    int prefetch,
    int outboxBatch,
    int eventBatch,
    int poolSize,
    QueueType queueType,
    int payloadBytes,
    int workerPrefetch,
    int workerChannels,
    int httpClients,
    int inFlight,
    String stepTimeout,
    Shape shape,
    int batchSize,
    int batchClients,
    int commands,
    int items,
    int mapConcurrency,
    int maxInFlight) {

  /**
   * The workflow's shape: {@code steps} tasks in a line, as branches of one parallel group, inside a choice, or as the
   * iterations of one map over the input's {@code items} ({@code steps} items, one task per iteration).
   */
  enum Shape { LINEAR, PARALLEL, CHOICE, MAP }

  static BenchConfig defaults() {
    return new BenchConfig(3, 5_000, 20, 5, 0, 0, 0, 0, 0, 0, QueueType.CLASSIC, 300, 50, 1, 32, 400, "5m", Shape.LINEAR, 1000, 2,
        0, 0, 0, 0);
  }

  BenchConfig withSteps(int v) {
    return new BenchConfig(v, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients,
        commands, items, mapConcurrency, maxInFlight);
  }

  BenchConfig withThreads(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, v, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients,
        commands, items, mapConcurrency, maxInFlight);
  }

  BenchConfig withPrefetch(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, v, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients,
        commands, items, mapConcurrency, maxInFlight);
  }

  BenchConfig withOutboxBatch(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, v,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients,
        commands, items, mapConcurrency, maxInFlight);
  }

  BenchConfig withQueueType(QueueType v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, v, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients,
        commands, items, mapConcurrency, maxInFlight);
  }

  BenchConfig withPayloadBytes(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, v, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients,
        commands, items, mapConcurrency, maxInFlight);
  }

  BenchConfig withInstances(int v) {
    return new BenchConfig(steps, v, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients,
        commands, items, mapConcurrency, maxInFlight);
  }

  BenchConfig withMaxInFlight(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout,
        shape, batchSize, batchClients, commands, items, mapConcurrency, v);
  }

  BenchConfig withShape(Shape v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout,
        v, batchSize, batchClients,
        commands, items, mapConcurrency, maxInFlight);
  }

  BenchConfig withCommands(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout,
        shape, batchSize, batchClients, v, items, mapConcurrency, maxInFlight);
  }

  BenchConfig withItems(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout,
        shape, batchSize, batchClients, commands, v, mapConcurrency, maxInFlight);
  }

  BenchConfig withMapConcurrency(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout,
        shape, batchSize, batchClients, commands, items, v, maxInFlight);
  }

  /**
   * The instance input: a JSON object of about {@link #payloadBytes} bytes (more when it holds {@link #items}), with
   * {@code n} and, when {@link #items} is set, {@code items}: the numbers 0 to items - 1.
   */
  String input(long n) {
    StringBuilder head = new StringBuilder("{\"n\":").append(n);
    if (items > 0) {
      head.append(",\"items\":[");
      for (int i = 0; i < items; i++) {
        head.append(i == 0 ? "" : ",").append(i);
      }
      head.append(']');
    }
    head.append(",\"pad\":\"");
    int pad = Math.max(0, payloadBytes - head.length() - 2);
    return head + "x".repeat(pad) + "\"}";
  }
}
