/**
 * The worker's settings from the environment the operator gives its pods (docs/message-contract.md#what-your-worker-is-given),
 * read as every Baton process reads its settings: all problems collected, then one error naming every one.
 */

import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { parseDuration } from "./duration.js";
import { InvalidSettingsError } from "./errors.js";
import { DEFAULT_HANDLER_TIMEOUT_MS, DEFAULT_MAX_RESULT_BYTES } from "./limits.js";
import { names } from "./names.js";
import { Staircase } from "./staircase.js";

export type Env = Record<string, string | undefined>;

export interface ConsumerSettings {
  readonly kind: "command" | "subscription";
  readonly name: string;
  /** `q.S.N` */
  readonly queue: string;
  readonly staircase: Staircase;
}

export interface WorkerSettings {
  readonly service: string;
  /** Unacked deliveries per queue (default 10). */
  readonly prefetch: number;
  readonly commands: readonly ConsumerSettings[];
  readonly subscriptions: readonly ConsumerSettings[];
  /** `BATON_HANDLER_TIMEOUT` (default 10 minutes). */
  readonly handlerTimeoutMs: number;
  /** `BATON_MAX_RESULT_BYTES` (default 16 MiB). */
  readonly maxResultBytes: number;
  /** `BATON_HANDLER_THREADS`: the most handlers that run at once, over all queues (default: unbounded but by the prefetch). */
  readonly maxConcurrentHandlers?: number;
  /** `BATON_HEALTH_PORT`: where `/healthz` answers (unset or 0: no health server, as for the Java SDK). */
  readonly healthPort?: number;
}

/** Where and as whom to connect; read again for every connection attempt, so a rotated Secret is picked up. */
export interface BrokerCredentials {
  readonly protocol: "amqp" | "amqps";
  /** `host:port` of each node, tried in order. */
  readonly addresses: readonly { hostname: string; port: number }[];
  readonly vhost: string;
  readonly username: string;
  readonly password: string;
  /** PEM of the CA(s) that signed the broker's certificate (`BATON_RABBITMQ_CA_FILE`), for amqps. */
  readonly ca?: Buffer;
}

export const Variables = {
  SERVICE: "BATON_SERVICE",
  PREFETCH: "BATON_PREFETCH",
  COMMANDS: "BATON_COMMANDS",
  SUBSCRIPTIONS: "BATON_SUBSCRIPTIONS",
  RABBITMQ_URI: "BATON_RABBITMQ_URI",
  RABBITMQ_USERNAME: "BATON_RABBITMQ_USERNAME",
  RABBITMQ_PASSWORD: "BATON_RABBITMQ_PASSWORD",
  RABBITMQ_ADDRESSES: "BATON_RABBITMQ_ADDRESSES",
  RABBITMQ_CA_FILE: "BATON_RABBITMQ_CA_FILE",
  HANDLER_TIMEOUT: "BATON_HANDLER_TIMEOUT",
  MAX_RESULT_BYTES: "BATON_MAX_RESULT_BYTES",
  HANDLER_THREADS: "BATON_HANDLER_THREADS",
  HEALTH_PORT: "BATON_HEALTH_PORT",
} as const;

/** The stem of a consumer's variables, e.g. `BATON_CONSUMER_ORDER_PAY_FAILED_NOTIFY`. */
export function consumerPrefix(name: string): string {
  return `BATON_CONSUMER_${name.toUpperCase().replaceAll("-", "_")}`;
}

const TOKEN = /^[a-z0-9]([a-z0-9-_]*[a-z0-9])?$/;

