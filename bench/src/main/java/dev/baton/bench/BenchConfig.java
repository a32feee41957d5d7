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
    int batchClients) {

  /** The workflow's shape: {@code steps} tasks in a line, as branches of one parallel group, or inside a choice. */
  enum Shape { LINEAR, PARALLEL, CHOICE }

  static BenchConfig defaults() {
    return new BenchConfig(3, 5_000, 20, 5, 0, 0, 0, 0, 0, 0, QueueType.CLASSIC, 300, 50, 1, 32, 400, "5m", Shape.LINEAR, 1000, 2);
  }

  BenchConfig withSteps(int v) {
    return new BenchConfig(v, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients);
  }

  BenchConfig withThreads(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, v, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients);
  }

  BenchConfig withPrefetch(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, v, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients);
  }

  BenchConfig withOutboxBatch(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, v,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients);
  }

  BenchConfig withQueueType(QueueType v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, v, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients);
  }

  BenchConfig withPayloadBytes(int v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, v, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients);
  }

  BenchConfig withInstances(int v) {
    return new BenchConfig(steps, v, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout, shape, batchSize, batchClients);
  }

  BenchConfig withShape(Shape v) {
    return new BenchConfig(steps, instances, durationSeconds, warmupSeconds, rate, threads, prefetch, outboxBatch,
        eventBatch, poolSize, queueType, payloadBytes, workerPrefetch, workerChannels, httpClients, inFlight, stepTimeout,
        v, batchSize, batchClients);
  }

  /** The instance input: a JSON object of about {@link #payloadBytes} bytes. */
  String input(long n) {
    String head = "{\"n\":" + n + ",\"pad\":\"";
    int pad = Math.max(0, payloadBytes - head.length() - 2);
    return head + "x".repeat(pad) + "\"}";
  }
}
