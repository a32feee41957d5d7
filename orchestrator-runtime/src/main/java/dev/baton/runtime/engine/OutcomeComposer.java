package dev.baton.runtime.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.runtime.core.Ending;
import dev.baton.runtime.core.RandomIds;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.OutboxMessage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the outcome event of an instance that ended (docs/message-contract.md#instance-outcomes), ready for the
 * outbox of the transaction that ended it: published after that commit only, with confirms, at least once with the
 * same message id. Each ending has a message id of its own, so a retried instance that ends again is a second outcome.
 */
public final class OutcomeComposer {

  private static final Logger LOG = LoggerFactory.getLogger(OutcomeComposer.class);
  /** AMQP routing keys are short strings: at most 255 bytes. */
  static final int MAX_ROUTING_KEY_BYTES = 255;

  /**
   * The outcome event of {@code instance}, or empty (with a WARN line) when its routing key would be longer than AMQP
   * allows (a namespace and Workflow name of some 240 characters together): the ending itself is never held up.
   *
   * @param lastErrorJson the instance's last error once the ending is written (the transition's, or the one it kept)
   * @param finishedAt when the ending was decided
   */
  public Optional<OutboxMessage> compose(InstanceRecord instance, Ending ending, String lastErrorJson,
      Instant finishedAt) {
    String key = Names.instanceOutcomeRoutingKey(instance.namespace(), instance.workflow(), ending.outcome());
    if (key.getBytes(StandardCharsets.UTF_8).length > MAX_ROUTING_KEY_BYTES) {
      LOG.warn("Instance {} ended {}, but its outcome event is not published: the routing key {} is longer than the {}"
          + " bytes AMQP allows", instance.id(), ending.outcome(), key, MAX_ROUTING_KEY_BYTES);
      return Optional.empty();
    }
    Map<String, Object> headers = new LinkedHashMap<>();
    headers.put(Headers.WORKFLOW, instance.workflow());
    headers.put(Headers.NAMESPACE, instance.namespace());
    headers.put(Headers.REVISION, instance.revision());
    headers.put(Headers.INSTANCE, instance.id().toString());
    if (instance.traceparent() != null) {
      headers.put(Headers.TRACEPARENT, instance.traceparent()); // a subscriber continues the instance's trace
    }

    ObjectNode body = Json.object();
    body.put("id", instance.id().toString());
    body.put("businessKey", instance.businessKey());
    body.put("workflow", instance.workflow());
    body.put("revision", instance.revision());
    body.put("status", ending.outcome().name()); // as the API shows it: SUCCEEDED, FAILED, COMPENSATED, CANCELLED
    body.set("outputs", ending.outputs());
    body.set("lastError", lastErrorJson == null ? Json.MAPPER.nullNode() : Json.read(lastErrorJson));
    body.put("createdAt", instance.createdAt() == null ? null : instance.createdAt().toString());
    body.put("finishedAt", finishedAt.toString());
    return Optional.of(new OutboxMessage(RandomIds.next(), Names.instanceOutcomeExchange(), key,
        instance.id().toString(), Json.write(headers), Json.writeBytes(body)));
  }
}
