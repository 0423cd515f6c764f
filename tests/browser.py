"""A real headless Chromium for the viewer's tests, or a clear reason why there is none.

`.ci/run` installs Debian's chromium and Playwright (the test extra), so CI always has both; on
another machine the tests skip and say what to install."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str | None:
    """The real binary first: Debian's /usr/bin/chromium is a shell wrapper that adds flags."""
    for name in CANDIDATES:
        found = name if Path(name).is_file() else shutil.which(name)
        if found:
            return found
    return None


def launch(playwright):
    path = chromium_path()
    return playwright.chromium.launch(executable_path=path, headless=True, args=["--disable-gpu", "--disable-quic"])


def require_browser():
    """Skip (outside CI) or fail (in CI) when Playwright or Chromium is missing."""
    why = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        why = "Playwright is not installed (pip install -e '.[test]')"
    if why is None and chromium_path() is None:
        why = "no Chromium found (apt-get install chromium; looked for " + ", ".join(CANDIDATES) + ")"
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: {why}")
        pytest.skip(why)
