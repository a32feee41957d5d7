/** A delivery as the SDK's deciding code sees it: no channel, no delivery tag, so deciding cannot ack it. */

import type { ConsumeMessage, MessageProperties } from "amqplib";
import { headerText, Headers, type HeaderTable } from "./headers.js";

export interface Inbound {
  readonly exchange: string;
  readonly routingKey: string;
  readonly redelivered: boolean;
  readonly properties: Partial<MessageProperties>;
  readonly headers: HeaderTable;
  readonly body: Buffer;
}

export function inbound(message: ConsumeMessage): Inbound {
  return {
    exchange: message.fields.exchange,
    routingKey: message.fields.routingKey,
    redelivered: message.fields.redelivered,
    properties: message.properties,
    headers: (message.properties.headers ?? {}) as HeaderTable,
    body: message.content,
  };
}

export function messageIdOf(message: Inbound): string | undefined {
  const id = message.properties.messageId as unknown;
  return typeof id === "string" && id.trim() !== "" ? id : undefined;
}

/** The exchange it was first published to (a subscription's tier returns it through the default exchange). */
export function originalExchange(message: Inbound): string {
  return headerText(message.headers, Headers.ORIGINAL_EXCHANGE) ?? message.exchange;
}

export function originalRoutingKey(message: Inbound): string {
  return headerText(message.headers, Headers.ORIGINAL_ROUTING_KEY) ?? message.routingKey;
}

/** A message to publish, and whether it must be routed (published `mandatory`). */
export interface Outbound {
  readonly exchange: string;
  readonly routingKey: string;
  readonly body: Buffer;
  readonly properties: OutboundProperties;
  /** What it is, for logs: `success event order.pay.success`, `retry 1 to q.retry…`. */
  readonly what: string;
  /** An event comes back unroutable when no queue is bound yet: published again a few times, not dropped. */
  readonly kind: "event" | "retry" | "dead-letter";
}

export interface OutboundProperties {
  messageId?: string;
  correlationId?: string;
  contentType?: string;
  contentEncoding?: string;
  timestamp?: number;
  deliveryMode: 2;
  type?: string;
  appId?: string;
  headers: HeaderTable;
}

/** The properties of `message` as they are, with other headers: a retry or a dead letter is the command unchanged. */
export function sameProperties(message: Inbound, headers: HeaderTable): OutboundProperties {
  const p = message.properties;
  const copy: OutboundProperties = { deliveryMode: 2, headers };
  for (const key of ["messageId", "correlationId", "contentType", "contentEncoding", "timestamp", "type", "appId"] as const) {
    const v = p[key] as unknown;
    if (v !== undefined && v !== null) {
      (copy as unknown as Record<string, unknown>)[key] = v;
    }
  }
  return copy;
}
