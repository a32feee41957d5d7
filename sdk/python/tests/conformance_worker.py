"""The conformance worker's module (``sdk/python/conformance/worker.py``), loaded by its path: it is a script the
suite starts, not part of the package, and the integration tests serve the same cases with it."""

import importlib.util
import os

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance", "worker.py")
_SPEC = importlib.util.spec_from_file_location("baton_conformance_worker", _PATH)
conformance_worker = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(conformance_worker)
