/**
 * A Baton worker: consumes the command and subscription queues of one WorkerService, runs the handlers, and does
 * everything else docs/message-contract.md asks (manual ack after a confirmed result, staircase, dead letters,
 * deadline, idempotency, handler time limit, graceful stop).
 */

import type { Channel, ChannelModel, ConsumeMessage } from "amqplib";
import { createServer, type Server } from "node:http";
import { describe, openConnection, safeMessage, sleep, type CredentialsProvider } from "./broker.js";
import { type ConsumerSettings, defaultConnectionName, type Env, readCredentials, readSettings, type WorkerSettings } from "./config.js";
import { InvalidSettingsError } from "./errors.js";
import { type IdempotencyStore, InMemoryIdempotencyStore } from "./idempotency.js";
import { inbound, messageIdOf, type Outbound } from "./message.js";
import { consoleLogger, type Logger, type WorkerListener } from "./observe.js";
import {
  CommandProcessor,
  type CommandHandler,
  type Decision,
  type EventHandler,
  type Parser,
  type Processor,
  type ProcessorContext,
  SubscriptionProcessor,
} from "./processor.js";
import { ConfirmedPublisher } from "./publisher.js";
import { Slots } from "./timed.js";
import { loadTracing, noTracing, type Tracing } from "./tracing.js";

export interface WorkerOptions {
  /** Where the broker is and as whom; called before every connection attempt (default: {@link readCredentials} of the environment). */
  credentials?: CredentialsProvider;
  /** Default `baton-worker-<service>-<HOSTNAME>`; the publishing connection adds `-publisher`. */
  connectionName?: string;
  /** Default {@link InMemoryIdempotencyStore} of 10,000 outcomes. */
  idempotency?: IdempotencyStore;
  logger?: Logger;
  listener?: WorkerListener;
  /** Default: OpenTelemetry when `@opentelemetry/api` is installed, else the command's `traceparent` copied. */
  tracing?: Tracing;
  /** How long {@link BatonWorker.stop} waits for running handlers and their confirms (default 20 s). */
  shutdownTimeoutMs?: number;
  /** Replace the settings' values of the same name. */
  handlerTimeoutMs?: number;
  maxResultBytes?: number;
  maxConcurrentHandlers?: number;
  healthPort?: number;
}

/** An event no queue is bound for yet is published again this many times (about a minute), then given up. */
const UNROUTABLE_EVENT_ATTEMPTS = 9;

interface ActiveConsumer {
  channel: Channel;
  consumerTag: string;
}

export class BatonWorker {
  private readonly handlers = new Map<string, (ctx: ProcessorContext, consumer: ConsumerSettings) => Processor>();
  private readonly options: WorkerOptions;
  private readonly logger: Logger;
  private readonly active = new Map<string, ActiveConsumer>();
  private readonly closedChannels = new WeakSet<Channel>();
  private processors: Processor[] = [];
  private publisher: ConfirmedPublisher | undefined;
  private connection: ChannelModel | undefined;
  private health: Server | undefined;
  private stopping = false;
  private started = false;
  private stopped: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private inFlightCount = 0;
  private idle: (() => void)[] = [];
  private subscribed: (() => void)[] = [];

  constructor(
    readonly settings: WorkerSettings,
    options: WorkerOptions = {},
  ) {
    this.options = options;
    this.logger = options.logger ?? consoleLogger;
  }

  /**
   * A worker configured by the operator's `BATON_*` variables (`env`, default `process.env`); the broker
   * credentials are read from them again before every connection attempt.
   *
   * @throws InvalidSettingsError naming every variable that is missing or malformed
   */
  static fromEnvironment(options: WorkerOptions = {}, env: Env = process.env): BatonWorker {
    // Credentials are checked now too, so that one error names every variable, rather than at the first connection.
    const problems: string[] = [];
    let settings: WorkerSettings | undefined;
    try {
      settings = readSettings(env);
    } catch (e) {
      problems.push(...(e instanceof InvalidSettingsError ? e.problems : [String(e)]));
    }
    if (options.credentials === undefined) {
      try {
        readCredentials(env);
      } catch (e) {
        problems.push(...(e instanceof InvalidSettingsError ? e.problems : [String(e)]));
      }
    }
    if (settings === undefined || problems.length > 0) {
      throw new InvalidSettingsError(problems);
    }
    return new BatonWorker(settings, { credentials: () => readCredentials(env), ...options });
  }

