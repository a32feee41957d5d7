/**
 * Decides what to do with one delivery: checks it can be handled at all, answers duplicates from the idempotency
 * store and commands past their deadline with `expired`, runs the handler within its limit, and turns its outcome
 * or failure into a {@link Decision}. Nothing here talks to the broker: {@link Decision}s are carried out by the
 * consumer (publish with confirms, then ack).
 */

import type { ConsumerSettings } from "./config.js";
import { exceptionMessage, exceptionType, HandlerTimeoutError, PayloadTooLargeError, UnprocessableMessageError } from "./errors.js";
import { addressable, type CommandBody, resultEvent } from "./events.js";
import { deadlineHeader, headerText, headerWholeNumber, Headers, isJsonContentType, retriesHeader } from "./headers.js";
import type { IdempotencyStore } from "./idempotency.js";
import { commandLimit, expiredBy } from "./limits.js";
import { type Inbound, messageIdOf, type Outbound } from "./message.js";
import { type Logger, notify, type WorkerListener } from "./observe.js";
import { type AnyOutcome, errorOutcome, expiredOutcome, isOutcome, type Outcome } from "./outcome.js";
import { deadLetter, hopeless, retryMessage } from "./routing.js";
import { Claims } from "./claims.js";
import { runTimed, type Slots } from "./timed.js";
import type { HandlingSpan, Tracing } from "./tracing.js";
import type { HeaderTable } from "./headers.js";

export type Decision =
  | { readonly kind: "publish-then-ack"; readonly publishes: readonly Outbound[] }
  | { readonly kind: "ack" }
  /** A copy of a message whose handler is running: decide again once it has ended. */
  | { readonly kind: "later"; readonly after: Promise<void> }
  /** Not started because the worker is stopping: given back to the queue (nack with requeue). */
  | { readonly kind: "give-back" };

/** What a command handler is given. */
export interface Command<In = Record<string, unknown>> {
  /** The command's name, e.g. `pay`. */
  readonly name: string;
  readonly messageId: string | undefined;
  readonly correlationId: string | undefined;
  readonly instanceId: string | undefined;
  readonly workflow: string | undefined;
  readonly step: string | undefined;
  /** The orchestrator's dispatch attempt (1 first). */
  readonly attempt: number | undefined;
  readonly businessKey: string | undefined;
  /** The instance's input with earlier steps' outputs merged in (or a task's mapped input), as `parse` made it. */
  readonly input: In;
  /** Earlier outputs that are not objects, by step name (e.g. a map's list). */
  readonly outputs: Record<string, unknown>;
  /** The whole command body. */
  readonly body: Readonly<CommandBody>;
  readonly headers: Readonly<HeaderTable>;
  /** Worker-level retries so far (0 on the first delivery). */
  readonly retries: number;
  /** Whether a technical failure now parks the command instead of retrying it. */
  readonly isLastAttempt: boolean;
  /** `baton-deadline`: after it the runtime has timed the attempt out; a handler may fence its effect by it. */
  readonly deadline: Date | undefined;
  /** Aborted when the handler's time limit passes: stop, and throw or return. */
  readonly signal: AbortSignal;
}

/** What a subscription handler is given: another service's event as it was published. */
export interface Event<Body = Record<string, unknown>> {
  /** The subscription's name. */
  readonly name: string;
  /** The event's routing key, e.g. `order.pay.failed` (kept across this subscription's retries). */
  readonly routingKey: string;
  readonly exchange: string;
  readonly messageId: string | undefined;
  readonly headers: Readonly<HeaderTable>;
  readonly body: Body;
  /** This subscription's retries so far. */
  readonly retries: number;
  readonly signal: AbortSignal;
}

export type CommandHandler<In, Out> = (command: Command<In>) => Promise<Outcome<Out>> | Outcome<Out>;
export type EventHandler<Body> = (event: Event<Body>) => unknown;

/** Checks and converts what a handler gets; a throw makes the message unprocessable (parked at once). */
export type Parser<T> = (value: unknown) => T;

export interface ProcessorContext {
  readonly service: string;
  readonly store: IdempotencyStore;
  readonly listener: WorkerListener;
  readonly logger: Logger;
  readonly tracing: Tracing;
  readonly slots: Slots;
  readonly handlerTimeoutMs: number;
  readonly maxResultBytes: number;
  readonly now: () => number;
  /** Whether the worker is stopping: a delivery whose handler has not started by then is given back. */
  readonly stopping: () => boolean;
}

export interface Processor {
  readonly consumer: ConsumerSettings;
  decide(message: Inbound): Promise<Decision>;
}

