package dev.baton.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU and heap over a measured phase: the benchmark JVM's CPU time over wall time (it holds the runtime, the workers
 * and the load generator), the whole machine's busy CPU from {@code /proc/stat} (broker and database included) and
 * the CPU time the hypervisor took from it (steal), the 1-minute load average, and the heap in use after a full GC at
 * the end of the phase.
 */
final class Resources {

  /**
   * What a phase used. Cores: 1.0 = one core busy all along.
   *
   * @param machineCores the machine's CPUs busy running something (steal not included)
   * @param stealCores the CPU time the hypervisor gave to others while this machine had work to run ("steal"): on
   *     a shared host it varies from run to run, and every figure with it
   */
  record Usage(double jvmCores, double machineCores, int machineCpus, double loadAverage, double heapAfterGcMb,
      double heapCommittedMb, double postgresCores, double rabbitCores, double jitCores, double stealCores) {

    /**
     * The CPU time each part spent per step applied, in ms: the same work costs more per step when fewer steps share a
     * transaction, a publish and a delivery, which is what shows below saturation. The JVM's compilers are left out.
     */
    PerStep perStep(double stepsPerSecond) {
      double msPerCoreSecond = stepsPerSecond > 0 ? 1_000 / stepsPerSecond : Double.NaN;
      return new PerStep((jvmCores - jitCores) * msPerCoreSecond, postgresCores * msPerCoreSecond,
          rabbitCores * msPerCoreSecond, machineCores * msPerCoreSecond);
    }
  }

  /** CPU time per step applied, in ms (NaN where no step was). */
  record PerStep(double jvmMs, double postgresMs, double rabbitMs, double machineMs) {}

  /** The machine's CPU time so far from the {@code cpu} line of {@code /proc/stat}, in clock ticks. */
  record CpuTimes(long total, long idle, long steal) {