  /**
   * The handler of command `name`: returns `success(output)` or `failed(code, reason)`; a throw is a technical
   * failure (retried along the staircase). `parse` checks and converts the input; when it throws the command is
   * parked at once.
   */
  command<In = Record<string, unknown>, Out = unknown>(name: string, handler: CommandHandler<In, Out>, options: { parse?: Parser<In> } = {}): this {
    this.register(name, (ctx, consumer) => new CommandProcessor<In, Out>(ctx, this.expectKind(consumer, "command"), handler, options.parse));
    return this;
  }

  /** The handler of subscription `name`: returns when done; a throw is a technical failure (retried). */
  subscription<Body = Record<string, unknown>>(name: string, handler: EventHandler<Body>, options: { parse?: Parser<Body> } = {}): this {
    this.register(name, (ctx, consumer) => new SubscriptionProcessor<Body>(ctx, this.expectKind(consumer, "subscription"), handler, options.parse));
    return this;
  }

  private register(name: string, make: (ctx: ProcessorContext, consumer: ConsumerSettings) => Processor): void {
    if (this.started) {
      throw new Error("handlers are registered before start()");
    }
    if (this.handlers.has(name)) {
      throw new Error(`a handler for '${name}' is registered already`);
    }
    this.handlers.set(name, make);
  }

  private expectKind(consumer: ConsumerSettings, kind: ConsumerSettings["kind"]): ConsumerSettings {
    if (consumer.kind !== kind) {
      throw new Error(`'${consumer.name}' is a ${consumer.kind} of service ${this.settings.service}, registered as a ${kind}`);
    }
    return consumer;
  }

  /** Whether every queue has a consumer on an open connection: what the health endpoint answers. */
  get consuming(): boolean {
    return !this.stopping && this.connection !== undefined && this.processors.length > 0 && this.active.size === this.processors.length;
  }

  /** Deliveries taken and not yet settled. */
  get inFlight(): number {
    return this.inFlightCount;
  }

  /**
   * Connects and consumes every queue; resolves once it consumes them all (it keeps reconnecting meanwhile).
   *
   * @throws Error when a command or subscription of the settings has no handler, or a handler none
   */
  async start(): Promise<void> {
    if (this.started) {
      throw new Error("start() was called already");
    }
    const consumers = [...this.settings.commands, ...this.settings.subscriptions];
    const missing = consumers.filter((c) => !this.handlers.has(c.name)).map((c) => `${c.kind} ${c.name}`);
    const unknown = [...this.handlers.keys()].filter((n) => !consumers.some((c) => c.name === n));
    if (missing.length > 0 || unknown.length > 0) {
      throw new Error(`service ${this.settings.service}: ${[
        missing.length > 0 ? `no handler for ${missing.join(", ")}` : "",
        unknown.length > 0 ? `handlers for what it does not serve: ${unknown.join(", ")} (BATON_COMMANDS, BATON_SUBSCRIPTIONS)` : "",
      ].filter((s) => s !== "").join("; ")}`);
    }
    this.started = true;
    const o = this.options;
    const credentials = o.credentials ?? (() => readCredentials());
    const name = o.connectionName ?? defaultConnectionName(this.settings.service);
    const concurrency = o.maxConcurrentHandlers ?? this.settings.maxConcurrentHandlers ?? Number.MAX_SAFE_INTEGER;
    const ctx: ProcessorContext = {
      service: this.settings.service,
      store: o.idempotency ?? new InMemoryIdempotencyStore(10_000),
      listener: o.listener ?? {},
      logger: this.logger,
      tracing: o.tracing ?? (await loadTracing().catch(() => noTracing)),
      slots: new Slots(concurrency),
      handlerTimeoutMs: o.handlerTimeoutMs ?? this.settings.handlerTimeoutMs,
      maxResultBytes: o.maxResultBytes ?? this.settings.maxResultBytes,
      now: Date.now,
      stopping: () => this.stopping,
    };
    this.processors = consumers.map((c) => (this.handlers.get(c.name) as (typeof this.handlers extends Map<string, infer F> ? F : never))(ctx, c));
    this.publisher = new ConfirmedPublisher(() => openConnection(credentials, `${name}-publisher`), this.logger);
    const port = o.healthPort ?? this.settings.healthPort;
    if (port !== undefined) {
      await this.serveHealth(port);
    }
    let ready!: () => void;
    const consumingOnce = new Promise<void>((resolve) => (ready = resolve));
    this.running = this.consumeForever(credentials, name, ready);
    await consumingOnce;
  }