function readBody(message: Inbound): CommandBody {
  if (!isJsonContentType(message.properties.contentType as string | undefined)) {
    throw new UnprocessableMessageError(`content_type '${String(message.properties.contentType)}' is not application/json`);
  }
  if (message.body.length === 0) {
    throw new UnprocessableMessageError("body is empty");
  }
  let node: unknown;
  try {
    node = JSON.parse(message.body.toString("utf8"));
  } catch {
    // Not the parser's message: it quotes the offending text, which may be a secret.
    throw new UnprocessableMessageError("body is not JSON");
  }
  if (typeof node !== "object" || node === null || Array.isArray(node)) {
    throw new UnprocessableMessageError("body is JSON but not an object");
  }
  return node as CommandBody;
}

function parsed<T>(parse: Parser<T> | undefined, value: unknown, what: string): T {
  if (parse === undefined) {
    return value as T;
  }
  try {
    return parse(value);
  } catch (e) {
    throw new UnprocessableMessageError(`${what} does not fit: ${e instanceof Error ? e.name : "refused"}`);
  }
}


/** A failure's way: up a step of the staircase, or parked (with an `error` event for an addressable command). */
function onFailure(
  ctx: ProcessorContext,
  consumer: ConsumerSettings,
  message: Inbound,
  retriesSoFar: number,
  failure: unknown,
  errorEvent: ((outcome: AnyOutcome) => Outbound) | undefined,
): Decision {
  const what = `${consumer.kind} ${consumer.name} of service ${ctx.service} (message_id=${messageIdOf(message) ?? "-"}, instance=${headerText(message.headers, Headers.INSTANCE) ?? "-"})`;
  if (!hopeless(failure) && consumer.staircase.mayRetryAfter(retriesSoFar)) {
    const retry = retriesSoFar + 1;
    const delay = consumer.staircase.delayBeforeRetry(retry);
    ctx.logger.warn(`${what} failed: ${exceptionType(failure)}: ${exceptionMessage(failure)}; retry ${retry} of ${consumer.staircase.maxAttempts - 1} in ${delay} ms`);
    notify(ctx.listener, ctx.logger, "retried", consumer.name, retry, delay, failure);
    return { kind: "publish-then-ack", publishes: [retryMessage(ctx.service, consumer, message, retriesSoFar)] };
  }
  const type = exceptionType(failure);
  const reason = exceptionMessage(failure);
  ctx.logger.error(hopeless(failure)
    ? `dead letter: ${what} is unprocessable, parked: ${reason}`
    : `dead letter: ${what} failed after ${retriesSoFar + 1} attempt(s), parked: ${type}: ${reason}`);
  notify(ctx.listener, ctx.logger, "deadLettered", consumer.name, type, reason);
  const publishes = [deadLetter(ctx.service, consumer, message, retriesSoFar, failure)];
  if (errorEvent !== undefined) {
    publishes.push(errorEvent(errorOutcome(type, reason)));
  }
  return { kind: "publish-then-ack", publishes };
}

export class CommandProcessor<In, Out> implements Processor {
  private readonly claims = new Claims();

  constructor(
    private readonly ctx: ProcessorContext,
    readonly consumer: ConsumerSettings,
    private readonly handler: CommandHandler<In, Out>,
    private readonly parse?: Parser<In>,
  ) {}

  async decide(message: Inbound): Promise<Decision> {
    const { ctx, consumer } = this;
    let retries = 0;
    let body: CommandBody | undefined;
    const canAddress = addressable(message);
    try {
      retries = retriesHeader(message.headers);
      if (!canAddress) {
        throw new UnprocessableMessageError(`header ${Headers.ENTITY} or ${Headers.ACTION} is missing, so no result event can be addressed`);
      }
      body = readBody(message);
    } catch (poison) {
      return onFailure(ctx, consumer, message, retries, poison, canAddress ? (o) => this.event(message, body, o) : undefined);
    }
    const commandBody = body;
    const key = messageIdOf(message);
    const release = this.claims.tryClaim(key);
    if (release === undefined) {
      return { kind: "later", after: this.claims.released(key) };
    }
    let released = false;
    const releaseOnce = (): void => {
      if (!released) {
        released = true;
        release();
      }
    };
    try {
      return await this.decideClaimed(message, commandBody, retries, key);
    } finally {
      // Only now, after the outcome is remembered: a copy of the message then finds it instead of running again.
      releaseOnce();
    }
  }

