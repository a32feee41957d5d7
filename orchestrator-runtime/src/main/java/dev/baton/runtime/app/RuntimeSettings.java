package dev.baton.runtime.app;

import dev.baton.contract.TlsTrust;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.messaging.BrokerAddresses;
import dev.baton.runtime.core.StateMachine;
import dev.baton.runtime.http.auth.AuthMode;
import dev.baton.runtime.store.DatabaseSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How the runtime reaches PostgreSQL and RabbitMQ and how it runs. Read from the environment in a cluster; built in
 * code by {@code baton dev} and by tests (start from {@link #localDefaults()} and change it with {@link #toBuilder()}).
 *
 * @param databaseUrl JDBC URL, e.g. {@code jdbc:postgresql://127.0.0.1:5432/baton}
 * @param databaseUsername database user name
 * @param databasePassword its password (never logged)
 * @param createDatabase create the database when it does not exist (dev mode)
 * @param amqpUri broker URI with credentials, e.g. {@code amqp://guest:guest@127.0.0.1:5672/%2F} (never logged)
 * @param httpHost address the HTTP API listens on
 * @param httpPort port of the HTTP API (0 picks a free one)
 * @param consumerThreads threads consuming orchestrator queues, each with its own channel
 * @param prefetch unacknowledged events per consumer
 * @param retention finished instances (and processed-event ids) older than this are purged
 * @param amqpUsername broker user overriding the one in the URI (the operator's Secret has it apart), or null
 * @param amqpPassword its password (never logged), or null
 * @param namespaces namespaces whose Workflows the runtime follows; empty for all
 * @param requireReady refuse to start instances of a Workflow the operator has not marked {@code Ready=True}; when
 *     false, only {@code Ready=False} refuses (no status at all is accepted: no operator, e.g. tests)
 * @param eventBatchSize events already delivered to a consumer thread that may share one transaction
 * @param outboxBatchSize commands the relay publishes per transaction
 * @param outboxPollInterval how often the relay looks for commands without being told (other replicas, backoff)
 * @param timeoutPollInterval how often due step timeouts are looked for
 * @param timeoutBatchSize due instances handled per transaction
 * @param retentionInterval how often the retention purge runs
 * @param metricsRefreshInterval how often the gauges read from the database are refreshed
 * @param consumerRetryInterval how often missing orchestrator queues are looked for again
 * @param databasePoolSize database connections; 0 sizes the pool from the consumer threads
 * @param maxRequestBytes largest HTTP request body accepted (413 beyond)
 * @param apiToken bearer token every API request must carry (never logged); null: the API is open
 * @param apiReadToken a second token that may only read (GET); null: none
 * @param amqpCaFile PEM file of the CA(s) to trust for {@code amqps://}; null: the JVM's default trust store
 * @param amqpAddresses {@code host:port} of the nodes of a RabbitMQ cluster, tried in order (they replace the URI's
 *     host and port; {@code BATON_RABBITMQ_ADDRESSES}); empty: the URI's host
 * @param managementUrl RabbitMQ management API (e.g. {@code http://127.0.0.1:15672/api/}) that the web UI's
 *     dead-letter page reads; null: the page says it is not configured
 * @param managementUsername user for the management API and for replaying dead letters; null: the broker user
 * @param managementPassword its password (never logged); null: the broker user's
 * @param traceUrl where the web UI links an instance's trace: a URL with {@code {traceId}} in it (e.g. a Grafana
 *     Tempo or Jaeger address); null: the UI shows the trace id as text
 * @param maxCommandBytes the largest input (with the earlier outputs it carries) a command may have; a step whose
 *     command would be larger fails with reason PayloadTooLarge instead of being sent
 * @param auth how callers of the API and the UI are known ({@code BATON_AUTH}): the runtime's own tokens, or
 *     Kubernetes tokens and RBAC
 * @param authAudiences the audiences a Kubernetes token must be for ({@code BATON_AUTH_AUDIENCES}); empty: the
 *     API server's own, as {@code kubectl create token} gives without {@code --audience}
 * @param trustedProxy whether the runtime stands behind a proxy it trusts to write {@code X-Forwarded-For}: the
 *     audit then records that header's first hop as the source address instead of the proxy's
 * @param outboxFastPath whether a committing thread publishes its own commands when the relay is free
 *     ({@code BATON_OUTBOX_FAST_PATH}, on by default); off, the relay's thread publishes every command
 */
public record RuntimeSettings(
    String databaseUrl,
    String databaseUsername,
    String databasePassword,
    boolean createDatabase,
    String amqpUri,
    String httpHost,
    int httpPort,
    int consumerThreads,
    int prefetch,
    Duration retention,
    String amqpUsername,
    String amqpPassword,
    List<String> namespaces,
    boolean requireReady,
    int eventBatchSize,
    int outboxBatchSize,
    Duration outboxPollInterval,
    Duration timeoutPollInterval,
    int timeoutBatchSize,
    Duration retentionInterval,
    Duration metricsRefreshInterval,
    Duration consumerRetryInterval,
    int databasePoolSize,
    long maxRequestBytes,
    String apiToken,
    String apiReadToken,
    String amqpCaFile,
    List<String> amqpAddresses,
    String managementUrl,
    String managementUsername,
    String managementPassword,
    String traceUrl,
    long maxCommandBytes,
    AuthMode auth,
    List<String> authAudiences,
    boolean trustedProxy,
    boolean outboxFastPath) {

  public RuntimeSettings {
    namespaces = namespaces == null ? List.of() : List.copyOf(namespaces);
    amqpAddresses = amqpAddresses == null ? List.of() : List.copyOf(amqpAddresses);
    atLeast("consumerThreads", consumerThreads, 1);
    atLeast("prefetch", prefetch, 1);
    atLeast("eventBatchSize", eventBatchSize, 1);
    atLeast("outboxBatchSize", outboxBatchSize, 1);
    atLeast("timeoutBatchSize", timeoutBatchSize, 1);
    atLeast("databasePoolSize", databasePoolSize, 0);
    atLeast("maxRequestBytes", maxRequestBytes, 1);
    atLeast("maxCommandBytes", maxCommandBytes, 1);
    if (traceUrl != null && !traceUrl.contains("{traceId}")) {
      throw new IllegalArgumentException("BATON_TRACE_URL: expected a URL with {traceId} in it, got '" + traceUrl + "'");
    }
    if (httpPort < 0 || httpPort > 65_535) {
      throw new IllegalArgumentException("httpPort must be 0..65535, got " + httpPort);
    }
    auth = auth == null ? AuthMode.TOKEN : auth;
    authAudiences = authAudiences == null ? List.of() : List.copyOf(authAudiences);
    if (auth == AuthMode.KUBERNETES && (apiToken != null || apiReadToken != null)) {
      throw new IllegalArgumentException(KUBERNETES_WITH_TOKENS);
    }
  }

  /** Kubernetes mode takes no static token: one set would look like protection while nothing reads it. */
  static final String KUBERNETES_WITH_TOKENS = "BATON_AUTH=kubernetes checks Kubernetes tokens with TokenReviews and"
      + " never reads BATON_API_TOKEN or BATON_API_READ_TOKEN: unset them (or use BATON_AUTH=token)";

  /** The settings of a process on a developer's machine: PostgreSQL and RabbitMQ on localhost, the API open. */
  public static RuntimeSettings localDefaults() {
    return new RuntimeSettings("jdbc:postgresql://127.0.0.1:5432/baton", "postgres", "", true,
        "amqp://guest:guest@127.0.0.1:5672/%2F", "127.0.0.1", 8080, 2, 50, Duration.ofDays(7), null, null, List.of(),
        false, 20, 200, Duration.ofSeconds(1), Duration.ofMillis(500), 100, Duration.ofMinutes(10),
        Duration.ofSeconds(10), Duration.ofSeconds(2), 0, 1_048_576L, null, null, null, List.of(), null, null, null, null,
        StateMachine.DEFAULT_MAX_COMMAND_BYTES, AuthMode.TOKEN, List.of(), false, true);
  }

  /**
   * Settings from {@code BATON_*} environment variables, falling back to {@link #localDefaults()}, read as every Baton
   * process reads them (contract/README.md, "Settings").
   *
   * @throws dev.baton.contract.settings.InvalidSettingsException naming every variable whose value cannot be read
   */
  public static RuntimeSettings fromEnvironment(Map<String, String> env) {
    return SettingsReader.read(env, RuntimeSettings::fromEnvironment);
  }

  /** {@link #fromEnvironment(Map)} with a reader that collects the problems, with other settings of the process. */
  public static RuntimeSettings fromEnvironment(SettingsReader r) {
    RuntimeSettings d = localDefaults();
    return d.toBuilder()
        .databaseUrl(r.string("BATON_DATABASE_URL", d.databaseUrl))
        .databaseUsername(r.string("BATON_DATABASE_USERNAME", d.databaseUsername))
        .databasePassword(r.secret("BATON_DATABASE_PASSWORD", d.databasePassword))
        .createDatabase(r.bool("BATON_DATABASE_CREATE", d.createDatabase))
        .databasePoolSize(r.integer("BATON_DATABASE_POOL_SIZE", d.databasePoolSize, 0, Integer.MAX_VALUE))
        .amqpUri(r.uri("BATON_RABBITMQ_URI", d.amqpUri, "amqp", "amqps"))
        .amqpUsername(r.string("BATON_RABBITMQ_USERNAME", null))
        .amqpPassword(r.secret("BATON_RABBITMQ_PASSWORD"))
        .httpHost(r.string("BATON_HTTP_HOST", d.httpHost))
        .httpPort(r.integer("BATON_HTTP_PORT", d.httpPort, 0, 65_535))
        .maxRequestBytes(r.integer("BATON_HTTP_MAX_REQUEST_BYTES", (int) d.maxRequestBytes, 1, Integer.MAX_VALUE))
        .consumerThreads(r.integer("BATON_CONSUMER_THREADS", d.consumerThreads, 1, Integer.MAX_VALUE))
        .prefetch(r.integer("BATON_PREFETCH", d.prefetch, 1, 65_535))
        .eventBatchSize(r.integer("BATON_EVENT_BATCH_SIZE", d.eventBatchSize, 1, Integer.MAX_VALUE))
        .outboxBatchSize(r.integer("BATON_OUTBOX_BATCH_SIZE", d.outboxBatchSize, 1, Integer.MAX_VALUE))
        .outboxPollInterval(r.duration("BATON_OUTBOX_POLL_INTERVAL", d.outboxPollInterval))
        .timeoutPollInterval(r.duration("BATON_TIMEOUT_POLL_INTERVAL", d.timeoutPollInterval))
        .timeoutBatchSize(r.integer("BATON_TIMEOUT_BATCH_SIZE", d.timeoutBatchSize, 1, Integer.MAX_VALUE))
        .retention(r.duration("BATON_RETENTION", d.retention))
        .retentionInterval(r.duration("BATON_RETENTION_INTERVAL", d.retentionInterval))
        .metricsRefreshInterval(r.duration("BATON_METRICS_REFRESH_INTERVAL", d.metricsRefreshInterval))
        .consumerRetryInterval(r.duration("BATON_CONSUMER_RETRY_INTERVAL", d.consumerRetryInterval))
        .namespaces(r.list("BATON_NAMESPACES", d.namespaces))
        .requireReady(r.bool("BATON_REQUIRE_READY", d.requireReady))
        .apiToken(r.secret("BATON_API_TOKEN"))
        .apiReadToken(r.secret("BATON_API_READ_TOKEN"))
        .amqpCaFile(r.string(TlsTrust.CA_FILE_VARIABLE, null))
        .amqpAddresses(addresses(r))
        .management(r.uri("BATON_RABBITMQ_MANAGEMENT_URL", null, "http", "https"),
            r.string("BATON_RABBITMQ_MANAGEMENT_USERNAME", null), r.secret("BATON_RABBITMQ_MANAGEMENT_PASSWORD"))
        .traceUrl(r.string("BATON_TRACE_URL", null))
        .maxCommandBytes(r.integer("BATON_MAX_COMMAND_BYTES", (int) d.maxCommandBytes, 1, Integer.MAX_VALUE))
        .auth(auth(r))
        .authAudiences(r.list("BATON_AUTH_AUDIENCES", d.authAudiences))
        .trustedProxy(r.bool("BATON_HTTP_TRUSTED_PROXY", d.trustedProxy))
        .outboxFastPath(r.bool("BATON_OUTBOX_FAST_PATH", d.outboxFastPath))
        .build();
  }

  /** {@code BATON_AUTH}, with the static tokens it cannot go with reported among the other problems. */
  private static AuthMode auth(SettingsReader r) {
    AuthMode mode = r.enumeration("BATON_AUTH", AuthMode.class, AuthMode.TOKEN);
    if (mode == AuthMode.KUBERNETES && (r.isSet("BATON_API_TOKEN") || r.isSet("BATON_API_TOKEN_FILE")
        || r.isSet("BATON_API_READ_TOKEN") || r.isSet("BATON_API_READ_TOKEN_FILE"))) {
      r.problem("BATON_AUTH", KUBERNETES_WITH_TOKENS);
      return AuthMode.TOKEN; // reported: the start stops with the other problems
    }
    return mode;
  }

  /** {@code BATON_RABBITMQ_ADDRESSES}, checked here so that a bad item is reported with the other settings. */
  private static List<String> addresses(SettingsReader r) {
    List<String> items = r.list(BrokerAddresses.VARIABLE, List.of());
    try {
      BrokerAddresses.parse(items, 5672);
    } catch (IllegalArgumentException e) {
      r.problem(BrokerAddresses.VARIABLE, e.getMessage());
      return List.of();
    }
    return items;
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The pool: one connection per consumer thread, plus the relay, the timeout poller, the API and housekeeping. */
  public DatabaseSettings database() {
    int pool = databasePoolSize > 0 ? databasePoolSize : consumerThreads + 6;
    return new DatabaseSettings(databaseUrl, databaseUsername, databasePassword, createDatabase, pool);
  }

  /** Never print credentials. */
  @Override
  public String toString() {
    return "RuntimeSettings[database=" + database() + ", http=" + httpHost + ":" + httpPort + ", consumerThreads="
        + consumerThreads + ", prefetch=" + prefetch + ", eventBatchSize=" + eventBatchSize + ", outboxBatchSize="
        + outboxBatchSize + ", timeoutPollInterval=" + timeoutPollInterval + ", retention=" + retention
        + ", namespaces=" + (namespaces.isEmpty() ? "all" : namespaces) + ", requireReady=" + requireReady
        + ", auth=" + auth.wire() + (auth == AuthMode.TOKEN ? ", apiToken="
        + (apiToken == null ? "none (API open)" : "(set)") + ", apiReadToken=" + (apiReadToken == null ? "none" : "(set)")
        : "") + (authAudiences.isEmpty() ? "" : ", authAudiences=" + authAudiences) + (trustedProxy ? ", trustedProxy=true" : "") + (outboxFastPath ? ", outboxFastPath=true" : "") + ", amqpCaFile=" + (amqpCaFile == null ? "default" : amqpCaFile)
        + (amqpAddresses.isEmpty() ? "" : ", amqpAddresses=" + amqpAddresses)
        + ", managementUrl=" + (managementUrl == null ? "none" : managementUrl.replaceFirst("//[^/@]*@", "//"))
        + "]";
  }

  private static void atLeast(String name, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
    }
  }

  /** Changes a few settings of a copy. */
  public static final class Builder {
    private String databaseUrl;
    private String databaseUsername;
    private String databasePassword;
    private boolean createDatabase;
    private String amqpUri;
    private String httpHost;
    private int httpPort;
    private int consumerThreads;
    private int prefetch;
    private Duration retention;
    private String amqpUsername;
    private String amqpPassword;
    private List<String> namespaces;
    private boolean requireReady;
    private int eventBatchSize;
    private int outboxBatchSize;
    private Duration outboxPollInterval;
    private Duration timeoutPollInterval;
    private int timeoutBatchSize;
    private Duration retentionInterval;
    private Duration metricsRefreshInterval;
    private Duration consumerRetryInterval;
    private int databasePoolSize;
    private long maxRequestBytes;
    private String apiToken;
    private String apiReadToken;
    private String amqpCaFile;
    private List<String> amqpAddresses;
    private String managementUrl;
    private String managementUsername;
    private String managementPassword;
    private String traceUrl;
    private long maxCommandBytes;
    private AuthMode auth;
    private List<String> authAudiences;
    private boolean trustedProxy;
    private boolean outboxFastPath;

    private Builder(RuntimeSettings s) {
      databaseUrl = s.databaseUrl;
      databaseUsername = s.databaseUsername;
      databasePassword = s.databasePassword;
      createDatabase = s.createDatabase;
      amqpUri = s.amqpUri;
      httpHost = s.httpHost;
      httpPort = s.httpPort;
      consumerThreads = s.consumerThreads;
      prefetch = s.prefetch;
      retention = s.retention;
      amqpUsername = s.amqpUsername;
      amqpPassword = s.amqpPassword;
      namespaces = s.namespaces;
      requireReady = s.requireReady;
      eventBatchSize = s.eventBatchSize;
      outboxBatchSize = s.outboxBatchSize;
      outboxPollInterval = s.outboxPollInterval;
      timeoutPollInterval = s.timeoutPollInterval;
      timeoutBatchSize = s.timeoutBatchSize;
      retentionInterval = s.retentionInterval;
      metricsRefreshInterval = s.metricsRefreshInterval;
      consumerRetryInterval = s.consumerRetryInterval;
      databasePoolSize = s.databasePoolSize;
      maxRequestBytes = s.maxRequestBytes;
      apiToken = s.apiToken;
      apiReadToken = s.apiReadToken;
      amqpCaFile = s.amqpCaFile;
      amqpAddresses = s.amqpAddresses;
      managementUrl = s.managementUrl;
      managementUsername = s.managementUsername;
      managementPassword = s.managementPassword;
      traceUrl = s.traceUrl;
      maxCommandBytes = s.maxCommandBytes;
      auth = s.auth;
      authAudiences = s.authAudiences;
      trustedProxy = s.trustedProxy;
      outboxFastPath = s.outboxFastPath;
    }

    public Builder databaseUrl(String v) {
      databaseUrl = v;
      return this;
    }

    public Builder databaseUsername(String v) {
      databaseUsername = v;
      return this;
    }

    public Builder databasePassword(String v) {
      databasePassword = v;
      return this;
    }

    public Builder createDatabase(boolean v) {
      createDatabase = v;
      return this;
    }

    public Builder amqpUri(String v) {
      amqpUri = v;
      return this;
    }

    public Builder httpHost(String v) {
      httpHost = v;
      return this;
    }

    public Builder httpPort(int v) {
      httpPort = v;
      return this;
    }

    public Builder consumerThreads(int v) {
      consumerThreads = v;
      return this;
    }

    public Builder prefetch(int v) {
      prefetch = v;
      return this;
    }

    public Builder retention(Duration v) {
      retention = v;
      return this;
    }

    public Builder amqpUsername(String v) {
      amqpUsername = v;
      return this;
    }

    public Builder amqpPassword(String v) {
      amqpPassword = v;
      return this;
    }

    public Builder namespaces(List<String> v) {
      namespaces = v;
      return this;
    }

    public Builder requireReady(boolean v) {
      requireReady = v;
      return this;
    }

    public Builder eventBatchSize(int v) {
      eventBatchSize = v;
      return this;
    }

    public Builder outboxBatchSize(int v) {
      outboxBatchSize = v;
      return this;
    }

    public Builder outboxPollInterval(Duration v) {
      outboxPollInterval = v;
      return this;
    }

    public Builder timeoutPollInterval(Duration v) {
      timeoutPollInterval = v;
      return this;
    }

    public Builder timeoutBatchSize(int v) {
      timeoutBatchSize = v;
      return this;
    }

    public Builder retentionInterval(Duration v) {
      retentionInterval = v;
      return this;
    }

    public Builder metricsRefreshInterval(Duration v) {
      metricsRefreshInterval = v;
      return this;
    }

    public Builder consumerRetryInterval(Duration v) {
      consumerRetryInterval = v;
      return this;
    }

    public Builder databasePoolSize(int v) {
      databasePoolSize = v;
      return this;
    }

    public Builder maxRequestBytes(long v) {
      maxRequestBytes = v;
      return this;
    }

    public Builder apiToken(String v) {
      apiToken = v;
      return this;
    }

    public Builder apiReadToken(String v) {
      apiReadToken = v;
      return this;
    }

    public Builder amqpCaFile(String v) {
      amqpCaFile = v;
      return this;
    }

    public Builder amqpAddresses(List<String> v) {
      amqpAddresses = v;
      return this;
    }

    /** The management API the dead-letter page reads, and who to be there (null user: the broker user). */
    public Builder management(String url, String username, String password) {
      managementUrl = url;
      managementUsername = username;
      managementPassword = password;
      return this;
    }

    public Builder maxCommandBytes(long v) {
      maxCommandBytes = v;
      return this;
    }

    public Builder traceUrl(String v) {
      traceUrl = v;
      return this;
    }

    /** How callers are known: {@link AuthMode#TOKEN} (the default) or {@link AuthMode#KUBERNETES}. */
    public Builder auth(AuthMode v) {
      auth = v;
      return this;
    }

    public Builder authAudiences(List<String> v) {
      authAudiences = v;
      return this;
    }

    public Builder outboxFastPath(boolean v) {
      outboxFastPath = v;
      return this;
    }

    public Builder trustedProxy(boolean v) {
      trustedProxy = v;
      return this;
    }

    public RuntimeSettings build() {
      return new RuntimeSettings(databaseUrl, databaseUsername, databasePassword, createDatabase, amqpUri, httpHost,
          httpPort, consumerThreads, prefetch, retention, amqpUsername, amqpPassword, namespaces, requireReady,
          eventBatchSize, outboxBatchSize, outboxPollInterval, timeoutPollInterval, timeoutBatchSize,
          retentionInterval, metricsRefreshInterval, consumerRetryInterval, databasePoolSize, maxRequestBytes, apiToken,
          apiReadToken, amqpCaFile, amqpAddresses, managementUrl, managementUsername, managementPassword, traceUrl,
          maxCommandBytes, auth, authAudiences, trustedProxy, outboxFastPath);
    }
  }
}