  /** The consuming connection, opened again (with fresh credentials) whenever it closes, until stop. */
  private async consumeForever(credentials: CredentialsProvider, name: string, ready: () => void): Promise<void> {
    let backoff = 1_000;
    while (!this.stopping) {
      try {
        const connection = await openConnection(credentials, name);
        if (this.stopping) {
          // stop() came while this connection was being opened: it had none to close, so nothing else would.
          await connection.close().catch(() => undefined);
          break;
        }
        const closed = new Promise<void>((resolve) => connection.on("close", () => resolve()));
        connection.on("error", (e: Error) => this.logger.warn(`consuming connection: ${safeMessage(e)}`));
        this.connection = connection;
        this.logger.info(`worker ${this.settings.service} connected to ${describe(credentials())} (connection '${name}')`);
        backoff = 1_000;
        const subscribed = this.processors.map((p) => this.consumeQueue(connection, p, closed));
        void Promise.all(subscribed);
        await Promise.race([this.allActive(), closed]);
        if (this.consuming) {
          ready();
        }
        await closed;
        if (!this.stopping) {
          this.logger.warn(`worker ${this.settings.service}: the consuming connection closed; connecting again in ${backoff} ms (deliveries not yet acked are redelivered by the broker)`);
        }
      } catch (e) {
        this.logger.warn(`worker ${this.settings.service} cannot connect: ${safeMessage(e)}; trying again in ${backoff} ms`);
      } finally {
        this.connection = undefined;
        this.active.clear();
      }
      if (!this.stopping) {
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
  }

  /** Resolves once every queue has its consumer (checked whenever one subscribes). */
  private allActive(): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.active.size >= this.processors.length) {
          resolve();
        } else {
          this.subscribed.push(check);
        }
      };
      check();
    });
  }

  /**
   * One channel for one queue with the prefetch; opened again with a growing pause (1 s to 30 s) when the broker
   * closes it or cancels its consumer (its queue deleted and declared again), as long as the connection lives.
   */
  private async consumeQueue(connection: ChannelModel, processor: Processor, connectionClosed: Promise<void>): Promise<void> {
    let gone = false;
    void connectionClosed.then(() => (gone = true));
    let pause = 1_000;
    const queue = processor.consumer.queue;
    while (!gone && !this.stopping) {
      try {
        const channel = await connection.createChannel();
        const channelClosed = new Promise<void>((resolve) => channel.on("close", () => resolve()));
        channel.on("error", (e: Error) => this.logger.warn(`channel of ${queue}: ${safeMessage(e)}`));
        await channel.prefetch(this.settings.prefetch);
        const { consumerTag } = await channel.consume(queue, (m) => {
          if (m === null) {
            this.logger.warn(`the broker cancelled the consumer of ${queue}; subscribing again`);
            channel.close().catch(() => undefined);
          } else {
            this.onDelivery(channel, processor, m);
          }
        }, { noAck: false });
        this.active.set(queue, { channel, consumerTag });
        this.subscribed.splice(0).forEach((f) => f());
        pause = 1_000;
        await channelClosed;
        this.closedChannels.add(channel);
      } catch (e) {
        this.logger.warn(`cannot consume ${queue}: ${safeMessage(e)}; trying again in ${pause} ms`);
      }
      this.active.delete(queue);
      if (!gone && !this.stopping) {
        await sleep(pause);
        pause = Math.min(pause * 2, 30_000);
      }
    }
  }

  private onDelivery(channel: Channel, processor: Processor, m: ConsumeMessage): void {
    this.inFlightCount++;
    void this.settle(channel, processor, m)
      .catch((e) => this.logger.error(`delivery of ${processor.consumer.queue} message_id=${String(m.properties.messageId)} not settled: ${safeMessage(e)}; the broker redelivers it`))
      .finally(() => {
        this.inFlightCount--;
        if (this.inFlightCount === 0) {
          this.idle.splice(0).forEach((f) => f());
        }
      });
  }

  /** Decides, publishes what the decision needs and waits for the confirms, then acks: never before. */
  private async settle(channel: Channel, processor: Processor, m: ConsumeMessage): Promise<void> {
    const message = inbound(m);
    let decision: Decision = await processor.decide(message);
    while (decision.kind === "later") {
      this.logger.info(`${processor.consumer.kind} ${processor.consumer.name} message_id=${messageIdOf(message)} arrived again while its handler runs: waiting for its outcome`);
      await decision.after;
      decision = await processor.decide(message);
    }
    if (decision.kind === "give-back") {
      this.settleOn(channel, () => channel.nack(m, false, true));
      return;
    }
    if (decision.kind === "publish-then-ack") {
      for (const out of decision.publishes) {
        if (!(await this.publishRouted(out))) {
          // Unroutable: give it to the queue's own dead-letter path (first tier or parking lot), never drop it.
          this.logger.error(`${out.what} of message_id=${messageIdOf(message)} has no queue bound for it; rejecting the delivery to ${processor.consumer.queue}'s dead-letter path`);
          this.settleOn(channel, () => channel.nack(m, false, false));
          return;
        }
      }
    }
    this.settleOn(channel, () => channel.ack(m));
  }

  private async publishRouted(out: Outbound): Promise<boolean> {
    const publisher = this.publisher as ConfirmedPublisher;
    const attempts = out.kind === "event" ? UNROUTABLE_EVENT_ATTEMPTS : 1;
    let backoff = 200;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if ((await publisher.publish(out)) === "confirmed") {
        return true;
      }
      if (attempt < attempts) {
        this.logger.warn(`${out.what} was unroutable (no queue bound for it yet); publishing it again in ${backoff} ms`);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 30_000);
      }
    }
    return false;
  }

  private settleOn(channel: Channel, settle: () => void): void {
    if (this.closedChannels.has(channel)) {
      this.logger.info("the channel of a delivery closed before it was settled; the broker redelivers it (answered from the idempotency store)");
      return;
    }
    try {
      settle();
    } catch (e) {
      this.logger.info(`could not settle a delivery (${safeMessage(e)}); the broker redelivers it`);
    }
  }

  private serveHealth(port: number): Promise<void> {
    this.health = createServer((req, res) => {
      const path = (req.url ?? "").split("?", 1)[0];
      if (path !== "/healthz" && path !== "/readyz") {
        res.writeHead(404).end();
        return;
      }
      const up = this.consuming;
      res.writeHead(up ? 200 : 503, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: up ? "UP" : "DOWN", service: this.settings.service, consuming: [...this.active.keys()], inFlight: this.inFlightCount }));
    });
    return new Promise((resolve, reject) => {
      this.health?.once("error", reject);
      this.health?.listen(port, () => {
        this.logger.info(`health endpoint on port ${this.healthPort()}`);
        resolve();
      });
    });
  }

  /** The port the health endpoint listens on (useful with port 0), or undefined without one. */
  healthPort(): number | undefined {
    const address = this.health?.address();
    return typeof address === "object" && address !== null ? address.port : undefined;
  }

  /**
   * Stops gracefully: cancels the consumers, waits (up to `shutdownTimeoutMs`) for running handlers and the confirms
   * of what they publish, then closes the connections. Whatever is still unacked is redelivered by the broker.
   */
  stop(): Promise<void> {
    this.stopped ??= this.doStop();
    return this.stopped;
  }

  private async doStop(): Promise<void> {
    this.stopping = true;
    for (const { channel, consumerTag } of this.active.values()) {
      await channel.cancel(consumerTag).catch(() => undefined);
    }
    const timeout = this.options.shutdownTimeoutMs ?? 20_000;
    if (this.inFlightCount > 0) {
      this.logger.info(`stopping: waiting up to ${timeout} ms for ${this.inFlightCount} deliveries in flight`);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idle.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeout))),
      ]);
      clearTimeout(timer);
    }
    await this.connection?.close().catch(() => undefined);
    await this.publisher?.close();
    await this.running?.catch(() => undefined);
    await new Promise<void>((resolve) => (this.health ? this.health.close(() => resolve()) : resolve()));
    this.logger.info(`worker ${this.settings.service} stopped`);
  }

  /** On SIGTERM (and SIGINT): stop gracefully, then exit 0 (1 if stopping failed). */
  stopOnSignals(signals: NodeJS.Signals[] = ["SIGTERM", "SIGINT"]): this {
    for (const signal of signals) {
      process.once(signal, () => {
        this.logger.info(`${signal}: stopping`);
        this.stop().then(() => process.exit(0), (e) => {
          this.logger.error(`stop failed: ${safeMessage(e)}`);
          process.exit(1);
        });
      });
    }
    return this;
  }
}
