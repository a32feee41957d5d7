/**
 * `sms`: not a step but a subscriber. Its queue `q.sms.order_pay_failed_notify` is bound to
 * `payment.event.topic.ex` with `*.pay.failed`, so every refused payment reaches it; it "texts" the customer,
 * which here means it records the text and logs it.
 *
 * Run: `node dist/sms.js`, configured by the environment of WorkerService `sms`.
 */

import { type BatonWorker, type Event, Headers } from "@baton/worker";
import { type ExampleWorker, isMain, run } from "./run.js";

export interface PaymentFailed {
  instanceId?: string;
  errorCode?: string;
  reason?: string;
}

export interface Text {
  instanceId: string | undefined;
  routingKey: string;
  errorCode: string;
  text: string;
  at: Date;
}

export class SmsWorker implements ExampleWorker {
  readonly service = "sms";
  readonly sent: Text[] = [];

  handlers(worker: BatonWorker): BatonWorker {
    return worker.subscription<PaymentFailed>("order_pay_failed_notify", (event) => this.paymentFailed(event));
  }

  paymentFailed(event: Pick<Event<PaymentFailed>, "body" | "headers" | "routingKey">): void {
    const instance = event.body.instanceId ?? (event.headers[Headers.INSTANCE] as string | undefined);
    const code = event.body.errorCode ?? "UNKNOWN";
    const text = `We could not take payment for your order: ${event.body.reason ?? ""} [${code}]. Nothing was charged; please try another card.`;
    this.sent.push({ instanceId: instance, routingKey: event.routingKey, errorCode: code, text, at: new Date() });
    console.error(`INFO  sms: texted the customer of instance ${instance}: "${text}"`);
  }
}

if (isMain(import.meta.url)) {
  await run(new SmsWorker());
}