    /** Now, or null where there is no /proc/stat. */
    static CpuTimes read() {
      try {
        for (String line : Files.readAllLines(Path.of("/proc/stat"))) {
          if (line.startsWith("cpu ")) {
            String[] f = line.trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < f.length && i <= 8; i++) { // user … softirq, steal (guest time is inside user)
              total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]); // idle, iowait
            return new CpuTimes(total, idle, f.length > 8 ? Long.parseLong(f[8]) : 0);
          }
        }
      } catch (IOException | RuntimeException e) {
        return null;
      }
      return null;
    }

    /** Of the time since {@code before}, the share the hypervisor took (steal); NaN when unknown. */
    double stealShareSince(CpuTimes before) {
      return before == null || total <= before.total ? Double.NaN
          : (double) (steal - before.steal) / (total - before.total);
    }

    /** Of the time since {@code before}, the share spent running something here (neither idle nor stolen). */
    double busyShareSince(CpuTimes before) {
      return before == null || total <= before.total ? Double.NaN
          : 1 - (double) (idle - before.idle + steal - before.steal) / (total - before.total);
    }
  }

  /** Databases of this run: PostgreSQL backends serving other databases (other people's tests) are not counted. */
  private static final java.util.Set<String> DATABASES = java.util.concurrent.ConcurrentHashMap.newKeySet();

  static void trackDatabase(String name) {
    DATABASES.add(name);
  }

  /** Clock ticks per second of /proc's CPU times on Linux. */
  private static final double USER_HZ = 100.0;

  private final long wall0 = System.nanoTime();
  private final long cpu0 = processCpuNanos();
  private final double jit0 = compilerSeconds();
  private final CpuTimes stat0 = CpuTimes.read();
  private final Split split0 = cpuSplit();

  static Resources start() {
    return new Resources();
  }

  Usage stop() {
    long wall = System.nanoTime() - wall0;
    long cpu = processCpuNanos() - cpu0;
    CpuTimes stat1 = CpuTimes.read();
    int cpus = Runtime.getRuntime().availableProcessors();
    double machine = stat1 == null ? Double.NaN : stat1.busyShareSince(stat0) * cpus;
    double steal = stat1 == null ? Double.NaN : stat1.stealShareSince(stat0) * cpus;
    Split split1 = cpuSplit();
    double pg = Double.NaN;
    double rabbit = Double.NaN;
    if (split0 != null && split1 != null && wall > 0) {
      pg = split1.postgresSince(split0) / USER_HZ / (wall / 1e9);
      rabbit = (split1.rabbit() - split0.rabbit()) / USER_HZ / (wall / 1e9);
    }
    double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    System.gc();
    double used = memory.getHeapMemoryUsage().getUsed() / 1048576.0;
    double committed = memory.getHeapMemoryUsage().getCommitted() / 1048576.0;
    double jit1 = compilerSeconds();
    double jit = jit0 < 0 || jit1 < 0 || wall <= 0 ? Double.NaN : Math.max(0, jit1 - jit0) / (wall / 1e9);
    return new Usage(wall > 0 ? (double) cpu / wall : Double.NaN, machine, cpus, load, used, committed, pg, rabbit,
        jit, steal);
  }

  /**
   * CPU the JIT compiler threads of this JVM have used so far, in seconds, from /proc/self/task, or -1
   * where there is no /proc. The compiler threads' work is CPU the runtime under test does not get: on 2 cores, C2
   * took most of a core for over a minute after the first 3,000 instances. Not the JVM's own compilation time
   * (CompilationMXBean): that is elapsed time, summed over the compiler threads, and on a saturated machine it read
   * 0.6-0.9 "cores" where the compiler threads' CPU was a fraction of it. Compiler threads that ended in between
   * (the JVM starts and stops some with the load) are missed.
   */
  static double compilerSeconds() {
    long ticks = 0;
    try (var tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          ProcStat stat = ProcStat.read(t);
          if (stat.comm().startsWith("C1 CompilerThre") || stat.comm().startsWith("C2 CompilerThre")) {
            ticks += stat.ticks();
          }
        } catch (IOException | RuntimeException e) {
          // the thread ended meanwhile
        }
      }
      return ticks / USER_HZ;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return 0;
  }

  /**
   * A process's or thread's line of {@code /proc/.../stat}: its command name (between the parentheses, which may
   * hold spaces), its parent and the CPU ticks it has used (user + system).
   */
  private record ProcStat(String comm, long ppid, long ticks) {

    static ProcStat read(Path dir) throws IOException {
      String stat = Files.readString(dir.resolve("stat"));
      int close = stat.lastIndexOf(')');
      String[] f = stat.substring(close + 2).split(" ");
      return new ProcStat(stat.substring(stat.indexOf('(') + 1, close), Long.parseLong(f[1]),
          Long.parseLong(f[11]) + Long.parseLong(f[12]));
    }
  }

  /** CPU ticks so far: our backends, the servers they run on, every server's background processes, the broker. */
  private record Split(long ourBackends, java.util.Set<Long> ourServers, Map<Long, Long> background, long rabbit) {

    /** PostgreSQL ticks between {@code before} and this (backends that came and went in between are missed). */
    long postgresSince(Split before) {
      long t = ourBackends - before.ourBackends;
      for (Long server : ourServers) {
        long now = background.getOrDefault(server, 0L);
        t += now - before.background.getOrDefault(server, now);
      }
      return Math.max(0, t);
    }
  }

  /**
   * CPU ticks used so far by PostgreSQL's processes and by the RabbitMQ node the benchmark talks to (the broker whose
   * node runs as the rabbitmq user), or null where there is no /proc. Processes that ended in between are missed, which
   * PostgreSQL's long-lived backends and the broker's single process do not.
   */
  private static Split cpuSplit() {
    long rabbit = 0;
    // PostgreSQL: backends of this run's databases, and the background processes (WAL writer, checkpointer,
    // autovacuum...) of the server they belong to; other databases and other servers (other people's tests) are
    // left out.
    Map<Long, Long> background = new HashMap<>(); // ppid -> ticks summed
    Map<Long, Long> ours = new HashMap<>(); // ppid (the server) -> ticks of our backends
    try (var dirs = Files.list(Path.of("/proc"))) {
      for (Path d : (Iterable<Path>) dirs::iterator) {
        String name = d.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          ProcStat stat = ProcStat.read(d);
          String comm = stat.comm();
          long ppid = stat.ppid();
          long ticks = stat.ticks();
          if (comm.equals("postgres")) {
            String[] title = Files.readString(d.resolve("cmdline")).replace('\0', ' ').trim().split("\\s+");
            int host = -1;
            for (int i = 0; i < title.length; i++) {
              if (title[i].contains("(") && title[i].endsWith(")")) {
                host = i;
                break;
              }
            }
            if (host < 0) {
              background.merge(ppid, ticks, Long::sum);
            } else if (host >= 1 && DATABASES.contains(title[host - 1])) {
              ours.merge(ppid, ticks, Long::sum);
            }
          } else if (comm.startsWith("beam")) {
            String cmd = Files.readString(d.resolve("cmdline"));
            if (cmd.contains("/var/lib/rabbitmq")) {
              rabbit += ticks;
            }
          }
        } catch (IOException | RuntimeException e) {
          // the process ended meanwhile
        }
      }
      return new Split(ours.values().stream().mapToLong(Long::longValue).sum(), ours.keySet(), background, rabbit);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
