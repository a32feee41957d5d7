/**
 * Publishes with confirms on a connection of its own (`<name>-publisher`), apart from the consuming one, so that a
 * blocked or closed publisher never stalls the consumers (docs/message-contract.md#answering). A publish the broker
 * does not confirm (a nack, a channel or connection error, no confirm within the timeout) is published again after
 * a backoff (200 ms doubling to 30 s), the delivery staying unacked meanwhile. Every publish is `mandatory`: one no
 * queue is bound for comes back as `returned`, for the caller to decide.
 */

import type { ChannelModel, ConfirmChannel, Message } from "amqplib";
import { safeMessage, sleep } from "./broker.js";
import type { Outbound } from "./message.js";
import type { Logger } from "./observe.js";

export type PublishResult = "confirmed" | "returned";

export class ConfirmedPublisher {
  private channel: Promise<ConfirmChannel> | undefined;
  private connection: ChannelModel | undefined;
  private readonly returned = new Map<string, number>();
  private closed = false;

  constructor(
    private readonly open: () => Promise<ChannelModel>,
    private readonly logger: Logger,
    private readonly confirmTimeoutMs = 30_000,
  ) {}

  /** Resolves once the broker confirmed the message (or returned it unroutable); retries until then or {@link close}. */
  async publish(message: Outbound): Promise<PublishResult> {
    let backoff = 200;
    for (;;) {
      if (this.closed) {
        throw new Error(`publisher closed before ${message.what} was confirmed`);
      }
      try {
        return await this.once(message);
      } catch (e) {
        this.logger.warn(`${message.what} not confirmed (${safeMessage(e)}); publishing it again in ${backoff} ms`);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }

  private async once(message: Outbound): Promise<PublishResult> {
    const channel = await this.confirmChannel();
    const key = returnKey(message.exchange, message.routingKey, message.properties.messageId);
    return new Promise<PublishResult>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no confirm within ${this.confirmTimeoutMs} ms`)), this.confirmTimeoutMs);
      try {
        channel.publish(message.exchange, message.routingKey, message.body, { ...message.properties, mandatory: true }, (err) => {
          clearTimeout(timer);
          if (err) {
            reject(err instanceof Error ? err : new Error("nacked by the broker"));
            return;
          }
          // A basic.return comes before the confirm of the same message.
          const count = this.returned.get(key) ?? 0;
          if (count > 0) {
            if (count === 1) {
              this.returned.delete(key);
            } else {
              this.returned.set(key, count - 1);
            }
            resolve("returned");
          } else {
            resolve("confirmed");
          }
        });
      } catch (e) {
        clearTimeout(timer);
        reject(e);
      }
    });
  }

  private confirmChannel(): Promise<ConfirmChannel> {
    this.channel ??= (async () => {
      try {
        const connection = await this.open();
        if (this.closed) {
          // close() came while this connection was being opened: it had none to close, so nothing else would.
          await connection.close().catch(() => undefined);
          throw new Error("publisher closed");
        }
        this.connection = connection;
        connection.on("error", (e: Error) => this.logger.warn(`publishing connection: ${safeMessage(e)}`));
        connection.on("close", () => this.reset(connection));
        connection.on("blocked", (reason: string) => this.logger.warn(`publishing connection blocked by the broker: ${reason}`));
        const channel = await connection.createConfirmChannel();
        channel.on("error", (e: Error) => this.logger.warn(`publishing channel: ${safeMessage(e)}`));
        channel.on("close", () => this.reset(connection));
        channel.on("return", (m: Message) => {
          const k = returnKey(m.fields.exchange, m.fields.routingKey, m.properties.messageId as string | undefined);
          this.returned.set(k, (this.returned.get(k) ?? 0) + 1);
        });
        return channel;
      } catch (e) {
        this.channel = undefined;
        throw e;
      }
    })();
    return this.channel;
  }

  private reset(connection: ChannelModel): void {
    if (this.connection === connection) {
      if (!this.closed) {
        this.logger.warn("the publishing connection or its channel closed; opening it again for the next publish");
      }
      this.channel = undefined;
      this.connection = undefined;
      connection.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const connection = this.connection;
    this.channel = undefined;
    this.connection = undefined;
    await connection?.close().catch(() => undefined);
  }
}

function returnKey(exchange: string, routingKey: string, messageId: string | undefined): string {
  return `${exchange}\u0000${routingKey}\u0000${messageId ?? ""}`;
}