/** Collects problems; values of secrets never appear in one. */
class Reader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  }

  problem(name: string, what: string): void {
    this.problems.push(`${name}: ${what}`);
  }

  required(name: string, what: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined) {
      this.problem(name, `required (${what}) but not set`);
    }
    return v;
  }

  integer(name: string, fallback: number | undefined, min: number): number | undefined {
    const v = this.raw(name);
    if (v === undefined) {
      return fallback;
    }
    if (!/^[0-9]+$/.test(v) || Number(v) < min || !Number.isSafeInteger(Number(v))) {
      this.problem(name, `expected a whole number of at least ${min}, got '${v}'`);
      return fallback;
    }
    return Number(v);
  }

  list(name: string): string[] {
    const v = this.raw(name);
    return v === undefined ? [] : v.split(",").map((s) => s.trim()).filter((s) => s !== "");
  }

  duration(name: string, fallback: number): number {
    const v = this.raw(name);
    if (v === undefined) {
      return fallback;
    }
    try {
      return parseDuration(v);
    } catch (e) {
      this.problem(name, (e as Error).message);
      return fallback;
    }
  }

  /** `NAME`, or the content of the file `NAME_FILE` names (a mounted Secret), trimmed. */
  secret(name: string): string | undefined {
    const direct = this.raw(name);
    const file = this.raw(`${name}_FILE`);
    if (direct !== undefined && file !== undefined) {
      this.problem(name, `set ${name} or ${name}_FILE, not both`);
      return undefined;
    }
    if (file === undefined) {
      return direct;
    }
    try {
      const v = readFileSync(file, "utf8").trim();
      if (v === "") {
        this.problem(`${name}_FILE`, `expected a file holding the secret, got the empty file '${file}'`);
        return undefined;
      }
      return v;
    } catch (e) {
      this.problem(`${name}_FILE`, `expected a readable file, got '${file}' (${(e as NodeJS.ErrnoException).code ?? "error"})`);
      return undefined;
    }
  }

  done<T>(value: T): T {
    if (this.problems.length > 0) {
      throw new InvalidSettingsError(this.problems);
    }
    return value;
  }
}

function staircase(r: Reader, name: string): Staircase {
  const p = consumerPrefix(name);
  const attempts = r.integer(`${p}_MAX_ATTEMPTS`, undefined, 1);
  const delays: number[] = [];
  for (const d of r.list(`${p}_DELAYS`)) {
    try {
      delays.push(parseDuration(d));
    } catch (e) {
      r.problem(`${p}_DELAYS`, (e as Error).message);
    }
  }
  if (attempts === undefined) {
    return Staircase.NONE;
  }
  if (attempts > 1 && delays.length === 0) {
    if (r.raw(`${p}_DELAYS`) === undefined) {
      r.problem(`${p}_DELAYS`, `required when ${p}_MAX_ATTEMPTS is ${attempts}, e.g. 30s,2m`);
    }
    return Staircase.NONE;
  }
  return new Staircase(attempts, delays);
}

function consumers(r: Reader, service: string, kind: ConsumerSettings["kind"], variable: string): ConsumerSettings[] {
  return r.list(variable).map((name) => {
    const p = consumerPrefix(name);
    if (kind === "subscription" && r.raw(`${p}_WORKFLOW`) === undefined) {
      r.required(`${p}_SOURCE`, "the service whose events it receives");
      r.required(`${p}_PATTERN`, "its binding pattern, e.g. *.pay.failed");
    }
    return { kind, name, queue: r.raw(`${p}_QUEUE`) ?? names.consumerQueue(service, name), staircase: staircase(r, name) };
  });
}

/**
 * The settings from `env` (default `process.env`).
 *
 * @throws InvalidSettingsError naming every variable that is missing or malformed
 */
