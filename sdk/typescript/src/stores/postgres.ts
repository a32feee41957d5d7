/**
 * Outcomes kept in PostgreSQL, written in the same transaction as the handler's effect: exactly-once effects across
 * worker crashes (docs/message-contract.md#duplicates). Typed against the few calls of `pg` it makes (a `Pool`
 * fits), so the SDK does not depend on a driver: bring `pg` (or any client with the same `query`).
 * The table is the Java SDK's (`JdbcIdempotencyStore`), so workers of both languages can share it.
 */

import type { IdempotencyStore } from "../idempotency.js";
import { type AnyOutcome, type Outcome, outcomeFromJson, outcomeToJson } from "../outcome.js";
import type { Command } from "../processor.js";

export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

export interface PgPoolClient extends PgQueryable {
  release(error?: Error | boolean): void;
}

export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
}

const TABLE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

export class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly pool: PgPool,
    private readonly table = "baton_processed_message",
  ) {
    if (!TABLE.test(table)) {
      throw new Error(`'${table}' is not a table name ([schema.]name of letters, digits and _)`);
    }
  }

  /** The DDL of the table (plain SQL); housekeeping deletes rows older than a week. */
  static createTableSql(table = "baton_processed_message"): string {
    return `CREATE TABLE IF NOT EXISTS ${table} (
  message_id  varchar(512) PRIMARY KEY,
  outcome     text NOT NULL,
  recorded_at timestamp with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP)`;
  }

  /** Runs {@link createTableSql}: for tests and quick starts (production schemas belong to migrations). */
  async createTable(): Promise<void> {
    await this.pool.query(PostgresIdempotencyStore.createTableSql(this.table));
  }

  async find(key: string): Promise<AnyOutcome | undefined> {
    const { rows } = await this.pool.query(`SELECT outcome FROM ${this.table} WHERE message_id = $1`, [key]);
    return rows.length === 0 ? undefined : outcomeFromJson(String(rows[0]?.["outcome"]));
  }

  async remember(key: string, outcome: AnyOutcome): Promise<void> {
    await this.record(this.pool, key, outcome);
  }

  /**
   * Records the outcome with `client`, inside the caller's transaction; false when a duplicate recorded one first
   * (then roll back: the insert waited for that transaction and found its row).
   */
  async record(client: PgQueryable, key: string, outcome: AnyOutcome): Promise<boolean> {
    const { rowCount } = await client.query(
      `INSERT INTO ${this.table} (message_id, outcome) VALUES ($1, $2) ON CONFLICT (message_id) DO NOTHING`,
      [key, outcomeToJson(outcome)],
    );
    return rowCount === 1;
  }

  /**
   * A command handler whose effect and outcome commit in ONE transaction: the handler gets the transaction's client;
   * its throw rolls both back (a technical failure, retried); if a duplicate committed first, this effect is rolled
   * back and that outcome returned.
   */
  transactional<In, Out>(handler: (command: Command<In>, client: PgQueryable) => Promise<Outcome<Out>>): (command: Command<In>) => Promise<Outcome<Out>> {
    return async (command) => {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        try {
          const outcome = await handler(command, client);
          if (command.messageId === undefined || (await this.record(client, command.messageId, outcome))) {
            await client.query("COMMIT");
            return outcome;
          }
          await client.query("ROLLBACK");
          const first = await this.find(command.messageId);
          if (first === undefined || (first.result !== "success" && first.result !== "failed")) {
            throw new Error(`message_id ${command.messageId} was recorded by another transaction, but its outcome cannot be read`);
          }
          return first as Outcome<Out>;
        } catch (e) {
          await client.query("ROLLBACK").catch((r: Error) => (broken = r));
          throw e;
        }
      } finally {
        client.release(broken);
      }
    };
  }
}