  private async decideClaimed(message: Inbound, body: CommandBody, retries: number, key: string | undefined): Promise<Decision> {
    const { ctx, consumer } = this;
    const errorEvent = (o: AnyOutcome): Outbound => this.event(message, body, o);
    try {
      const remembered = key === undefined ? undefined : await ctx.store.find(key);
      if (remembered !== undefined) {
        ctx.logger.info(`command ${consumer.name} message_id=${key} was handled before: re-publishing its ${remembered.result} event without running the handler`);
        notify(ctx.listener, ctx.logger, "duplicate", consumer.name, key as string);
        return { kind: "publish-then-ack", publishes: [this.resultEvent(message, body, remembered, {})] };
      }
    } catch (failure) {
      // The store could not be asked: retry later rather than risk running the effect twice.
      return onFailure(ctx, consumer, message, retries, failure, errorEvent);
    }
    // After the store: a command answered before gets its outcome even past its deadline (its effect happened).
    const late = expiredBy(message.headers, ctx.now());
    if (late !== undefined) {
      return this.expired(message, body, late, {});
    }
    let input: In;
    try {
      input = parsed(this.parse, body["input"] ?? {}, "the input");
    } catch (poison) {
      return onFailure(ctx, consumer, message, retries, poison, errorEvent);
    }
    const releaseSlot = await ctx.slots.acquire();
    let span: HandlingSpan | undefined;
    try {
      if (ctx.stopping()) {
        return { kind: "give-back" };
      }
      // Checked again: the command may have waited for a slot.
      const lateNow = expiredBy(message.headers, ctx.now());
      if (lateNow !== undefined) {
        return this.expired(message, body, lateNow, {});
      }
      span = ctx.tracing.start(ctx.service, consumer.name, message.headers, {
        "baton.instance": headerText(message.headers, Headers.INSTANCE) ?? "",
        "baton.workflow": headerText(message.headers, Headers.WORKFLOW) ?? "",
        "baton.step": headerText(message.headers, Headers.STEP) ?? "",
        "baton.retries": retries,
      });
      const handling = span;
      const limit = commandLimit(message.headers, ctx.handlerTimeoutMs, ctx.now());
      const run = await runTimed(
        limit,
        (signal) => handling.within(() => this.handler(this.command(message, body, input, retries, signal))),
        (runningMs) => {
          ctx.logger.warn(`command ${consumer.name} message_id=${key} is stuck: still running ${runningMs} ms after it started, past its limit of ${limit} ms; its delivery stays unacked and its message id claimed until it ends`);
          notify(ctx.listener, ctx.logger, "stuck", consumer.name, key, runningMs);
        },
      );
      try {
        if (run.failed) {
          throw run.overran ? new HandlerTimeoutError(`the handler of command ${consumer.name} failed after its time limit of ${limit} ms: ${exceptionMessage(run.error)}`, run.error) : run.error;
        }
        if (!isOutcome(run.value)) {
          throw new Error(`the handler of command ${consumer.name} returned no outcome: return success(output) or failed(code, reason)`);
        }
        const outcome: Outcome = run.value;
        if (run.overran) {
          ctx.logger.warn(`command ${consumer.name} message_id=${key} ended ${run.durationMs} ms after it started, past its limit of ${limit} ms: its ${outcome.result} event is published late`);
        }
        notify(ctx.listener, ctx.logger, "handled", consumer.name, outcome.result, run.durationMs);
        const event = this.resultEvent(message, body, outcome, handling.traceHeaders());
        if (key !== undefined) {
          try {
            await ctx.store.remember(key, outcome);
          } catch (e) {
            // The effect has happened: publishing its result matters more than remembering it.
            ctx.logger.warn(`idempotency store could not remember message_id=${key} of command ${consumer.name}; publishing the result anyway: ${(e as Error).message}`);
          }
        }
        return { kind: "publish-then-ack", publishes: [event] };
      } catch (failure) {
        handling.failed(failure);
        return onFailure(ctx, consumer, message, retries, failure, (o) => this.event(message, body, o, handling.traceHeaders()));
      }
    } finally {
      span?.end();
      releaseSlot();
    }
  }

  private command(message: Inbound, body: CommandBody, input: In, retries: number, signal: AbortSignal): Command<In> {
    const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
    const deadline = deadlineHeader(message.headers);
    const outputs = body["outputs"];
    return {
      name: this.consumer.name,
      messageId: messageIdOf(message),
      correlationId: text(message.properties.correlationId),
      instanceId: text(body["instanceId"]) ?? headerText(message.headers, Headers.INSTANCE),
      workflow: text(body["workflow"]) ?? headerText(message.headers, Headers.WORKFLOW),
      step: text(body["step"]) ?? headerText(message.headers, Headers.STEP),
      attempt: typeof body["attempt"] === "number" ? body["attempt"] : (headerWholeNumber(message.headers, Headers.ATTEMPT) ?? undefined),
      businessKey: text(body["businessKey"]),
      input,
      outputs: typeof outputs === "object" && outputs !== null ? (outputs as Record<string, unknown>) : {},
      body,
      headers: message.headers,
      retries,
      isLastAttempt: !this.consumer.staircase.mayRetryAfter(retries),
      deadline: deadline === undefined ? undefined : new Date(deadline),
      signal,
    };
  }

