"""The example workers' rules and the names they serve (no broker):
``python3 -m pytest -q examples-workers/python`` from the repository's root."""

import unittest

import inventory
import payment
import shipping
import sms
from baton_worker import Command, Event, Failed, Success


class Registry:
    """Collects the handlers a worker module registers, as a Worker would."""

    def __init__(self):
        self.commands, self.subscriptions = {}, {}

    def command(self, name):
        return lambda fn: self.commands.setdefault(name, fn)

    def subscription(self, name):
        return lambda fn: self.subscriptions.setdefault(name, fn)


def command(input_, business_key="order-1", message_id="m-1", retries=0):
    return Command("x", message_id, "i-1", {"instanceId": "i-1", "businessKey": business_key, "input": input_}, {},
                   retries, False)


class ExampleWorkersTest(unittest.TestCase):

    def test_every_name_is_served(self):
        served = {}
        for module in (inventory, payment, shipping, sms):
            r = Registry()
            module.register(r)
            served[module.__name__] = sorted(r.commands) + sorted(r.subscriptions)
        self.assertEqual(served, {"inventory": ["release", "reserve"],
                                  "payment": ["authorize", "pay", "refund", "void"],
                                  "shipping": ["ship"], "sms": ["order_pay_failed_notify"]})

    def test_inventory_reserves_once_per_order_and_releases(self):
        r = Registry()
        stock = inventory.Inventory()
        inventory.register(r, stock)
        first = r.commands["reserve"](command({"sku": "poster", "quantity": 2}))
        self.assertEqual(first.output["reservationId"], "res-order-1")
        self.assertEqual(r.commands["reserve"](command({"sku": "poster", "quantity": 2})), first)
        self.assertEqual(stock.stock["poster"], 3)
        self.assertEqual(r.commands["reserve"](command({"sku": "poster", "quantity": 9}, "o-2")).code,
                         "OUT_OF_STOCK")
        self.assertEqual(r.commands["reserve"](command({"sku": "lamp"}, "o-3")).code, "UNKNOWN_ITEM")
        self.assertEqual(r.commands["release"](command({})).output["released"], True)
        self.assertEqual(r.commands["release"](command({})).output, {"released": False})
        self.assertEqual(stock.stock["poster"], 5)

    def test_payment_refuses_declined_cards_and_large_charges_and_refunds_once(self):
        r = Registry()
        payment.register(r)
        self.assertEqual(r.commands["pay"](command({"card": "declined"})), Failed(
            "CARD_DECLINED", "the card was declined by the issuer (order order-1)"))
        self.assertEqual(r.commands["pay"](command({"amount": 1001})).code, "INSUFFICIENT_FUNDS")
        self.assertEqual(r.commands["authorize"](command({"amount": 5000}, "o-2")).output["authorizationId"],
                         "auth-o-2")
        self.assertEqual(r.commands["pay"](command({})).output, {"paymentId": "pay-order-1", "amount": 25.0})
        self.assertEqual(r.commands["refund"](command({})).output, {"refundId": "refund-order-1", "refunded": 25.0})
        self.assertEqual(r.commands["refund"](command({})).output["refundId"], "refund-order-1")
        self.assertEqual(r.commands["refund"](command({}, "o-9")).output, {"refunded": 0})
        self.assertEqual(r.commands["void"](command({}, "o-2")).output, {"voidId": "void-o-2", "released": 5000})

    def test_shipping_fails_the_first_n_deliveries_of_a_command(self):
        r = Registry()
        carrier = shipping.Carrier()
        shipping.register(r, carrier)
        for retries in (0, 1):
            with self.assertRaises(shipping.CarrierUnavailable):
                r.commands["ship"](command({"flakyShipping": 2}, retries=retries))
        self.assertEqual(r.commands["ship"](command({"flakyShipping": 2}, retries=2)),
                         Success({"trackingNumber": "TRK-ORDER-1", "carrier": "ParcelCo"}))
        self.assertEqual([(d.retries, d.failed) for d in carrier.deliveries], [(0, True), (1, True), (2, False)])

    def test_sms_texts_the_customer_of_a_refused_payment(self):
        r = Registry()
        texts = sms.Texts()
        sms.register(r, texts)
        r.subscriptions["order_pay_failed_notify"](Event(
            "order_pay_failed_notify", "m", "i-1", "order.pay.failed", "payment.event.topic.ex",
            {"instanceId": "i-1", "errorCode": "CARD_DECLINED", "reason": "declined"}, {}, 0))
        self.assertEqual(len(texts.sent), 1)
        self.assertIn("[CARD_DECLINED]", texts.sent[0].text)


if __name__ == "__main__":
    unittest.main()
