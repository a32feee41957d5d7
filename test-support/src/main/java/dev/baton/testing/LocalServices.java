package dev.baton.testing;

/**
 * Where the real RabbitMQ and PostgreSQL of the tests are: localhost by default (docs/design.md#where-it-runs), overridable with
 * environment variables for other machines.
 */
public final class LocalServices {

  public static final String RABBITMQ_HOST = env("BATON_TEST_RABBITMQ_HOST", "127.0.0.1");
  public static final int RABBITMQ_PORT = Integer.parseInt(env("BATON_TEST_RABBITMQ_PORT", "5672"));
  public static final String RABBITMQ_MANAGEMENT_URL =
      env("BATON_TEST_RABBITMQ_MANAGEMENT_URL", "http://" + RABBITMQ_HOST + ":15672/api/");
  public static final String RABBITMQ_USER = env("BATON_TEST_RABBITMQ_USER", "guest");
  public static final String RABBITMQ_PASSWORD = env("BATON_TEST_RABBITMQ_PASSWORD", "guest");

  public static final String POSTGRES_HOST = env("BATON_TEST_POSTGRES_HOST", "127.0.0.1");
  public static final int POSTGRES_PORT = Integer.parseInt(env("BATON_TEST_POSTGRES_PORT", "5432"));
  public static final String POSTGRES_USER = env("BATON_TEST_POSTGRES_USER", "postgres");
  public static final String POSTGRES_PASSWORD = env("BATON_TEST_POSTGRES_PASSWORD", "");

  private LocalServices() {}

  public static String postgresUrl(String database) {
    return "jdbc:postgresql://" + POSTGRES_HOST + ":" + POSTGRES_PORT + "/" + database;
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }
}
