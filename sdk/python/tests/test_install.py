"""``pip install`` of the SDK as its README says, offline: built with the setuptools already installed
(``--no-build-isolation``), into a directory of the test's own, from a copy of the source (so the checkout gets no
``build/``); then imported from there, with its ``py.typed`` marker. Skipped without pip or setuptools, unless
BATON_TEST_STRICT=1."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from .required import unavailable

SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class InstallTest(unittest.TestCase):

    def setUp(self):
        for module, debian in (("pip", "python3-pip"), ("setuptools", "python3-setuptools")):
            if importlib.util.find_spec(module) is None:
                unavailable(f"{module} is not installed for {sys.executable} (Debian: {debian})")
        self.tmp = tempfile.mkdtemp(prefix="baton-py-install-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_pip_installs_the_sdk_offline_with_its_type_marker(self):
        source, target = os.path.join(self.tmp, "python"), os.path.join(self.tmp, "target")
        shutil.copytree(SOURCE, source, ignore=shutil.ignore_patterns(
            "tests", "conformance", "build", "*.egg-info", "__pycache__"))
        # --no-index on top of the README's command: whatever would need the network fails instead.
        installed = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index",
             "--disable-pip-version-check", "--target", target, source],
            cwd=self.tmp, capture_output=True, text=True, timeout=120)
        self.assertEqual(installed.returncode, 0, installed.stdout + installed.stderr)

        imported = subprocess.run(
            [sys.executable, "-c", "import importlib.metadata, baton_worker; "
                                   "print(baton_worker.__file__); print(importlib.metadata.version('baton-worker'))"],
            cwd=self.tmp, env={**os.environ, "PYTHONPATH": target}, capture_output=True, text=True, timeout=60)
        self.assertEqual(imported.returncode, 0, imported.stderr)
        module_file, version = imported.stdout.split()
        self.assertEqual(os.path.dirname(module_file), os.path.join(target, "baton_worker"))
        self.assertEqual(version, "0.1.0")
        self.assertTrue(os.path.isfile(os.path.join(target, "baton_worker", "py.typed")))


if __name__ == "__main__":
    unittest.main()
