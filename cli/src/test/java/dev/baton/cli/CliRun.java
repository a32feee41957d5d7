package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import picocli.CommandLine;

/** {@code baton args...} run in-process with the environment {@code env}: its exit code and what it printed. */
record CliRun(int code, String out, String err) {

  private static final ObjectMapper JSON = new ObjectMapper();

  static CliRun baton(Map<String, String> env, String... args) {
    CommandLine cli = BatonCli.commandLine(env);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new CliRun(code, out.toString(), err.toString());
  }

  JsonNode json() throws Exception {
    return JSON.readTree(out);
  }
}
