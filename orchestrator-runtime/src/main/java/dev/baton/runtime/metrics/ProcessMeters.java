package dev.baton.runtime.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/**
 * Micrometer's binders for the JVM and the process: heap and non-heap memory ({@code jvm_memory_*}), GC pauses
 * ({@code jvm_gc_pause_seconds}), threads, classes loaded, CPU ({@code process_cpu_usage}, {@code system_cpu_*}) and
 * uptime.
 */
final class ProcessMeters {

  private ProcessMeters() {}

  @SuppressWarnings("resource") // JvmGcMetrics listens to the GC for the life of the process, as the registry does
  static void bindTo(MeterRegistry registry) {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
  }
}
