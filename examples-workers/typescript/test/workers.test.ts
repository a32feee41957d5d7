import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InventoryWorker } from "../src/inventory.js";
import { PaymentWorker } from "../src/payment.js";
import { CarrierUnavailableError, ShippingWorker } from "../src/shipping.js";
import { SmsWorker } from "../src/sms.js";

describe("the order saga's example workers", () => {
  it("inventory reserves once per order, refuses what it lacks, and releases", () => {
    const w = new InventoryWorker();
    assert.equal(w.reserve("o-1", { sku: "poster", quantity: 3 }).result, "success");
    assert.deepEqual(w.reserve("o-1", { sku: "poster", quantity: 3 }), w.reserve("o-1", {}));
    assert.equal(w.available("poster"), 2);
    assert.deepEqual(w.reserve("o-2", { sku: "poster", quantity: 3 }), { result: "failed", errorCode: "OUT_OF_STOCK", reason: "order o-2 asks for 3 x poster, only 2 in stock" });
    assert.equal((w.reserve("o-3", { sku: "lamp" }) as { errorCode: string }).errorCode, "UNKNOWN_ITEM");
    assert.deepEqual(w.release("o-1"), { result: "success", output: { released: true, reservationId: "res-o-1" } });
    assert.equal(w.available("poster"), 5);
    assert.deepEqual(w.release("o-1"), { result: "success", output: { released: false } });
  });

  it("payment charges once, refuses a declined card and an amount over the limit, refunds once", () => {
    const w = new PaymentWorker();
    assert.deepEqual(w.pay("o-1", {}), { result: "success", output: { paymentId: "pay-o-1", amount: 25 } });
    assert.deepEqual(w.pay("o-1", { amount: 99 }), { result: "success", output: { paymentId: "pay-o-1", amount: 25 } });
    assert.equal((w.pay("o-2", { card: "declined" }) as { errorCode: string }).errorCode, "CARD_DECLINED");
    assert.equal((w.pay("o-3", { amount: 1000.01 }) as { errorCode: string }).errorCode, "INSUFFICIENT_FUNDS");
    assert.equal(w.authorize("o-3", { amount: 5000 }).result, "success");
    assert.deepEqual(w.refund("o-1"), { result: "success", output: { refundId: "refund-o-1", refunded: 25 } });
    assert.deepEqual(w.refund("o-1"), { result: "success", output: { refundId: "refund-o-1", refunded: 25 } });
    assert.deepEqual(w.refund("o-9"), { result: "success", output: { refunded: 0 } });
    assert.deepEqual(w.voidHold("o-3"), { result: "success", output: { voidId: "void-o-3", released: 5000 } });
  });

  it("shipping fails the first flakyShipping deliveries of a command, then books the parcel", () => {
    const w = new ShippingWorker();
    assert.throws(() => w.ship("m-1", "o-1", 0, 2), CarrierUnavailableError);
    assert.throws(() => w.ship("m-1", "o-1", 1, 2), CarrierUnavailableError);
    assert.deepEqual(w.ship("m-1", "o-1", 2, 2), { result: "success", output: { trackingNumber: "TRK-O-1", carrier: "ParcelCo" } });
    assert.deepEqual(w.deliveries.map((d) => [d.retries, d.failed]), [[0, true], [1, true], [2, false]]);
  });

  it("sms texts the customer of a refused payment", () => {
    const w = new SmsWorker();
    w.paymentFailed({ routingKey: "order.pay.failed", headers: {}, body: { instanceId: "i-1", errorCode: "CARD_DECLINED", reason: "declined" } });
    assert.equal(w.sent[0]?.errorCode, "CARD_DECLINED");
    assert.match(w.sent[0]?.text ?? "", /declined \[CARD_DECLINED\]/);
  });
});
