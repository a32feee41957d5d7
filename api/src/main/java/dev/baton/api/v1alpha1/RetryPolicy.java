package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * How workers retry a command that fails technically: the staircase of docs/design.md#retries-and-dead-letters, carried out by RabbitMQ TTL and
 * dead-letter queues, no cron job.
 */
@JsonClassDescription("How workers retry a command that fails technically: a staircase of delays carried out by RabbitMQ "
    + "(a TTL queue per distinct delay), then the dead-letter queue. WorkerService commands and subscriptions name it.")
@Group(BatonGroup.NAME)
@Version(BatonGroup.VERSION)
@ShortNames("brp")
@Categories("baton") // kubectl get baton: every kind of Baton; short names no other project on the cluster uses
@AdditionalPrinterColumn(name = "Attempts", jsonPath = ".spec.maxAttempts", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Delays", jsonPath = ".status.delays", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Reason", jsonPath = ".status.conditions[?(@.type==\"Ready\")].reason", type = AdditionalPrinterColumn.Type.STRING, priority = 1)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class RetryPolicy extends CustomResource<RetryPolicySpec, RetryPolicyStatus> implements Namespaced {}
