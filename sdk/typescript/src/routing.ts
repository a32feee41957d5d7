/**
 * The staircase as docs/message-contract.md#technical-failures-the-staircase spells it: a failed delivery climbs to
 * the retry tier of its next delay through the service's retry exchange or, when the staircase is spent (or the
 * message is hopeless), goes to the parking lot with why it died.
 */

import type { ConsumerSettings } from "./config.js";
import { exceptionMessage, exceptionType, PayloadTooLargeError, UnprocessableMessageError } from "./errors.js";
import { Headers, type HeaderTable } from "./headers.js";
import { type Inbound, type Outbound, originalExchange, originalRoutingKey, sameProperties } from "./message.js";
import { names } from "./names.js";

/** A message that cannot be handled, or whose result is too large, would fail the same way on every retry. */
export function hopeless(failure: unknown): boolean {
  return failure instanceof UnprocessableMessageError || failure instanceof PayloadTooLargeError;
}

/** The message unchanged but `baton-retries`, to the tier of its next delay (the last delay repeating). */
export function retryMessage(service: string, consumer: ConsumerSettings, message: Inbound, retriesSoFar: number): Outbound {
  const retry = retriesSoFar + 1;
  const tier = names.retryQueue(service, consumer.name, consumer.staircase.delayBeforeRetry(retry));
  const headers: HeaderTable = { ...message.headers, [Headers.RETRIES]: retry };
  if (consumer.kind === "subscription") {
    // The tier returns it through the default exchange, which replaces the event's routing key with the queue name:
    // keep the original so that the handler (and a later replay) still sees it.
    headers[Headers.ORIGINAL_EXCHANGE] ??= message.exchange;
    headers[Headers.ORIGINAL_ROUTING_KEY] ??= message.routingKey;
  }
  return {
    exchange: names.retryExchange(service),
    routingKey: tier,
    body: message.body,
    properties: sameProperties(message, headers),
    what: `retry ${retry} to ${tier}`,
    kind: "retry",
  };
}

/** The message to `q.dlx.S.N`, with `x-exception-*` saying why and `x-original-*` where it came from. */
export function deadLetter(service: string, consumer: ConsumerSettings, message: Inbound, retriesSoFar: number, failure: unknown): Outbound {
  const parking = names.deadLetterQueue(service, consumer.name);
  const headers: HeaderTable = {
    ...message.headers,
    [Headers.RETRIES]: retriesSoFar,
    [Headers.EXCEPTION_MESSAGE]: exceptionMessage(failure),
    [Headers.EXCEPTION_TYPE]: exceptionType(failure),
    [Headers.ORIGINAL_ROUTING_KEY]: originalRoutingKey(message),
    [Headers.ORIGINAL_EXCHANGE]: originalExchange(message),
  };
  return {
    exchange: names.retryExchange(service),
    routingKey: parking,
    body: message.body,
    properties: sameProperties(message, headers),
    what: `dead letter to ${parking}`,
    kind: "dead-letter",
  };
}
