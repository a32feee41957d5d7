package dev.baton.reliability.infra;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one child JVM holds, read from outside: its heap after a full GC ({@code jcmd}), RSS and threads
 * ({@code /proc}), and its TCP connections to a port ({@code ss}). Several runtimes share one vhost, one database
 * and one application name, so the broker and the database cannot tell their connections apart; the sockets can.
 */
public final class ProcessProbe {

  private static final Pattern USED = Pattern.compile("used (\\d+)K");
  private static final String JCMD = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();

  private ProcessProbe() {}

  /** KiB in use in the heap's generations right after a full GC; 0 if the process is gone. */
  public static long heapAfterGcKb(long pid) {
    Cmd.run(List.of(JCMD, String.valueOf(pid), "GC.run"), Map.of(), 60, false);
    String heap = Cmd.run(List.of(JCMD, String.valueOf(pid), "GC.heap_info"), Map.of(), 60, false);
    long kb = 0;
    for (String line : heap.lines().toList()) {
      if (line.contains("generation")) {
        Matcher m = USED.matcher(line);
        if (m.find()) {
          kb += Long.parseLong(m.group(1));
        }
      }
    }
    return kb;
  }

  /** RSS in KiB and the thread count, from {@code /proc/<pid>/status}; zeros if the process is gone. */
  public static long[] rssKbAndThreads(long pid) {
    long rss = 0;
    long threads = 0;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = Long.parseLong(line.replaceAll("\\D", ""));
        } else if (line.startsWith("Threads:")) {
          threads = Long.parseLong(line.replaceAll("\\D", ""));
        }
      }
    } catch (Exception gone) {
      // process gone: zeros
    }
    return new long[] {rss, threads};
  }

  /** The local ports of the process's established TCP connections to 127.0.0.1:{@code remotePort}. */
  public static List<Integer> localPortsTo(long pid, int remotePort) {
    String out = Cmd.run(List.of("ss", "-Htnp", "state", "established", "dst", "127.0.0.1:" + remotePort), Map.of(),
        30, false);
    List<Integer> ports = new ArrayList<>();
    for (String line : out.lines().toList()) {
      if (!line.contains("pid=" + pid + ",")) {
        continue;
      }
      // Recv-Q Send-Q Local:Port Peer:Port Process
      String[] f = line.trim().split("\\s+");
      if (f.length >= 4) {
        String local = f[2];
        ports.add(Integer.parseInt(local.substring(local.lastIndexOf(':') + 1)));
      }
    }
    return ports;
  }
}
