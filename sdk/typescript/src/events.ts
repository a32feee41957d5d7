/**
 * The result event of a command (docs/message-contract.md#answering): `<entity>.<action>.<result>` on the service's
 * event exchange, every `baton-*` header and the trace context copied, the correlation id copied, a message id that
 * is the same for the same command and result.
 */

import { createHash, randomUUID } from "node:crypto";
import { copiedHeaders, CONTENT_TYPE_JSON, headerText, Headers, type HeaderTable } from "./headers.js";
import type { Inbound, Outbound } from "./message.js";
import { messageIdOf } from "./message.js";
import { names } from "./names.js";
import type { AnyOutcome } from "./outcome.js";

/** A name-based UUID (version 3, as Java's `UUID.nameUUIDFromBytes`) of the text. */
export function nameUuid(text: string): string {
  const md5 = createHash("md5").update(text, "utf8").digest();
  md5[6] = ((md5[6] as number) & 0x0f) | 0x30;
  md5[8] = ((md5[8] as number) & 0x3f) | 0x80;
  const hex = md5.toString("hex");
  return `${hex.substring(0, 8)}-${hex.substring(8, 12)}-${hex.substring(12, 16)}-${hex.substring(16, 20)}-${hex.substring(20)}`;
}

/**
 * The message id of the event answering a command: the same as the Java SDK gives, so a re-published event is
 * recognisably the same one whichever worker published it; random for a command without a message id.
 */
export function eventMessageId(commandMessageId: string | undefined, result: string): string {
  return commandMessageId === undefined ? randomUUID() : nameUuid(`baton-event/${commandMessageId}/${result}`);
}

/** Whether an event can be addressed at all: the routing key needs the entity and the action. */
export function addressable(command: Inbound): boolean {
  return headerText(command.headers, Headers.ENTITY) !== undefined && headerText(command.headers, Headers.ACTION) !== undefined;
}

export type CommandBody = Record<string, unknown>;

/**
 * The event answering `command` with `outcome`.
 *
 * @param body the parsed command body, or undefined when it could not be parsed (the ids then come from headers)
 * @param trace the handler span's `traceparent`/`tracestate`, replacing the command's copied ones
 */
export function resultEvent(
  service: string,
  command: Inbound,
  body: CommandBody | undefined,
  outcome: AnyOutcome,
  trace: HeaderTable = {},
  now: number = Date.now(),
): Outbound {
  const entity = headerText(command.headers, Headers.ENTITY) ?? "";
  const action = headerText(command.headers, Headers.ACTION) ?? "";
  const routingKey = names.eventRoutingKey(entity, action, outcome.result);
  const eventBody: Record<string, unknown> = {
    instanceId: field(body, "instanceId", headerText(command.headers, Headers.INSTANCE)),
    step: field(body, "step", headerText(command.headers, Headers.STEP)),
    attempt: attempt(body, headerText(command.headers, Headers.ATTEMPT)),
  };
  if (outcome.result === "success") {
    eventBody["output"] = outcome.output;
  } else {
    if (outcome.errorCode !== undefined) {
      eventBody["errorCode"] = outcome.errorCode;
    }
    eventBody["reason"] = outcome.reason;
  }
  const correlationId = command.properties.correlationId as unknown;
  return {
    exchange: names.eventExchange(service),
    routingKey,
    body: Buffer.from(JSON.stringify(eventBody), "utf8"),
    properties: {
      messageId: eventMessageId(messageIdOf(command), outcome.result),
      ...(typeof correlationId === "string" ? { correlationId } : {}),
      contentType: CONTENT_TYPE_JSON,
      timestamp: Math.floor(now / 1000),
      deliveryMode: 2,
      headers: { ...copiedHeaders(command.headers), ...trace },
    },
    what: `${outcome.result} event ${routingKey}`,
    kind: "event",
  };
}

function field(body: CommandBody | undefined, name: string, fromHeader: string | undefined): unknown {
  const v = body?.[name];
  return v !== undefined && v !== null ? v : (fromHeader ?? null);
}

function attempt(body: CommandBody | undefined, fromHeader: string | undefined): unknown {
  const v = body?.["attempt"];
  if (typeof v === "number") {
    return v;
  }
  if (fromHeader === undefined) {
    return null;
  }
  return /^\s*[0-9]+\s*$/.test(fromHeader) ? Number(fromHeader.trim()) : fromHeader;
}
