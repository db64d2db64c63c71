"""A dashboard server in a child process, for the tests and the benchmarks.

:class:`ServerProcess` runs ``python -m workbench.serve`` on a free port of
the loopback interface, reads its address from its output and waits for its
kernel pools. It is test machinery, not part of the workbench: it lives here
(``tests/``) and the benchmarks put this folder on ``sys.path`` to use it.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from workbench.serve import DASHBOARDS, PROJECT_ROOT

#: the markers of the test being set up or run (tests/conftest.py sets them; None outside pytest)
RUNNING_MARKERS: frozenset[str] | None = None


def require_marker(name: str, what: str) -> None:
    """Refuse to start ``what`` in a test without the marker ``name``: the
    markers are how `make test-fast` leaves the slow-by-nature tests out, so a
    test that starts a server or a browser and is not marked would slow it down
    unseen."""
    if RUNNING_MARKERS is not None and name not in RUNNING_MARKERS:
        raise RuntimeError(f"this test starts {what} but is not marked {name!r}: "
                           f"add pytest.mark.{name} (pyproject.toml lists the markers)")


class ServerProcess:
    """``python -m workbench.serve`` in a child process (for tests and benchmarks).

    ``url`` is the base address once it listens; ``log`` collects its stderr
    lines; :meth:`wait_pools` waits until every dashboard's pool kernel has
    started (Voila logs "filled" then, before its notebook has run: a page
    opened now still waits for that); :meth:`wait_quiet` until the server and
    its kernels are idle (the pool's notebooks have run);
    :meth:`stop` ends it (SIGTERM, then SIGKILL).
    """

    POOL_FILLED = "Kernel pool of {name} is filled"

    def __init__(self, port: int = 0, notebooks: Path | None = None, pool_size: int | None = 1,
                 dashboards=DASHBOARDS, timeout: float = 120.0, host: str | None = None,
                 base_url: str | None = None, token: str | None = None, max_kernels: int | None = None,
                 extra_args: tuple[str, ...] = (), env: dict | None = None, rule_pages: bool = True,
                 release_after: int | None = None):
        import subprocess
        import threading

        require_marker("server", "a dashboard server")
        self.dashboards = dashboards
        self.token = token
        argv = [sys.executable, "-m", "workbench.serve", "--port", str(port)]
        for flag, value in (("--pool-size", pool_size), ("--notebooks", notebooks), ("--host", host), ("--base-url", base_url),
                            ("--token", token), ("--max-kernels", max_kernels),
                            ("--release-after", release_after)):
            if value is not None:
                argv += [flag, str(value)]
        if tuple(dashboards) != DASHBOARDS or not rule_pages:  # a --dashboards list serves no rule-file page
            argv += ["--dashboards", ",".join(d.notebook for d in dashboards)]
        argv += list(extra_args)
        served_env = {k: v for k, v in os.environ.items() if k not in self.ENV_OPTIONS}
        served_env.update(env or {})
        self.proc = subprocess.Popen(argv, cwd=str(PROJECT_ROOT), env=served_env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.log: list[str] = []
        self.out: list[str] = []
        self._cond = threading.Condition()
        for stream, sink in ((self.proc.stdout, self.out), (self.proc.stderr, self.log)):
            threading.Thread(target=self._pump, args=(stream, sink), daemon=True).start()
        self.url = self._wait(lambda: next((ln.split(" at ", 1)[1].strip() for ln in self.out
                                            if ln.startswith("Dashboards served at ")), None), timeout)

    #: environment variables of the options: a test's server gets only what it is given
    ENV_OPTIONS = ("PORT", "HOST", "BASE_URL", "WORKBENCH_TOKEN", "MAX_KERNELS", "POOL_SIZE", "RELEASE_AFTER")

    def kernels(self) -> int:
        """How many kernels the server runs now (its child processes)."""
        import psutil

        try:
            return len(psutil.Process(self.proc.pid).children(recursive=False))
        except psutil.NoSuchProcess:
            return 0

    def memory_mb(self) -> tuple[float, float]:
        """``(server, kernels)``: resident memory in MB of the server process and of all its kernels."""
        import psutil

        try:
            root = psutil.Process(self.proc.pid)
            server = root.memory_info().rss
            kernels = 0
            for child in root.children(recursive=True):
                try:
                    kernels += child.memory_info().rss
                except psutil.NoSuchProcess:
                    pass
        except psutil.NoSuchProcess:
            return 0.0, 0.0
        return server / 2**20, kernels / 2**20

    def _pump(self, stream, sink):
        for line in stream:
            with self._cond:
                sink.append(line.rstrip("\n"))
                self._cond.notify_all()
        with self._cond:
            self._cond.notify_all()

    def _wait(self, found, timeout: float):
        import time

        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                value = found()
                if value:
                    return value
                if self.proc.poll() is not None:
                    raise RuntimeError("the dashboard server exited:\n" + "\n".join(self.out + self.log[-40:]))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("the dashboard server did not get ready:\n" + "\n".join(self.log[-40:]))
                self._cond.wait(min(left, 0.5))

    def pools_filled(self, name: str) -> int:
        """How many times the pool of one notebook has been filled so far."""
        with self._cond:
            return sum(self.POOL_FILLED.format(name=name) in ln for ln in self.log)

    def output_lines(self, text: str, timeout: float = 30.0) -> list[str]:
        """The lines of the server's standard output holding ``text``, waiting
        until there is one (the links are printed just after the address)."""
        return self._wait(lambda: [ln for ln in self.out if text in ln], timeout)

    def log_lines(self, text: str, timeout: float = 30.0) -> list[str]:
        """The lines of the server's log holding ``text``, waiting until there is one (the log
        is read as the server writes it, so a line can come just after the answer it belongs to)."""
        return self._wait(lambda: [ln for ln in self.log if text in ln], timeout)

    def wait_pools(self, counts: dict[str, int] | None = None, timeout: float = 120.0) -> None:
        """Wait until each dashboard's pool was filled ``counts[name]`` times (default once)."""
        counts = counts or {d.notebook: 1 for d in self.dashboards}
        self._wait(lambda: all(self.pools_filled(n) >= c for n, c in counts.items()), timeout)

    def cpu_seconds(self) -> float:
        """CPU time used so far by the server and every process under it (its kernels)."""
        import psutil

        total = 0.0
        try:
            root = psutil.Process(self.proc.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return total
        for p in procs:
            try:
                t = p.cpu_times()
                total += t.user + t.system
            except psutil.NoSuchProcess:  # a kernel that ended meanwhile
                pass
        return total

    def wait_quiet(self, busy: float = 0.1, window: float = 1.0, timeout: float = 300.0) -> float:
        """Wait until the server and its kernels use less than ``busy`` of one
        core over ``window`` seconds (kernels started, notebooks pre-executed),
        so that what is measured next does not compete with them. Returns the
        seconds waited."""
        import time

        start = time.monotonic()
        before = self.cpu_seconds()
        while True:
            time.sleep(window)
            now = self.cpu_seconds()
            if now - before < busy * window:
                return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"the dashboard server stayed busy for {timeout:.0f} s")
            before = now

    def stop(self, timeout: float = 30.0) -> int:
        import signal
        import subprocess

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout)
        return self.proc.returncode

    def __enter__(self) -> "ServerProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
