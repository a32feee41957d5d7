/**
 * `payment`: `pay` charges the order, `refund` pays it back when the order is compensated; `authorize` and `void`
 * (order-approval's) hold and release an amount. The ledger lives in memory. Input: `amount` (default 25.00) and
 * `card`. A card `"declined"` (`CARD_DECLINED`) and a charge over 1000 (`INSUFFICIENT_FUNDS`) are business
 * failures, never retried; the `failed` event also reaches the sms service, which subscribes to `*.pay.failed`.
 *
 * Run: `node dist/payment.js`, configured by the environment of WorkerService `payment`.
 */

import { type BatonWorker, failed, type Outcome, success } from "@baton/worker";
import { type ExampleWorker, isMain, orderOf, run } from "./run.js";

/** The most a card may be charged. */
export const LIMIT = 1000;
const DEFAULT_AMOUNT = 25;

export interface PayInput {
  amount?: number;
  card?: string;
}

export interface Entry {
  id: string;
  order: string;
  type: "CHARGE" | "REFUND" | "HOLD" | "VOID";
  amount: number;
  at: Date;
}

export class PaymentWorker implements ExampleWorker {
  readonly service = "payment";
  readonly ledger: Entry[] = [];

  handlers(worker: BatonWorker): BatonWorker {
    return worker
      .command<PayInput>("pay", (cmd) => this.pay(orderOf(cmd), cmd.input))
      .command("refund", (cmd) => this.refund(orderOf(cmd)))
      .command<PayInput>("authorize", (cmd) => this.authorize(orderOf(cmd), cmd.input))
      .command("void", (cmd) => this.voidHold(orderOf(cmd)));
  }

  /** Charges the order once (a second pay of the same order returns the first charge). */
  pay(order: string, input: PayInput): Outcome {
    return this.book(order, input, "CHARGE", "pay", "paymentId", "charged");
  }

  /** Holds the amount once; refuses a declined card, and holds any amount (approval decides). */
  authorize(order: string, input: PayInput): Outcome {
    return this.book(order, input, "HOLD", "auth", "authorizationId", "held");
  }

  /** Releases the order's hold once (compensation of authorize). */
  voidHold(order: string): Outcome {
    const voided = this.find(order, "VOID");
    if (voided) {
      return success({ voidId: voided.id, released: voided.amount });
    }
    const held = this.find(order, "HOLD");
    if (!held) {
      return success({ released: 0 });
    }
    const e = this.add(`void-${order}`, order, "VOID", held.amount);
    console.error(`INFO  payment: released the hold of ${e.amount} on order ${order} (compensation)`);
    return success({ voidId: e.id, released: e.amount });
  }

  /** Pays the order's charge back once (compensation of pay); an order never charged has nothing to refund. */
  refund(order: string): Outcome {
    const refunded = this.find(order, "REFUND");
    if (refunded) {
      return success({ refundId: refunded.id, refunded: refunded.amount });
    }
    const charged = this.find(order, "CHARGE");
    if (!charged) {
      console.error(`INFO  payment: order ${order} was never charged, nothing to refund`);
      return success({ refunded: 0 });
    }
    const e = this.add(`refund-${order}`, order, "REFUND", charged.amount);
    console.error(`INFO  payment: refunded ${e.amount} to order ${order} (compensation)`);
    return success({ refundId: e.id, refunded: e.amount });
  }

  private book(order: string, input: PayInput, type: "CHARGE" | "HOLD", prefix: string, idField: string, verb: string): Outcome {
    const booked = this.find(order, type);
    if (booked) {
      return success({ [idField]: booked.id, amount: booked.amount });
    }
    const amount = input.amount ?? DEFAULT_AMOUNT;
    if (input.card?.toLowerCase() === "declined") {
      console.error(`INFO  payment: card declined for order ${order}`);
      return failed("CARD_DECLINED", `the card was declined by the issuer (order ${order})`);
    }
    if (amount > LIMIT && type === "CHARGE") {
      console.error(`INFO  payment: ${amount} over the limit for order ${order}`);
      return failed("INSUFFICIENT_FUNDS", `amount ${amount} exceeds the available funds of ${LIMIT} (order ${order})`);
    }
    const e = this.add(`${prefix}-${order}`, order, type, amount);
    console.error(`INFO  payment: ${verb} ${amount} for order ${order}`);
    return success({ [idField]: e.id, amount });
  }

  private add(id: string, order: string, type: Entry["type"], amount: number): Entry {
    const e = { id, order, type, amount, at: new Date() };
    this.ledger.push(e);
    return e;
  }

  private find(order: string, type: Entry["type"]): Entry | undefined {
    return this.ledger.find((e) => e.order === order && e.type === type);
  }
}

if (isMain(import.meta.url)) {
  await run(new PaymentWorker());
}
