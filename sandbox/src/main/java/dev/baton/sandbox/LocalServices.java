package dev.baton.sandbox;

import dev.baton.contract.settings.SettingsReader;

/**
 * Where the real RabbitMQ and PostgreSQL of the tests are: localhost by default (docs/design.md#where-it-runs),
 * overridable with {@code BATON_TEST_*} environment variables for other machines, named like the product's own
 * ({@code BATON_TEST_RABBITMQ_USERNAME} as {@code BATON_RABBITMQ_USERNAME}) and read by the same reader.
 */
public final class LocalServices {

  private static final SettingsReader ENV = SettingsReader.of(System.getenv());

  public static final String RABBITMQ_HOST = ENV.string("BATON_TEST_RABBITMQ_HOST", "127.0.0.1");
  public static final int RABBITMQ_PORT = ENV.integer("BATON_TEST_RABBITMQ_PORT", 5672, 1, 65_535);
  public static final String RABBITMQ_MANAGEMENT_URL = ENV.uri("BATON_TEST_RABBITMQ_MANAGEMENT_URL",
      "http://" + RABBITMQ_HOST + ":15672/api/", "http", "https");
  public static final String RABBITMQ_USERNAME = ENV.string("BATON_TEST_RABBITMQ_USERNAME", "guest");
  public static final String RABBITMQ_PASSWORD = ENV.secret("BATON_TEST_RABBITMQ_PASSWORD", "guest");

  public static final String DATABASE_HOST = ENV.string("BATON_TEST_DATABASE_HOST", "127.0.0.1");
  public static final int DATABASE_PORT = ENV.integer("BATON_TEST_DATABASE_PORT", 5432, 1, 65_535);
  public static final String DATABASE_USERNAME = ENV.string("BATON_TEST_DATABASE_USERNAME", "postgres");
  public static final String DATABASE_PASSWORD = ENV.secret("BATON_TEST_DATABASE_PASSWORD", "");

  static {
    ENV.requireValid();
  }

  private LocalServices() {}

  public static String postgresUrl(String database) {
    return "jdbc:postgresql://" + DATABASE_HOST + ":" + DATABASE_PORT + "/" + database;
  }
}
