import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { PostgresIdempotencyStore, success, type Command } from "../../src/index.js";

const table = `baton_ts_${randomUUID().substring(0, 8)}`;

function cmd(messageId: string): Command {
  return { messageId, input: {} } as unknown as Command;
}

describe("the PostgreSQL idempotency store", () => {
  const pool = new pg.Pool({ host: process.env["BATON_TEST_PGHOST"] ?? "127.0.0.1", user: "postgres", database: "postgres", max: 4 });
  const store = new PostgresIdempotencyStore(pool, table);

  before(async () => {
    await store.createTable();
    await pool.query(`CREATE TABLE ${table}_effect (id serial PRIMARY KEY, note text)`);
  });

  after(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_effect`);
    await pool.end();
  });

  it("commits the effect and the outcome together, and answers a duplicate from the table", async () => {
    const id = randomUUID();
    const handler = store.transactional(async (_c, client) => {
      await client.query(`INSERT INTO ${table}_effect (note) VALUES ($1)`, [id]);
      return success({ note: id });
    });
    assert.deepEqual(await handler(cmd(id)), success({ note: id }));
    assert.deepEqual(await store.find(id), success({ note: id }));
    assert.deepEqual(await handler(cmd(id)), success({ note: id }));
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table}_effect WHERE note = $1`, [id]);
    assert.equal(rows[0].n, 1);
  });

  it("rolls the effect back when the handler throws, remembering nothing", async () => {
    const id = randomUUID();
    const handler = store.transactional(async (_c, client) => {
      await client.query(`INSERT INTO ${table}_effect (note) VALUES ($1)`, [id]);
      throw new Error("bank down");
    });
    await assert.rejects(handler(cmd(id)), /bank down/);
    assert.equal(await store.find(id), undefined);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table}_effect WHERE note = $1`, [id]);
    assert.equal(rows[0].n, 0);
  });
});