  /** The command came after its deadline: not run, answered `expired` (never remembered, never retried). */
  private expired(message: Inbound, body: CommandBody, lateMs: number, trace: HeaderTable): Decision {
    const { ctx, consumer } = this;
    ctx.logger.warn(`command ${consumer.name} message_id=${messageIdOf(message)} (instance ${headerText(message.headers, Headers.INSTANCE)}, step ${headerText(message.headers, Headers.STEP)}) came ${lateMs} ms after its deadline: not run, answered expired`);
    notify(ctx.listener, ctx.logger, "expired", consumer.name, messageIdOf(message), lateMs);
    const reason = `not run: its deadline (${Headers.DEADLINE}) had passed ${lateMs} ms before the worker could start it`;
    return { kind: "publish-then-ack", publishes: [this.event(message, body, expiredOutcome(reason), trace)] };
  }

  private event(message: Inbound, body: CommandBody | undefined, outcome: AnyOutcome, trace: HeaderTable = {}): Outbound {
    return resultEvent(this.ctx.service, message, body, outcome, trace, this.ctx.now());
  }

  /** The event answering the command, unless it is over the size limit (then it would be on every retry too). */
  private resultEvent(message: Inbound, body: CommandBody, outcome: AnyOutcome, trace: HeaderTable): Outbound {
    const event = this.event(message, body, outcome, trace);
    if (event.body.length > this.ctx.maxResultBytes) {
      throw new PayloadTooLargeError(`command ${this.consumer.name}`, event.body.length, this.ctx.maxResultBytes);
    }
    return event;
  }
}

export class SubscriptionProcessor<Body> implements Processor {
  private readonly claims = new Claims();

  constructor(
    private readonly ctx: ProcessorContext,
    readonly consumer: ConsumerSettings,
    private readonly handler: EventHandler<Body>,
    private readonly parse?: Parser<Body>,
  ) {}

  async decide(message: Inbound): Promise<Decision> {
    const { ctx, consumer } = this;
    let retries = 0;
    let body: Body;
    try {
      // An event carries its producer's baton-retries: only one back from this subscription's own tier (through the
      // default exchange) carries a count of ours.
      retries = message.exchange === "" ? retriesHeader(message.headers) : 0;
      body = parsed(this.parse, readBody(message), "the event body");
    } catch (poison) {
      return onFailure(ctx, consumer, message, retries, poison, undefined);
    }
    const id = messageIdOf(message);
    const key = id === undefined ? undefined : `${consumer.name}:${id}`;
    const release = this.claims.tryClaim(key);
    if (release === undefined) {
      return { kind: "later", after: this.claims.released(key) };
    }
    try {
      try {
        if (key !== undefined && (await ctx.store.find(key)) !== undefined) {
          ctx.logger.info(`subscription ${consumer.name} message_id=${id} was handled before: acked without running the handler`);
          notify(ctx.listener, ctx.logger, "duplicate", consumer.name, key);
          return { kind: "ack" };
        }
      } catch (failure) {
        return onFailure(ctx, consumer, message, retries, failure, undefined);
      }
      const releaseSlot = await ctx.slots.acquire();
      try {
        if (ctx.stopping()) {
          return { kind: "give-back" };
        }
        // Not the step timeout nor the deadline an event may carry: those bound the producer's handler.
        const run = await runTimed(
          ctx.handlerTimeoutMs,
          (signal) => this.handler({
            name: consumer.name,
            routingKey: headerText(message.headers, Headers.ORIGINAL_ROUTING_KEY) ?? message.routingKey,
            exchange: headerText(message.headers, Headers.ORIGINAL_EXCHANGE) ?? message.exchange,
            messageId: id,
            headers: message.headers,
            body,
            retries,
            signal,
          }),
          (runningMs) => {
            ctx.logger.warn(`subscription ${consumer.name} message_id=${id} is stuck: still running ${runningMs} ms after it started`);
            notify(ctx.listener, ctx.logger, "stuck", consumer.name, id, runningMs);
          },
        );
        if (run.failed) {
          const failure = run.overran ? new HandlerTimeoutError(`the handler of subscription ${consumer.name} failed after its time limit: ${exceptionMessage(run.error)}`, run.error) : run.error;
          return onFailure(ctx, consumer, message, retries, failure, undefined);
        }
        notify(ctx.listener, ctx.logger, "handled", consumer.name, "success", run.durationMs);
        if (key !== undefined) {
          try {
            await ctx.store.remember(key, { result: "success", output: {} });
          } catch (e) {
            ctx.logger.warn(`idempotency store could not remember ${key}; acking anyway: ${(e as Error).message}`);
          }
        }
        return { kind: "ack" };
      } finally {
        releaseSlot();
      }
    } finally {
      release();
    }
  }
}

