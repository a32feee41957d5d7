package dev.baton.cli;

import dev.baton.cli.support.EnvVariable;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/** The runtime's database, as {@code baton dev} and {@code baton runtime} take it (flags, else BATON_DATABASE_*). */
final class DatabaseOptions {

  @EnvVariable("BATON_DATABASE_URL")
  @Option(names = "--database-url", description = "JDBC URL of the runtime's database (created when missing).",
      defaultValue = "jdbc:postgresql://127.0.0.1:5432/baton")
  String url;

  @EnvVariable("BATON_DATABASE_USERNAME")
  @Option(names = "--database-username", description = "Database user.", defaultValue = "postgres")
  String username;

  @EnvVariable(value = "BATON_DATABASE_PASSWORD", secret = true)
  @Option(names = "--database-password", description = "Its password (better: from the environment).",
      defaultValue = "", showDefaultValue = Visibility.NEVER)
  String password;
}
