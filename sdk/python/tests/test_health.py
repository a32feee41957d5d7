import unittest
import urllib.error
import urllib.request

from baton_worker.health import HealthServer


class HealthServerTest(unittest.TestCase):

    def test_200_when_healthy_503_otherwise(self):
        state = {"up": False}
        server = HealthServer(0, lambda: state["up"], host="127.0.0.1")
        try:
            url = f"http://127.0.0.1:{server.port}/healthz"
            with self.assertRaises(urllib.error.HTTPError) as down:
                urllib.request.urlopen(url, timeout=5)
            self.assertEqual(down.exception.code, 503)
            state["up"] = True
            with urllib.request.urlopen(url, timeout=5) as r:
                self.assertEqual(r.status, 200)
        finally:
            server.close()


if __name__ == "__main__":
    unittest.main()
