package dev.baton.reliability.suite;

import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.infra.JavaProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a rig starts its child JVMs (runtimes, replicas, workers): this JVM's classpath, each child's output in a log
 * named after the rig under {@link Infra#logDir()}, and by default the C1 compiler only.
 */
public final class ChildJvms {

  private final String rig;
  /**
   * Child JVMs with the C1 compiler only: they start in a second or two on a busy machine, which is what the fault
   * scenarios time (restarts). The soak turns it off: its runtime runs as long as a real one, with both compilers.
   */
  private volatile boolean quickStart = true;

  ChildJvms(String rig) {
    this.rig = rig;
  }

  /** Whether child JVMs started from now on run the C1 compiler only (see the field); the soak turns it off. */
  public void quickStart(boolean on) {
    quickStart = on;
  }

  /** {@code mainClass} in a JVM of its own, its output in {@code <rig>-<log>.log}. */
  JavaProcess start(String mainClass, List<String> args, Map<String, String> env, List<String> jvmArgs, String log) {
    List<String> all = new ArrayList<>(quickStart ? List.of("-XX:TieredStopAtLevel=1") : List.of());
    all.addAll(jvmArgs);
    return JavaProcess.start(mainClass, args, env, all, Infra.logDir().resolve(rig + "-" + log + ".log"));
  }
}
