/** The broker names of the message contract (docs/message-contract.md#names); the operator declares them. */

import { formatDuration } from "./duration.js";

export const names = {
  commandExchange: (service: string): string => `${service}.command.topic.ex`,
  eventExchange: (service: string): string => `${service}.event.topic.ex`,
  retryExchange: (service: string): string => `${service}.retry.direct.ex`,
  commandRoutingKey: (service: string, command: string): string => `service.${service}.${command}`,
  consumerQueue: (service: string, consumer: string): string => `q.${service}.${consumer}`,
  retryQueue: (service: string, consumer: string, delayMs: number): string =>
    `q.retry.${service}.${consumer}.${formatDuration(delayMs)}`,
  deadLetterQueue: (service: string, consumer: string): string => `q.dlx.${service}.${consumer}`,
  eventRoutingKey: (entity: string, action: string, result: EventResult): string => `${entity}.${action}.${result}`,
} as const;

/** The last word of an event's routing key. */
export type EventResult = "success" | "failed" | "error" | "expired";
