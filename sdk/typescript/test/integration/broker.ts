/**
 * A vhost of its own on the local RabbitMQ (created and deleted through the management API), with a service's
 * topology declared as the operator would, and a queue that sees every event the service publishes.
 */

import * as amqp from "amqplib";
import { randomUUID } from "node:crypto";
import { names } from "../../src/names.js";

const HOST = process.env["BATON_TEST_RABBITMQ_HOST"] ?? "127.0.0.1";
const MANAGEMENT = `http://${HOST}:15672/api`;
const AUTH = `Basic ${Buffer.from("guest:guest").toString("base64")}`;

async function management(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${MANAGEMENT}${path}`, {
    method,
    headers: { authorization: AUTH, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok && !(method === "DELETE" && res.status === 404)) {
    throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  }
  return res.status === 200 ? res.json().catch(() => undefined) : undefined;
}

export interface ConsumerSpec {
  name: string;
  maxAttempts: number;
  delays: string[];
  delaysMs: number[];
}

export class TestBroker {
  readonly vhost = `baton-ts-${randomUUID().substring(0, 8)}`;
  private connection: amqp.ChannelModel | undefined;
  private readonly users: string[] = [];
  channel!: amqp.ConfirmChannel;

  get uri(): string {
    return `amqp://guest:guest@${HOST}:5672/${encodeURIComponent(this.vhost)}`;
  }

  /** The vhost's URI without a user, for a worker given its credentials apart. */
  get address(): string {
    return `amqp://${HOST}:5672/${encodeURIComponent(this.vhost)}`;
  }

  /** A user of this test's own, allowed everything in the vhost; deleted by {@link close}. */
  async addUser(user: string, password: string): Promise<void> {
    this.users.push(user);
    await this.setPassword(user, password);
    await management("PUT", `/permissions/${encodeURIComponent(this.vhost)}/${encodeURIComponent(user)}`, { configure: ".*", write: ".*", read: ".*" });
  }

  /** Changes a user's password on the broker; connections already open stay open, as with a rotated Secret. */
  async setPassword(user: string, password: string): Promise<void> {
    await management("PUT", `/users/${encodeURIComponent(user)}`, { password, tags: "" });
  }

  async open(): Promise<void> {
    await management("PUT", `/vhosts/${encodeURIComponent(this.vhost)}`, {});
    await management("PUT", `/permissions/${encodeURIComponent(this.vhost)}/guest`, { configure: ".*", write: ".*", read: ".*" });
    this.connection = await amqp.connect(this.uri);
    this.channel = await this.connection.createConfirmChannel();
  }

  async close(): Promise<void> {
    await this.connection?.close().catch(() => undefined);
    await management("DELETE", `/vhosts/${encodeURIComponent(this.vhost)}`);
    for (const user of this.users) {
      await management("DELETE", `/users/${encodeURIComponent(user)}`);
    }
  }

  /** The service's exchanges, command queues with their tiers and parking lots, and a queue seeing all its events. */
  async declare(service: string, commands: ConsumerSpec[]): Promise<string> {
    const ch = this.channel;
    const commandEx = names.commandExchange(service);
    const retryEx = names.retryExchange(service);
    await ch.assertExchange(commandEx, "topic", { durable: true });
    await ch.assertExchange(names.eventExchange(service), "topic", { durable: true });
    await ch.assertExchange(retryEx, "direct", { durable: true });
    for (const c of commands) {
      const queue = names.consumerQueue(service, c.name);
      const parking = names.deadLetterQueue(service, c.name);
      const tiers = [...new Set(c.delaysMs.slice(0, c.maxAttempts - 1))].map((d) => ({ d, name: names.retryQueue(service, c.name, d) }));
      await ch.assertQueue(queue, { durable: true, arguments: { "x-dead-letter-exchange": retryEx, "x-dead-letter-routing-key": queue } });
      await ch.bindQueue(queue, commandEx, names.commandRoutingKey(service, c.name));
      for (const t of tiers) {
        await ch.assertQueue(t.name, { durable: true, arguments: { "x-message-ttl": t.d, "x-dead-letter-exchange": commandEx, "x-dead-letter-routing-key": names.commandRoutingKey(service, c.name) } });
        await ch.bindQueue(t.name, retryEx, t.name);
      }
      await ch.assertQueue(parking, { durable: true });
      await ch.bindQueue(parking, retryEx, parking);
      await ch.bindQueue(tiers[0]?.name ?? parking, retryEx, queue);
    }
    const events = `test.events.${service}`;
    await ch.assertQueue(events, { durable: true });
    await ch.bindQueue(events, names.eventExchange(service), "#");
    return events;
  }

  async sendCommand(service: string, command: string, input: unknown, headers: Record<string, unknown> = {}, messageId: string = randomUUID()): Promise<string> {
    const body = { instanceId: "i-1", workflow: "order-fulfilment", step: "charge", attempt: 1, businessKey: "order-1", input };
    this.channel.publish(names.commandExchange(service), names.commandRoutingKey(service, command), Buffer.from(JSON.stringify(body)), {
      messageId,
      correlationId: "i-1",
      contentType: "application/json",
      deliveryMode: 2,
      headers: { "baton-entity": "order", "baton-action": command, "baton-instance": "i-1", "baton-step": "charge", "baton-attempt": 1, "baton-workflow": "order-fulfilment", "baton-namespace": "default", ...headers },
    });
    await this.channel.waitForConfirms();
    return messageId;
  }

  /** The next message of `queue`, waiting up to `timeoutMs`. */
  async next(queue: string, timeoutMs = 10_000): Promise<amqp.GetMessage> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const m = await this.channel.get(queue, { noAck: true });
      if (m !== false) {
        return m;
      }
      if (Date.now() > until) {
        throw new Error(`nothing in ${queue} within ${timeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async count(queue: string): Promise<{ messages: number; unacked: number }> {
    const q = (await management("GET", `/queues/${encodeURIComponent(this.vhost)}/${encodeURIComponent(queue)}`)) as { messages?: number; messages_unacknowledged?: number };
    return { messages: q.messages ?? 0, unacked: q.messages_unacknowledged ?? 0 };
  }

  /** How many consumers `queue` has, as the management API last saw it (0 while it has no statistics yet). */
  async consumers(queue: string): Promise<number> {
    const q = (await management("GET", `/queues/${encodeURIComponent(this.vhost)}/${encodeURIComponent(queue)}`)) as { consumers?: number };
    return q.consumers ?? 0;
  }
}

/** Polls `check` until it holds, for at most `timeoutMs`. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 10_000, what = "condition"): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) {
      throw new Error(`${what} not met within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The broker's names of the connections whose client-provided name starts with `prefix` (the listing lags a little). */
export async function connectionsNamed(prefix: string): Promise<string[]> {
  const list = (await management("GET", "/connections")) as { name: string; client_properties?: { connection_name?: string } }[];
  return list.filter((c) => c.client_properties?.connection_name?.startsWith(prefix)).map((c) => c.name);
}

/** Closes every connection whose client-provided name starts with `prefix`, as an outage would; how many it closed. */
export async function closeConnections(prefix: string): Promise<number> {
  const mine = await connectionsNamed(prefix);
  for (const name of mine) {
    await management("DELETE", `/connections/${encodeURIComponent(name)}`);
  }
  return mine.length;
}
