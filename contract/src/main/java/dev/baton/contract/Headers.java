package dev.baton.contract;

/** AMQP header names of the message contract (DESIGN.md §4). */
public final class Headers {

  public static final String WORKFLOW = "baton-workflow";
  public static final String REVISION = "baton-revision";
  public static final String INSTANCE = "baton-instance";
  public static final String STEP = "baton-step";
  /** The orchestrator's dispatch attempt of the step (1 first). */
  public static final String ATTEMPT = "baton-attempt";
  public static final String ENTITY = "baton-entity";
  public static final String ACTION = "baton-action";
  /** Worker-level retries so far: 0 on the first delivery. */
  public static final String RETRIES = "baton-retries";
  /** Namespace of the Workflow (an addition to §4: Workflow names are unique per namespace only). */
  public static final String NAMESPACE = "baton-namespace";
  public static final String TRACEPARENT = "traceparent";

  /** Prefix every header that a worker must copy from a command to its event. */
  public static final String BATON_PREFIX = "baton-";

  public static final String EXCEPTION_MESSAGE = "x-exception-message";
  public static final String EXCEPTION_TYPE = "x-exception-type";
  public static final String ORIGINAL_ROUTING_KEY = "x-original-routing-key";
  /** Exchange the message was first published to (set on dead letters, used by replay). */
  public static final String ORIGINAL_EXCHANGE = "x-original-exchange";

  public static final String CONTENT_TYPE_JSON = "application/json";

  private Headers() {}
}