export function readSettings(env: Env = process.env): WorkerSettings {
  const r = new Reader(env);
  const service = r.required(Variables.SERVICE, "a service name (lower-case letters, digits and '-')") ?? "";
  if (service !== "" && !TOKEN.test(service)) {
    r.problem(Variables.SERVICE, `expected lower-case letters, digits and '-', got '${service}'`);
  }
  const threads = r.integer(Variables.HANDLER_THREADS, undefined, 1);
  const port = r.integer(Variables.HEALTH_PORT, undefined, 0);
  const settings: WorkerSettings = {
    service,
    prefetch: r.integer(Variables.PREFETCH, 10, 1) as number,
    commands: consumers(r, service, "command", Variables.COMMANDS),
    subscriptions: consumers(r, service, "subscription", Variables.SUBSCRIPTIONS),
    handlerTimeoutMs: r.duration(Variables.HANDLER_TIMEOUT, DEFAULT_HANDLER_TIMEOUT_MS),
    maxResultBytes: r.integer(Variables.MAX_RESULT_BYTES, DEFAULT_MAX_RESULT_BYTES, 1) as number,
    ...(threads === undefined ? {} : { maxConcurrentHandlers: threads }),
    ...(port === undefined || port === 0 ? {} : { healthPort: port }),
  };
  return r.done(settings);
}

/**
 * The broker credentials from `env`: `BATON_RABBITMQ_URI`, with `BATON_RABBITMQ_USERNAME`/`_PASSWORD` (or their
 * `_FILE`, a mounted Secret) taking precedence over those in the URI, `BATON_RABBITMQ_ADDRESSES` in place of the
 * URI's host and port. Read again before every connection attempt.
 *
 * @throws InvalidSettingsError naming every problem, never quoting the URI or the password
 */
export function readCredentials(env: Env = process.env): BrokerCredentials {
  const r = new Reader(env);
  const uri = r.required(Variables.RABBITMQ_URI, "an amqp:// or amqps:// URI");
  const username = r.secret(Variables.RABBITMQ_USERNAME);
  const password = r.secret(Variables.RABBITMQ_PASSWORD);
  if (username !== undefined && password === undefined) {
    r.problem(Variables.RABBITMQ_PASSWORD, `required when ${Variables.RABBITMQ_USERNAME} is set`);
  }
  let parsed: URL | undefined;
  if (uri !== undefined) {
    try {
      parsed = new URL(uri);
      if (parsed.protocol !== "amqp:" && parsed.protocol !== "amqps:") {
        throw new Error();
      }
    } catch {
      r.problem(Variables.RABBITMQ_URI, "not an amqp:// or amqps:// URI (check the URL-encoding of user, password and vhost)");
      parsed = undefined;
    }
  }
  const protocol = parsed?.protocol === "amqps:" ? "amqps" : "amqp";
  const defaultPort = protocol === "amqps" ? 5671 : 5672;
  let addresses = r.list(Variables.RABBITMQ_ADDRESSES).map((a) => {
    const [host, port] = a.split(":");
    if (!host || (port !== undefined && !/^[0-9]+$/.test(port))) {
      r.problem(Variables.RABBITMQ_ADDRESSES, `expected host:port, got '${a}'`);
    }
    return { hostname: host ?? "", port: port === undefined ? defaultPort : Number(port) };
  });
  if (addresses.length === 0 && parsed !== undefined) {
    addresses = [{ hostname: parsed.hostname, port: parsed.port === "" ? defaultPort : Number(parsed.port) }];
  }
  const caFile = r.raw(Variables.RABBITMQ_CA_FILE);
  let ca: Buffer | undefined;
  if (caFile !== undefined) {
    try {
      ca = readFileSync(caFile);
    } catch (e) {
      r.problem(Variables.RABBITMQ_CA_FILE, `expected a readable PEM file, got '${caFile}' (${(e as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
  const path = parsed?.pathname ?? "";
  return r.done({
    protocol,
    addresses,
    vhost: path === "" || path === "/" ? "/" : decodeURIComponent(path.substring(1)),
    // As the AMQP URI scheme says: no user in the URI is guest/guest.
    username: username ?? (decodeURIComponent(parsed?.username ?? "") || "guest"),
    password: password ?? (parsed?.username ? decodeURIComponent(parsed.password) : "guest"),
    ...(ca === undefined ? {} : { ca }),
  });
}

/** `baton-worker-<service>-<host>`: shown in the management UI next to the connection. */
export function defaultConnectionName(service: string, env: Env = process.env): string {
  return `baton-worker-${service}-${env["HOSTNAME"]?.trim() || hostname()}`;
}
