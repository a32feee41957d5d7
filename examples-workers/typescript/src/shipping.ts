/**
 * `shipping`: `ship` books the parcel with the carrier, which is flaky on demand: with input `flakyShipping: n` the
 * first n deliveries of a command throw {@link CarrierUnavailableError}, a technical failure, so the SDK sends the
 * command along its staircase (RetryPolicy `quick`: 1s, 2s, 4s) and the delivery after those succeeds. With n at
 * least the policy's 4 attempts the command is parked in `q.dlx.shipping.ship`, an `error` event fails the step and
 * the order is compensated. Deliveries are counted per `message_id` and recorded with their `baton-retries`.
 *
 * Run: `node dist/shipping.js`, configured by the environment of WorkerService `shipping`.
 */

import { type BatonWorker, type Outcome, success } from "@baton/worker";
import { type ExampleWorker, isMain, orderOf, run } from "./run.js";

export interface ShipInput {
  flakyShipping?: number;
}

export interface Delivery {
  messageId: string;
  order: string;
  retries: number;
  delivery: number;
  failed: boolean;
  at: Date;
}

/** The simulated carrier did not answer: a technical failure, retried along the staircase. */
export class CarrierUnavailableError extends Error {
  override readonly name = "CarrierUnavailableError";
}

export class ShippingWorker implements ExampleWorker {
  readonly service = "shipping";
  readonly deliveries: Delivery[] = [];
  private readonly deliveriesByMessage = new Map<string, number>();

  handlers(worker: BatonWorker): BatonWorker {
    return worker.command<ShipInput>("ship", (cmd) => this.ship(cmd.messageId ?? "", orderOf(cmd), cmd.retries, cmd.input.flakyShipping ?? 0));
  }

  /** Throws {@link CarrierUnavailableError} while the command has had no more than `flaky` deliveries. */
  ship(messageId: string, order: string, retries: number, flaky: number): Outcome {
    const n = (this.deliveriesByMessage.get(messageId) ?? 0) + 1;
    this.deliveriesByMessage.set(messageId, n);
    const fails = n <= flaky;
    this.deliveries.push({ messageId, order, retries, delivery: n, failed: fails, at: new Date() });
    if (fails) {
      console.error(`INFO  shipping: the carrier does not answer for order ${order} (simulated: delivery ${n} of ${flaky} fails, baton-retries ${retries})`);
      throw new CarrierUnavailableError(`carrier API timed out (simulated: flakyShipping=${flaky}, delivery ${n})`);
    }
    const tracking = `TRK-${order.toUpperCase()}`;
    console.error(`INFO  shipping: parcel for order ${order} booked, tracking ${tracking} (delivery ${n}, baton-retries ${retries})`);
    return success({ trackingNumber: tracking, carrier: "ParcelCo" });
  }
}

if (isMain(import.meta.url)) {
  await run(new ShippingWorker());
}
