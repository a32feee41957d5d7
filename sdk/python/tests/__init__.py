import logging
import os

# The SDK's warnings (retries, dead letters) are expected in these tests: shown only when asked for.
if not os.environ.get("BATON_TEST_LOG"):
    logging.getLogger("baton_worker").addHandler(logging.NullHandler())
    logging.getLogger("pika").addHandler(logging.NullHandler())
    logging.getLogger("baton_worker").propagate = False
    logging.getLogger("pika").propagate = False
