package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.contract.Names;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A queue of this service bound to another service's event exchange by a topic pattern (docs/design.md#broker-names). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SubscriptionSpec {

  @JsonPropertyDescription("Subscription name, e.g. order_pay_failed_notify: the queue is q.<service>.<name>.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String name;

  @JsonPropertyDescription("The service whose events to receive (its exchange <service>.event.topic.ex).")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String service;

  @JsonPropertyDescription("Topic binding pattern over <entity>.<action>.<result>, e.g. '*.pay.failed' or 'order.#'.")
  @Required
  @Pattern("^[a-z0-9_*#-]+(\\.[a-z0-9_*#-]+)*$")
  @Size(max = Bounds.BINDING_PATTERN)
  private String pattern;

  @JsonPropertyDescription("Name of a RetryPolicy in the same namespace for failures of the subscriber.")
  @Pattern(Bounds.OBJECT_NAME_PATTERN)
  @Size(max = Bounds.OBJECT_NAME)
  private String retryPolicy;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getService() {
    return service;
  }

  public void setService(String service) {
    this.service = service;
  }

  public String getPattern() {
    return pattern;
  }

  public void setPattern(String pattern) {
    this.pattern = pattern;
  }

  public String getRetryPolicy() {
    return retryPolicy;
  }

  public void setRetryPolicy(String retryPolicy) {
    this.retryPolicy = retryPolicy;
  }
}
