package dev.baton.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * A JFR recording of one phase (the JDK's own profiler, settings "profile"), summarised as the hottest leaf frames,
 * the hottest Baton frames (the first {@code dev.baton} frame of each sample's stack) and the samples per thread
 * pool. Open the file itself with {@code jfr print --events jdk.ExecutionSample} or JDK Mission Control.
 */
final class Profiler {

  private final Recording recording;
  private final Path file;

  private Profiler(Recording recording, Path file) {
    this.recording = recording;
    this.file = file;
  }

  static Profiler start(Path file) throws IOException, ParseException {
    Recording r = new Recording(Configuration.getConfiguration("profile"));
    r.setToDisk(true);
    r.start();
    return new Profiler(r, file);
  }

  String stopAndSummarize(int top) throws IOException {
    recording.stop();
    recording.dump(file);
    recording.close();
    Map<String, Integer> leaves = new HashMap<>();
    Map<String, Integer> baton = new HashMap<>();
    Map<String, Integer> threads = new HashMap<>();
    int samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
        continue;
      }
      RecordedStackTrace st = e.getStackTrace();
      if (st == null || st.getFrames().isEmpty()) {
        continue;
      }
      samples++;
      List<RecordedFrame> frames = st.getFrames();
      leaves.merge(name(frames.get(0)), 1, Integer::sum);
      threads.merge(threadGroup(e), 1, Integer::sum);
      for (RecordedFrame f : frames) {
        String n = name(f);
        if (n.startsWith("dev.baton.")) {
          baton.merge(n, 1, Integer::sum);
          break;
        }
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append(String.format(Locale.ROOT, "%d samples in %s%n%nhottest leaf frames:%n", samples, file));
    append(sb, leaves, samples, top);
    sb.append(String.format(Locale.ROOT, "%nhottest Baton frames (first dev.baton frame of a sample):%n"));
    append(sb, baton, samples, top);
    sb.append(String.format(Locale.ROOT, "%nsamples by thread (names without their numbers):%n"));
    append(sb, threads, samples, top);
    return sb.toString();
  }

  private static void append(StringBuilder sb, Map<String, Integer> counts, int samples, int top) {
    counts.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(top)
        .forEach(e -> sb.append(String.format(Locale.ROOT, "%6.2f%%  %s%n", 100.0 * e.getValue() / samples,
            e.getKey())));
  }

  /** The sampled thread's name with its digits dropped, so that a pool's threads count as one. */
  private static String threadGroup(RecordedEvent e) {
    RecordedThread t = e.getThread("sampledThread");
    String n = t == null ? null : t.getJavaName();
    return n == null ? "?" : n.replaceAll("[0-9]+", "#");
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }
}
