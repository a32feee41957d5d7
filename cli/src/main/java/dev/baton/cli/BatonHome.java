package dev.baton.cli;

import dev.baton.contract.settings.SettingsReader;
import java.nio.file.Path;
import java.util.Map;

/** {@code BATON_HOME}: the repository, which {@code bin/baton} exports. */
final class BatonHome {

  private BatonHome() {}

  /** {@code BATON_HOME}, or {@code otherwise} when it is unset. */
  static Path of(Map<String, String> env, Path otherwise) {
    String home = SettingsReader.read(env, r -> r.string("BATON_HOME", null));
    return home == null ? otherwise : Path.of(home);
  }
}
