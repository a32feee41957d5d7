/**
 * `inventory`: `reserve` takes stock for an order, `release` gives it back when the order is compensated. Stock
 * lives in memory (book 100, mug 50, poster 5). Input: `sku` (default `book`) and `quantity` (default 1). More than
 * is in stock, or an unknown item, is a business failure (`OUT_OF_STOCK`, `UNKNOWN_ITEM`). Both commands are
 * idempotent per order, beyond the SDK's message-id check.
 *
 * Run: `node dist/inventory.js`, configured by the environment of WorkerService `inventory`.
 */

import { type BatonWorker, failed, type Outcome, success } from "@baton/worker";
import { type ExampleWorker, isMain, orderOf, run } from "./run.js";

export interface ReserveInput {
  sku?: string;
  quantity?: number;
}

export interface Reservation {
  reservationId: string;
  order: string;
  sku: string;
  quantity: number;
}

export class InventoryWorker implements ExampleWorker {
  readonly service = "inventory";
  private readonly stock: Map<string, number>;
  private readonly reservations = new Map<string, Reservation>();

  constructor(initialStock: Record<string, number> = { book: 100, mug: 50, poster: 5 }) {
    this.stock = new Map(Object.entries(initialStock));
  }

  handlers(worker: BatonWorker): BatonWorker {
    return worker
      .command<ReserveInput, Reservation>("reserve", (cmd) => this.reserve(orderOf(cmd), cmd.input))
      .command("release", (cmd) => this.release(orderOf(cmd)));
  }

  /** Reserves the order's items, or says why not. */
  reserve(order: string, input: ReserveInput): Outcome<Reservation> {
    const existing = this.reservations.get(order);
    if (existing) {
      return success(existing);
    }
    const sku = input.sku?.trim() ? input.sku : "book";
    const quantity = input.quantity ?? 1;
    if (quantity < 1) {
      return failed("INVALID_QUANTITY", `order ${order} asks for ${quantity} x ${sku}`);
    }
    const available = this.stock.get(sku);
    if (available === undefined) {
      return failed("UNKNOWN_ITEM", `no item '${sku}' in the catalogue (order ${order})`);
    }
    if (available < quantity) {
      return failed("OUT_OF_STOCK", `order ${order} asks for ${quantity} x ${sku}, only ${available} in stock`);
    }
    this.stock.set(sku, available - quantity);
    const r = { reservationId: `res-${order}`, order, sku, quantity };
    this.reservations.set(order, r);
    console.error(`INFO  inventory: reserved ${quantity} x ${sku} for order ${order} (${available - quantity} left)`);
    return success(r);
  }

  /** Gives the order's reserved stock back (compensation of reserve). */
  release(order: string): Outcome<{ released: boolean; reservationId?: string }> {
    const r = this.reservations.get(order);
    if (!r) {
      console.error(`INFO  inventory: nothing reserved for order ${order}, nothing to release`);
      return success({ released: false });
    }
    this.reservations.delete(order);
    this.stock.set(r.sku, (this.stock.get(r.sku) ?? 0) + r.quantity);
    console.error(`INFO  inventory: released ${r.quantity} x ${r.sku} of order ${order} (compensation)`);
    return success({ released: true, reservationId: r.reservationId });
  }

  available(sku: string): number {
    return this.stock.get(sku) ?? 0;
  }
}

if (isMain(import.meta.url)) {
  await run(new InventoryWorker());
}
