package dev.baton.examples;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.Headers;
import dev.baton.worker.BatonWorker;
import dev.baton.worker.Event;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code sms}: not a step of the workflow but a subscriber. Its queue {@code q.sms.order_pay_failed_notify} is bound
 * to {@code payment.event.topic.ex} with {@code *.pay.failed}, so every refused payment reaches it (docs/design.md#broker-names: one event,
 * several interested services). It "sends" a text to the customer, which here means it records
 * it and logs it.
 */
public final class SmsWorker implements ExampleWorker {

  private static final Logger LOG = LoggerFactory.getLogger(SmsWorker.class);

  /** A text the worker sent. */
  public record Text(String instanceId, String routingKey, String errorCode, String text, Instant at) {}

  private final List<Text> sent = new ArrayList<>();

  /** In a container: {@code java -cp baton-examples-workers-all.jar dev.baton.examples.SmsWorker}, configured by the
   * environment the operator injects into the pods of WorkerService {@code sms}. */
  public static void main(String[] args) {
    ExampleMain.run(new SmsWorker());
  }

  @Override
  public String service() {
    return "sms";
  }

  @Override
  public BatonWorker.Builder handlers(BatonWorker.Builder builder) {
    return builder.subscription("order_pay_failed_notify", this::paymentFailed);
  }

  private void paymentFailed(Event event) {
    JsonNode body = event.body();
    String instance = body.path("instanceId").asText(event.header(Headers.INSTANCE));
    String code = body.path("errorCode").asText("UNKNOWN");
    String reason = body.path("reason").asText("");
    send(new Text(instance, event.routingKey(), code,
        "We could not take payment for your order: " + reason + " [" + code + "]. Nothing was charged;"
            + " please try another card.", Instant.now()));
  }

  private synchronized void send(Text text) {
    sent.add(text);
    LOG.info("sms: texted the customer of instance {}: \"{}\"", text.instanceId(), text.text());
  }

  /** Every text sent so far, oldest first. */
  public synchronized List<Text> sent() {
    return List.copyOf(sent);
  }
}
