package dev.baton.operator;

import dev.baton.contract.TlsTrust;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.operator.model.Tenancy;
import dev.baton.operator.runtime.RuntimeApiTokens;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How the operator reaches RabbitMQ and how it runs. Read from the environment ({@link #fromEnvironment}) in a
 * cluster; built in code by {@code baton dev} and by tests.
 *
 * @param managementUrl RabbitMQ management API, e.g. {@code http://127.0.0.1:15672/api/}
 * @param adminUsername broker user with the administrator tag, used for declarations (never logged)
 * @param adminPassword its password (never logged)
 * @param amqpHost host workers connect to, written into their credentials Secret's {@code uri}
 * @param amqpPort AMQP port for that URI
 * @param vhost the one vhost everything lives in ({@code /} by default)
 * @param userPrefix prefix of the broker users created for worker services ({@code baton-})
 * @param resync period of the drift-repairing resync (60 s by default)
 * @param serverSideApply true on real clusters; false against the fabric8 mock server (docs/design.md#platform-notes)
 * @param runtimeUrl the orchestrator runtime's HTTP API, for live instance counts; null to skip them
 * @param countsInterval how often the instance counts are read from the runtime (10 s by default)
 * @param runtimeToken bearer token for the runtime's API, null when it needs none (never logged)
 * @param runtimeTokenPath a file holding the bearer token, read again before each request (the operator's projected
 *     ServiceAccount token, which the kubelet renews, for a runtime with {@code BATON_AUTH=kubernetes}); null: none
 * @param runtimeApiTokens the Secret of the runtime's static API tokens the operator creates when it is missing and
 *     sends the full token of ({@code BATON_RUNTIME_API_SECRET}, {@code BATON_RUNTIME_API_TOKEN_KEY}, {@code
 *     BATON_RUNTIME_API_READ_TOKEN_KEY}); null: none
 * @param runtimeCredentialsSecret {@code namespace/name} of the Secret the operator keeps with the runtime's broker
 *     credentials (and the broker user behind it); null: the runtime's broker user is not managed
 * @param httpHost address the operator's HTTP endpoint binds to
 * @param httpPort port of the operator's HTTP endpoint ({@code /metrics}, {@code /healthz}); 0: none
 * @param leaderElection whether replicas elect a leader through a Lease (only the leader reconciles)
 * @param leaseNamespace namespace of that Lease; null: the operator's own namespace
 * @param leaseName name of that Lease
 * @param namespaces namespaces whose resources are reconciled; empty: all
 * @param statusInterval the shortest time between two status writes of a resource that change only live figures
 *     (queue depths and consumers, instance counts): under steady traffic a status is written at most this often
 * @param amqpTls whether workers and the runtime reach the broker over TLS: their credentials URIs are {@code
 *     amqps://} ({@code BATON_RABBITMQ_TLS}; set {@code BATON_RABBITMQ_PORT} to the TLS port, usually 5671)
 * @param caFile PEM file of the CA that signed the broker's certificates ({@code BATON_RABBITMQ_CA_FILE}): the
 *     operator trusts it for the management API, and gives it to workers as {@code ca.crt} in their Secrets; null:
 *     the JVM's trust store
 * @param tenancy which namespace may command, subscribe to and claim which service: closed by default, as the
 *     providers' spec.access grant ({@link Tenancy#CLOSED}); {@code BATON_TENANCY_OPEN=true} opens everything, {@code
 *     BATON_TENANCY} restricts the names each namespace may claim
 * @param reconcileThreads how many resources are reconciled at once ({@code BATON_RECONCILE_THREADS})
 * @param operatorAmqpUrl {@code amqp://host:port} or {@code amqps://host:port} where the operator itself declares
 *     exchanges, queues and bindings ({@code BATON_OPERATOR_AMQP_URL}, as the administrator, in {@code vhost}); null:
 *     where the workers connect ({@link #declarationUrl()})
 */
public record OperatorSettings(
    String managementUrl,
    String adminUsername,
    String adminPassword,
    String amqpHost,
    int amqpPort,
    String vhost,
    String userPrefix,
    Duration resync,
    boolean serverSideApply,
    String runtimeUrl,
    Duration countsInterval,
    String runtimeToken,
    Path runtimeTokenPath,
    RuntimeApiTokens runtimeApiTokens,
    String runtimeCredentialsSecret,
    String httpHost,
    int httpPort,
    boolean leaderElection,
    String leaseNamespace,
    String leaseName,
    Set<String> namespaces,
    Duration statusInterval,
    Tenancy tenancy,
    boolean amqpTls,
    String caFile,
    int reconcileThreads,
    String operatorAmqpUrl) {

  public static final Duration DEFAULT_STATUS_INTERVAL = Duration.ofSeconds(60);
  public static final Duration DEFAULT_COUNTS_INTERVAL = Duration.ofSeconds(10);
  public static final int DEFAULT_HTTP_PORT = 8081;
  public static final String DEFAULT_LEASE_NAME = "baton-operator";
  /**
   * A pass mostly waits on the broker (a WorkerService's first one is some twenty declarations in a row), so the
   * broker, not the operator's CPU, bounds how many may run at once; JOSDK's default of 50 left it half idle when a
   * thousand resources arrive together (docs/design.md#drift-and-scale).
   */
  public static final int DEFAULT_RECONCILE_THREADS = 150;

  public OperatorSettings {
    namespaces = namespaces == null ? Set.of() : Set.copyOf(namespaces);
  }

  /**
   * A process on a developer's machine (and {@code baton dev}): RabbitMQ on localhost as guest, no HTTP endpoint, no
   * leader election, no live counts, the runtime's broker user not managed, every namespace.
   */
  public static OperatorSettings localDefaults() {
    return new OperatorSettings("http://127.0.0.1:15672/api/", "guest", "guest", "127.0.0.1", 5672, "/", "baton-",
        Duration.ofSeconds(60), true, null, DEFAULT_COUNTS_INTERVAL, null, null, null, null, "0.0.0.0", 0, false, null,
        DEFAULT_LEASE_NAME, Set.of(), DEFAULT_STATUS_INTERVAL, Tenancy.CLOSED, false, null, DEFAULT_RECONCILE_THREADS,
        null);
  }

  /**
   * Settings from {@code BATON_*} environment variables, falling back to {@link #localDefaults()} (but with the HTTP
   * endpoint on {@value #DEFAULT_HTTP_PORT}), read as every Baton process reads them (contract/README.md, "Settings").
   *
   * @throws dev.baton.contract.settings.InvalidSettingsException naming every variable whose value cannot be read
   */
  public static OperatorSettings fromEnvironment(Map<String, String> env) {
    return SettingsReader.read(env, OperatorSettings::fromEnvironment);
  }

  /** {@link #fromEnvironment(Map)} with a reader that collects the problems, with other settings of the process. */
  public static OperatorSettings fromEnvironment(SettingsReader r) {
    OperatorSettings d = localDefaults();
    String httpHost = r.string("BATON_HTTP_HOST", d.httpHost);
    int httpPort = r.integer("BATON_HTTP_PORT", DEFAULT_HTTP_PORT, 0, 65_535);
    return d.toBuilder()
        .managementUrl(r.uri("BATON_RABBITMQ_MANAGEMENT_URL", d.managementUrl, "http", "https"))
        .admin(r.string("BATON_RABBITMQ_USERNAME", d.adminUsername),
            r.secret("BATON_RABBITMQ_PASSWORD", d.adminPassword))
        .amqp(r.string("BATON_RABBITMQ_HOST", d.amqpHost), r.integer("BATON_RABBITMQ_PORT", d.amqpPort, 1, 65_535))
        .vhost(r.string("BATON_RABBITMQ_VHOST", d.vhost))
        .userPrefix(r.string("BATON_USER_PREFIX", d.userPrefix))
        .resync(r.duration("BATON_RESYNC", d.resync))
        .serverSideApply(r.bool("BATON_SERVER_SIDE_APPLY", d.serverSideApply))
        .runtimeUrl(r.uri("BATON_RUNTIME_URL", null, "http", "https"))
        .countsInterval(r.duration("BATON_COUNTS_INTERVAL", d.countsInterval))
        .runtimeToken(r.secret("BATON_RUNTIME_TOKEN"))
        .runtimeTokenPath(r.value("BATON_RUNTIME_TOKEN_PATH", null, "a file path", Path::of))
        .runtimeApiTokens(runtimeApiTokens(r))
        .runtimeCredentialsSecret(r.value("BATON_RUNTIME_CREDENTIALS_SECRET", null,
            "namespace/name such as baton-system/baton-runtime-broker", v -> {
              splitSecret(v);
              return v;
            }))
        // The chart's generic BATON_HTTP_* serve when the operator's own are unset.
        .http(r.string("BATON_OPERATOR_HTTP_HOST", httpHost),
            r.integer("BATON_OPERATOR_HTTP_PORT", httpPort, 0, 65_535))
        .leaderElection(r.bool("BATON_LEADER_ELECTION", false), r.string("BATON_LEADER_ELECTION_NAMESPACE", null),
            r.string("BATON_LEADER_ELECTION_LEASE", DEFAULT_LEASE_NAME))
        .namespaces(Set.copyOf(r.list("BATON_NAMESPACES", List.of())))
        .statusInterval(r.duration("BATON_STATUS_INTERVAL", d.statusInterval))
        .tenancy(Tenancy.parse(r.string("BATON_TENANCY", null), r.bool("BATON_TENANCY_OPEN", false)))
        .tls(r.bool("BATON_RABBITMQ_TLS", false), r.string(TlsTrust.CA_FILE_VARIABLE, null))
        .reconcileThreads(r.integer("BATON_RECONCILE_THREADS", d.reconcileThreads, 1, 1_000))
        .operatorAmqpUrl(r.uri("BATON_OPERATOR_AMQP_URL", null, "amqp", "amqps"))
        .build();
  }

  /** The Secret of the runtime's API tokens, when BATON_RUNTIME_API_SECRET names one. */
  private static RuntimeApiTokens runtimeApiTokens(SettingsReader r) {
    String tokenKey = r.string("BATON_RUNTIME_API_TOKEN_KEY", "token");
    String readTokenKey = r.string("BATON_RUNTIME_API_READ_TOKEN_KEY", null);
    return r.value("BATON_RUNTIME_API_SECRET", null, "namespace/name such as baton-system/baton-runtime-api",
        v -> RuntimeApiTokens.parse(v, tokenKey, readTokenKey));
  }

  /**
   * How old the shared listing of the broker may be before a pass lists it again: half the resync, so that drift
   * (an object deleted behind the operator's back) is repaired within one and a half resyncs, with one listing per
   * half resync for all resources together.
   */
  public Duration snapshotMaxAge() {
    return resync.dividedBy(2);
  }

  /**
   * Where the operator declares exchanges, queues and bindings over AMQP: {@link #operatorAmqpUrl} when set, else the
   * address the workers get ({@code amqpHost:amqpPort}, amqps with {@code amqpTls}), which in a cluster is the broker's
   * Service the operator reaches as well.
   */
  public String declarationUrl() {
    return operatorAmqpUrl != null ? operatorAmqpUrl
        : (amqpTls ? "amqps://" : "amqp://") + amqpHost + ":" + amqpPort;
  }

  public OperatorSettings withVhost(String vhost) {
    return toBuilder().vhost(vhost).build();
  }

  public OperatorSettings withResync(Duration resync) {
    return toBuilder().resync(resync).build();
  }

  public OperatorSettings withServerSideApply(boolean serverSideApply) {
    return toBuilder().serverSideApply(serverSideApply).build();
  }

  public OperatorSettings withUserPrefix(String userPrefix) {
    return toBuilder().userPrefix(userPrefix).build();
  }

  public OperatorSettings withRuntimeUrl(String runtimeUrl) {
    return toBuilder().runtimeUrl(runtimeUrl).build();
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The runtime credentials Secret's namespace, when {@link #runtimeCredentialsSecret} is set. */
  public String runtimeCredentialsNamespace() {
    return runtimeCredentialsSecret == null ? null : splitSecret(runtimeCredentialsSecret)[0];
  }

  /** The runtime credentials Secret's name, when {@link #runtimeCredentialsSecret} is set. */
  public String runtimeCredentialsName() {
    return runtimeCredentialsSecret == null ? null : splitSecret(runtimeCredentialsSecret)[1];
  }

  private static String[] splitSecret(String secret) {
    int slash = secret.indexOf('/');
    if (slash <= 0 || slash == secret.length() - 1) {
      throw new IllegalArgumentException("BATON_RUNTIME_CREDENTIALS_SECRET must be namespace/name, e.g. "
          + "baton-system/baton-runtime-broker, not '" + secret + "'");
    }
    return new String[] {secret.substring(0, slash), secret.substring(slash + 1)};
  }

  /** Never print a password or token. */
  @Override
  public String toString() {
    return "OperatorSettings[managementUrl=" + managementUrl + ", adminUsername=" + adminUsername + ", amqp=" + amqpHost
        + ":" + amqpPort + ", vhost=" + vhost + ", userPrefix=" + userPrefix + ", resync=" + resync
        + ", serverSideApply=" + serverSideApply + ", runtimeUrl=" + runtimeUrl + ", countsInterval=" + countsInterval
        + ", runtimeToken=" + (runtimeToken == null ? runtimeTokenPath == null ? "none" : "from " + runtimeTokenPath
        : "(set)") + (runtimeApiTokens == null ? "" : ", runtimeApiTokens=" + runtimeApiTokens)
        + ", runtimeCredentialsSecret="
        + runtimeCredentialsSecret + ", http=" + (httpPort == 0 ? "off" : httpHost + ":" + httpPort)
        + ", leaderElection=" + (leaderElection ? "lease " + (leaseNamespace == null ? "" : leaseNamespace + "/")
        + leaseName : "off") + ", namespaces=" + (namespaces.isEmpty() ? "all" : String.join(",", namespaces))
        + ", statusInterval=" + statusInterval + ", tenancy=" + tenancy + ", amqpTls=" + amqpTls
        + ", caFile=" + (caFile == null ? "default" : caFile) + ", reconcileThreads=" + reconcileThreads + ", declarations=" + declarationUrl() + "]";
  }

  /** A copy with some settings changed; {@link OperatorSettings} itself stays immutable. */
  public static final class Builder {
    private String managementUrl;
    private String adminUsername;
    private String adminPassword;
    private String amqpHost;
    private int amqpPort;
    private String vhost;
    private String userPrefix;
    private Duration resync;
    private boolean serverSideApply;
    private String runtimeUrl;
    private Duration countsInterval;
    private String runtimeToken;
    private Path runtimeTokenPath;
    private RuntimeApiTokens runtimeApiTokens;
    private String runtimeCredentialsSecret;
    private String httpHost;
    private int httpPort;
    private boolean leaderElection;
    private String leaseNamespace;
    private String leaseName;
    private Set<String> namespaces;
    private Duration statusInterval;
    private Tenancy tenancy;
    private boolean amqpTls;
    private String caFile;
    private int reconcileThreads;
    private String operatorAmqpUrl;

    private Builder(OperatorSettings s) {
      managementUrl = s.managementUrl;
      adminUsername = s.adminUsername;
      adminPassword = s.adminPassword;
      amqpHost = s.amqpHost;
      amqpPort = s.amqpPort;
      vhost = s.vhost;
      userPrefix = s.userPrefix;
      resync = s.resync;
      serverSideApply = s.serverSideApply;
      runtimeUrl = s.runtimeUrl;
      countsInterval = s.countsInterval;
      runtimeToken = s.runtimeToken;
      runtimeTokenPath = s.runtimeTokenPath;
      runtimeApiTokens = s.runtimeApiTokens;
      runtimeCredentialsSecret = s.runtimeCredentialsSecret;
      httpHost = s.httpHost;
      httpPort = s.httpPort;
      leaderElection = s.leaderElection;
      leaseNamespace = s.leaseNamespace;
      leaseName = s.leaseName;
      namespaces = s.namespaces;
      statusInterval = s.statusInterval;
      tenancy = s.tenancy;
      amqpTls = s.amqpTls;
      caFile = s.caFile;
      reconcileThreads = s.reconcileThreads;
      operatorAmqpUrl = s.operatorAmqpUrl;
    }

    public Builder managementUrl(String v) {
      managementUrl = v;
      return this;
    }

    /** The broker administrator the operator declares with. */
    public Builder admin(String username, String password) {
      adminUsername = username;
      adminPassword = password;
      return this;
    }

    /** Where workers reach AMQP: written into their credentials Secret's {@code uri}. */
    public Builder amqp(String host, int port) {
      amqpHost = host;
      amqpPort = port;
      return this;
    }

    public Builder vhost(String v) {
      vhost = v;
      return this;
    }

    public Builder userPrefix(String v) {
      userPrefix = v;
      return this;
    }

    public Builder resync(Duration v) {
      resync = v;
      return this;
    }

    public Builder serverSideApply(boolean v) {
      serverSideApply = v;
      return this;
    }

    public Builder runtimeUrl(String v) {
      runtimeUrl = v;
      return this;
    }

    public Builder countsInterval(Duration v) {
      countsInterval = v;
      return this;
    }

    public Builder runtimeToken(String v) {
      runtimeToken = v;
      return this;
    }

    public Builder runtimeTokenPath(Path v) {
      runtimeTokenPath = v;
      return this;
    }

    public Builder runtimeApiTokens(RuntimeApiTokens v) {
      runtimeApiTokens = v;
      return this;
    }

    public Builder runtimeCredentialsSecret(String v) {
      runtimeCredentialsSecret = v;
      return this;
    }

    public Builder http(String host, int port) {
      httpHost = host;
      httpPort = port;
      return this;
    }

    public Builder leaderElection(boolean enabled, String namespace, String name) {
      leaderElection = enabled;
      leaseNamespace = namespace;
      leaseName = name;
      return this;
    }

    public Builder namespaces(Set<String> v) {
      namespaces = v;
      return this;
    }

    public Builder statusInterval(Duration v) {
      statusInterval = v;
      return this;
    }

    /** Where the operator declares over AMQP ({@code amqp[s]://host:port}); null: where the workers connect. */
    public Builder operatorAmqpUrl(String v) {
      operatorAmqpUrl = v;
      return this;
    }

    public Builder reconcileThreads(int v) {
      reconcileThreads = v;
      return this;
    }

    /** TLS to the broker: amqps:// credentials, and the CA (a PEM file, or null) to trust and to hand on. */
    public Builder tls(boolean amqps, String caPemFile) {
      amqpTls = amqps;
      caFile = caPemFile;
      return this;
    }

    public Builder tenancy(Tenancy v) {
      tenancy = v;
      return this;
    }

    public OperatorSettings build() {
      return new OperatorSettings(managementUrl, adminUsername, adminPassword, amqpHost, amqpPort, vhost, userPrefix,
          resync, serverSideApply, runtimeUrl, countsInterval, runtimeToken, runtimeTokenPath, runtimeApiTokens,
          runtimeCredentialsSecret,
          httpHost,
          httpPort, leaderElection, leaseNamespace, leaseName, namespaces, statusInterval,
          tenancy == null ? Tenancy.CLOSED : tenancy, amqpTls, caFile, reconcileThreads, operatorAmqpUrl);
    }
  }
}
