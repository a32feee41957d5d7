package dev.baton.cli.login;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.cli.support.CliException;
import dev.baton.cli.support.ExitCodes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * The tokens {@code baton login} saved, one per runtime URL, in {@code $XDG_CONFIG_HOME/baton/logins.json} (else
 * {@code ~/.config/baton/logins.json}), readable by its owner only, as kubectl keeps its kubeconfig. A token is
 * never printed; the file holds nothing else.
 */
public final class SavedLogins {

  private final Path file;

  public SavedLogins(Path file) {
    this.file = file;
  }

  /** The file under {@code configHome} ({@code XDG_CONFIG_HOME}; blank: {@code ~/.config}). */
  public static SavedLogins under(String configHome) {
    Path dir = configHome == null || configHome.isBlank() ? Path.of(System.getProperty("user.home"), ".config")
        : Path.of(configHome);
    return new SavedLogins(dir.resolve("baton").resolve("logins.json"));
  }

  public Path file() {
    return file;
  }

  /** The token saved for {@code runtimeUrl}, if any. */
  public Optional<String> token(String runtimeUrl) {
    ObjectNode all = read();
    return Optional.ofNullable(all.path(key(runtimeUrl)).path("token").textValue());
  }

  /** Saves {@code token} for {@code runtimeUrl}, replacing the one saved before. */
  public void save(String runtimeUrl, String token) {
    ObjectNode all = read();
    all.putObject(key(runtimeUrl)).put("token", token);
    write(all);
  }

  /** Forgets the token of {@code runtimeUrl}; whether there was one. */
  public boolean forget(String runtimeUrl) {
    ObjectNode all = read();
    boolean had = all.remove(key(runtimeUrl)) != null;
    if (had) {
      write(all);
    }
    return had;
  }

  /** One key per runtime, whatever trailing slash the URL was given with. */
  private static String key(String runtimeUrl) {
    String u = runtimeUrl.trim();
    return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
  }

  private ObjectNode read() {
    if (!Files.exists(file)) {
      return Json.object();
    }
    try {
      return Json.readObject(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      throw new CliException(ExitCodes.USAGE, "cannot read the saved logins in " + file + " (" + e.getMessage()
          + "): fix or delete the file, then run `baton login` again");
    }
  }

  private void write(ObjectNode all) {
    try {
      Files.createDirectories(file.getParent());
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.deleteIfExists(tmp);
      try {
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException notPosix) {
        Files.createFile(tmp);
      }
      Files.writeString(tmp, Json.PRETTY.writeValueAsString(all), StandardCharsets.UTF_8);
      Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new CliException(ExitCodes.USAGE, "cannot save the login in " + file + ": " + e.getMessage());
    }
  }
}
