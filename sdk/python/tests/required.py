"""What a test needs beyond the standard library and pika (the broker, PostgreSQL, psycopg, pip): without it the test
is skipped, and pytest's summary says why. With ``BATON_TEST_STRICT=1`` (CI sets it) a missing need fails the test
instead, so that a run where everything is installed cannot leave a test out unnoticed."""

import os
import unittest

STRICT = os.environ.get("BATON_TEST_STRICT") == "1"


def unavailable(what: str):
    """Ends the test (or its class's setup) for want of ``what``: a skip, or a failure when strict."""
    if STRICT:
        raise AssertionError(f"{what}, which BATON_TEST_STRICT=1 requires")
    raise unittest.SkipTest(what)


def needs(available: bool, what: str):
    """Class decorator: the class's tests run only when ``available``, else ``unavailable(what)``."""
    def apply(cls):
        if available:
            return cls
        if not STRICT:
            return unittest.skip(what)(cls)

        def refuse(_cls):
            unavailable(what)
        cls.setUpClass = classmethod(refuse)
        return cls
    return apply
