"""A Streamlit server in a subprocess, and sessions that talk to it the way the browser does.

A session is one websocket to /_stcore/stream. It sends BackMsg protos (`rerun_script` with a
ClientState: query string, page, widget states) and reads ForwardMsg protos until
`script_finished`, collecting what the run drew: widgets (ids, ranges, options), metrics,
markdown, exceptions. Shared by bench/load.py and bench/startup_memory.py; the server and the
page list are also what tests/e2e starts and walks. The websocket itself is ui/compute/stream.py's.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

# The protocol is the app's own client (ui/compute/stream.py, which the warm-up uses): this checkout's.
_REPO = str(Path(__file__).resolve().parents[1])
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)
from ui.compute import stream  # noqa: E402
from ui.registry import query  # noqa: E402

# FFNLAB_APP_ROOT points the benchmarks at another checkout (as tests/e2e does).
ROOT = Path(os.environ.get("FFNLAB_APP_ROOT", Path(__file__).resolve().parents[1]))
# The widget kinds a student moves; buttons (Train, Step) and text boxes are left alone.
MOVABLE = ("slider", "selectbox", "checkbox", "radio", "number_input")
# Query keys that choose how a page looks, not what it computes (ui/kit/shell.py's reserved names).
VIEW_KEYS = {"lang", "present", "code"}


@dataclass(frozen=True)
class AppPage:
    file: str
    url_path: str  # "" for home; Streamlit's router name for the file (ui/registry/query.url_path)

    @property
    def name(self) -> str:
        return self.url_path or "home"


def discover_pages(root: Path = ROOT) -> list[AppPage]:
    """Home, then pages/*.py in menu order (whatever exists now)."""
    def order(p: Path) -> tuple[int, str]:
        m = re.match(r"^(\d+)_", p.name)
        return (int(m.group(1)) if m else 10**6, p.name)

    pages = [AppPage("dashboard.py", "")]
    for p in sorted((root / "pages").glob("*.py"), key=order):
        pages.append(AppPage(f"pages/{p.name}", query.url_path(f"pages/{p.name}")))
    return pages


# --- the server ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`streamlit run dashboard.py` on a free port of 127.0.0.1; `started` is the spawn time."""

    def __init__(self, root: Path = ROOT, port: int | None = None, warmup: bool = False,
                 results_dir: Path | None = None, env: dict[str, str] | None = None) -> None:
        # Off unless asked: a benchmark or test of a cold server counts what its own sessions compute.
        # Its results on disk (ui/compute/disk_cache.py) in a folder of its own unless given one (replicas share
        # one): a new server finds nothing computed by another run.
        self._results = None if results_dir is not None else tempfile.TemporaryDirectory(prefix="ffnlab-results-")
        results = results_dir if results_dir is not None else Path(self._results.name) / "results"
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = tempfile.NamedTemporaryFile("w+", prefix="ffnlab-bench-", suffix=".log", delete=False)
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", "dashboard.py",
             "--server.port", str(self.port), "--server.address", "127.0.0.1",
             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
            cwd=root, stdout=self._log, stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", "FFNLAB_WARMUP": "1" if warmup else "0",
                 "FFNLAB_RESULTS_DIR": str(results), **(env or {})},
        )

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return Path(self._log.name).read_text(encoding="utf-8", errors="replace")

    def wait_healthy(self, timeout_s: float = 90.0) -> float:
        """Seconds from spawn until /_stcore/health answers ok."""
        deadline = time.perf_counter() + timeout_s
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=1) as r:
                    if r.read() == b"ok":
                        return time.perf_counter() - self.started
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"streamlit not healthy after {timeout_s:.0f} s:\n{self.log()}")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss_mb(self) -> float:
        return rss_mb(self.proc.pid)

    def cpu_s(self) -> float:
        return cpu_s(self.proc.pid)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self._log.close()
        if self._results is not None:
            self._results.cleanup()


# The framework's floor: a bare Streamlit page with one slider and one Altair chart, served with the
# app's own .streamlit/config.toml, so that what the app costs beyond Streamlit itself can be told apart.
FLOOR = '''
import altair as alt
import pandas as pd
import streamlit as st

n = st.slider("n", 1, 100, 50)
st.altair_chart(alt.Chart(pd.DataFrame({"x": range(n), "y": [i * i for i in range(n)]})).mark_line().encode(x="x", y="y"))
'''


class FloorServer(Server):
    """The floor page (FLOOR) served on its own free port, from a temporary folder."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="ffnlab-floor-"))
        (self.dir / "dashboard.py").write_text(FLOOR)
        (self.dir / ".streamlit").mkdir()
        (self.dir / ".streamlit" / "config.toml").write_text((ROOT / ".streamlit" / "config.toml").read_text())
        super().__init__(self.dir)


def _tree_sum(pid: int, measure: Callable[[psutil.Process], float]) -> float:
    """measure(p) summed over a process and all its children; processes that ended count 0."""
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for p in procs:
        try:
            total += measure(p)
        except psutil.NoSuchProcess:
            pass
    return total


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process and its children have used so far.

    On a shared machine this is the steadier measure of what a run costs: wall time also
    counts the time the server waited for a core that another program held.
    """
    return _tree_sum(pid, lambda p: sum(p.cpu_times()[:2]))  # user + system


def settle(pid: int, most_s: float = 60.0, window_s: float = 0.5, busy: float = 0.05) -> float:
    """Wait until the server is idle (under `busy` of a core over `window_s`), at most `most_s`; the seconds waited.

    A page may go on computing after its answer (page 7 trains its seeds later): a cost measured
    while that runs would be the background's, not the rerun's.
    """
    start = time.monotonic()
    while time.monotonic() - start < most_s:
        before = cpu_s(pid)
        time.sleep(window_s)
        if cpu_s(pid) - before < busy * window_s:
            break
    return time.monotonic() - start


def cache_counts(url: str) -> dict[str, int]:
    """The server's st.cache_data counters summed over every cached function: hits, misses, evictions.

    Read from Streamlit's /_stcore/metrics; empty when the endpoint does not answer. Page scripts
    all run as __main__, so per-function names would mix pages: only the sums are kept.
    """
    try:
        with urllib.request.urlopen(f"{url}/_stcore/metrics?families=cache_lookups&families=cache_evictions",
                                    timeout=5) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return {}
    counts = {"hits": 0, "misses": 0, "evictions": 0}
    for line in text.splitlines():
        if line.startswith("cache_lookups_total{"):
            name = "hits" if 'result="hit"' in line else "misses"
        elif line.startswith("cache_evictions_total{"):
            name = "evictions"
        else:
            continue
        counts[name] += int(float(line.rsplit(" ", 1)[1]))
    return counts


def load_average() -> str:
    """The machine's 1-minute load average and core count, printed beside every timing."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def rss_mb(pid: int) -> float:
    """Resident memory of a process and all its children, in MB."""
    return _tree_sum(pid, lambda p: p.memory_info().rss) / 2**20


# --- a session ----------------------------------------------------------------------------


@dataclass
class Widget:
    id: str
    kind: str
    key: str  # the URL name when bound (query_param_key), else ""
    proto: object
    fragment_id: str = ""  # set when drawn inside an st.fragment: pressing it reruns only that


@dataclass
class Run:
    """What one script run sent back."""

    seconds: float
    status: str
    query_string: str
    widgets: list[Widget] = field(default_factory=list)
    metrics: list[tuple[str, str]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    exceptions: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # st.warning boxes: a page refusing a setting
    bound_keys: set[str] = field(default_factory=set)  # URL names of every control drawn, of any kind
    charts: int = 0
    settings: str = ""  # the page and the values this session set: what its cached call is keyed on
    buttons: list[Widget] = field(default_factory=list)  # buttons of the main area (Train, Step)
    captions: list[str] = field(default_factory=list)  # st.caption texts of the main area

    @property
    def ok(self) -> bool:
        return not self.exceptions and self.status in ("FINISHED_SUCCESSFULLY", "FINISHED_FRAGMENT_RUN_SUCCESSFULLY")

    def fingerprint(self) -> str:
        """A digest of what the run showed: its metrics and its text (claims, takeaways)."""
        return hashlib.sha256(repr((self.metrics, self.texts)).encode()).hexdigest()[:16]



class Session:
    """One browser tab's worth of protocol: a websocket, the current page and query string."""

    def __init__(self, base_url: str, timeout_s: float = 120.0, cookie: str | None = None) -> None:
        # A cookie is what a browser sends with its websocket (the balancer's affinity cookie).
        self.stream = stream.Stream(stream.url_of(base_url), timeout_s, {"Cookie": cookie} if cookie else None)
        self.timeout_s = timeout_s
        self.query_string = ""
        self.widget_states: dict[str, WidgetState] = {}
        self.values: dict[str, object] = {}  # what this session set, by widget id

    def close(self) -> None:
        try:
            self.stream.close()
        except Exception:
            pass

    def open(self, page: AppPage, query_string: str = "") -> Run:
        """Open a page as a fresh page load does: the link's query string, no widget states."""
        return self.read_run(self.start(page, query_string))

    def set(self, widget: Widget, value) -> Run:
        """Move a widget to a value and rerun as the browser does: a widget drawn inside an st.fragment
        reruns only that fragment (its Run then holds only what the fragment drew)."""
        self.stage(widget, value)
        return self.read_run(self.send_rerun(fragment_id=widget.fragment_id))

    def stage(self, widget: Widget, value) -> None:
        """Set a widget's value for the next rerun, as a browser does when a control is let go."""
        state = WidgetState(id=widget.id)
        if widget.kind == "slider" and widget.proto.options:
            state.string_array_value.data[:] = list(value)
        elif widget.kind == "slider":
            state.double_array_value.data[:] = list(value)
        elif widget.kind in ("selectbox", "radio"):
            state.string_value = value
        elif widget.kind == "checkbox":
            state.bool_value = bool(value)
        elif widget.kind == "number_input":
            state.double_value = float(value)
        else:
            raise ValueError(f"cannot move a {widget.kind}")
        self.widget_states[widget.id] = state
        self.values[widget.key or widget.id] = value

    def settings(self) -> str:
        """The page, the link's computing parameters and the values moved since: a cache key's worth."""
        return settings_key(self.page, self.query_string, self.values)

    def rerun(self) -> Run:
        return self.read_run(self.send_rerun())

    def send_rerun(self, extra: list[WidgetState] = (), fragment_id: str = "") -> float:
        """Ask for a rerun without waiting for it (read it with read_run); the time it was sent."""
        return self.stream.rerun(self.page.url_path, self.query_string, [*self.widget_states.values(), *extra],
                                 fragment_id)

    def start(self, page: AppPage, query_string: str = "") -> float:
        """Open a page with a link, as open() does, without waiting for its run."""
        self.page = page
        self.query_string = query_string
        self.widget_states = {}
        self.values = {}
        return self.send_rerun()

    def press(self, button: Widget) -> float:
        """Press a button as the browser does (a trigger, only its fragment rerun); don't wait."""
        return self.send_rerun([WidgetState(id=button.id, trigger_value=True)], button.fragment_id)

    def clear_cache(self) -> None:
        """What the app menu's "Clear cache" sends: Streamlit honours it from any client."""
        self.stream.clear_cache()

    def read_run(self, start: float) -> Run:
        """Read what the server sends until a run ends; its time counts from `start`."""
        run = Run(seconds=0.0, status="", query_string=self.query_string, settings=self.settings())
        try:
            return self._read(run, start)
        except TimeoutError:
            raise TimeoutError(f"no script_finished within {self.timeout_s:.0f} s on {self.page.name}") from None

    def _read(self, run: Run, start: float) -> Run:
        for fwd in self.stream.messages(until=start + self.timeout_s):
            kind = fwd.WhichOneof("type")
            if kind == "delta":
                self._read_delta(fwd, run)
            elif kind == "page_info_changed":
                self.query_string = fwd.page_info_changed.query_string
                run.query_string = self.query_string
            elif kind == "page_not_found":
                run.exceptions.append(f"page not found: {fwd.page_not_found.page_name}")
            elif kind == "ref_hash":
                # Only sent for hashes the client says it has cached; we never say so.
                run.exceptions.append("unexpected cached-message reference")
            status = stream.run_status(fwd)
            if status is not None:
                run.status = status
                run.seconds = time.perf_counter() - start
                if status == "FINISHED_WITH_COMPILE_ERROR":
                    run.exceptions.append("compile error")
                return run
        raise AssertionError("unreachable: messages() yields until it times out")

    @staticmethod
    def _read_delta(fwd: ForwardMsg, run: Run) -> None:
        delta = fwd.delta
        if delta.WhichOneof("type") != "new_element":
            return
        el = delta.new_element
        kind = el.WhichOneof("type")
        in_main = len(fwd.metadata.delta_path) > 0 and fwd.metadata.delta_path[0] == 0
        bound = getattr(getattr(el, kind, None), "query_param_key", "") if kind else ""
        if bound:
            run.bound_keys.add(bound)
        if kind == "exception":
            run.exceptions.append(f"{el.exception.type}: {el.exception.message}")
        elif kind == "metric" and in_main:
            run.metrics.append((el.metric.label, el.metric.body))
        elif kind == "markdown" and in_main:
            run.texts.append(el.markdown.body)
            if el.markdown.element_type == el.markdown.Type.CAPTION:
                run.captions.append(el.markdown.body)
        elif kind == "button" and in_main:
            run.buttons.append(Widget(el.button.id, "button", el.button.id.rsplit("-", 1)[-1], el.button,
                                      fwd.delta.fragment_id))
        elif kind == "alert" and in_main and el.alert.format == Alert.WARNING:
            run.warnings.append(el.alert.body)
        elif kind == "vega_lite_chart":
            run.charts += 1
        elif kind in MOVABLE and in_main:
            proto = getattr(el, kind)
            # A keyed widget's id ends in "-<key>"; the bound URL name is query_param_key.
            key = proto.query_param_key or (proto.id.rsplit("-", 1)[-1] if proto.id.startswith("$$ID-") else "")
            if key:  # a choice writes its key into the address itself, without a query_param_key
                run.bound_keys.add(key)
            run.widgets.append(Widget(proto.id, kind, key, proto, fwd.delta.fragment_id))


def all_at_once(target: Callable[..., object], n: int, *args: object) -> None:
    """`target(i, *args)` for each of n students, every one in a thread of its own; back when all have returned.

    Every thread is started before any is waited for, so that the students act together as a class does.
    """
    threads = [threading.Thread(target=target, args=(i, *args)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def settings_key(page: AppPage, query_string: str, values: dict[str, object]) -> str:
    pairs = urllib.parse.parse_qsl(query_string, keep_blank_values=True)
    link = sorted((k, v) for k, v in pairs if k not in VIEW_KEYS)
    return f"{page.name}?{urllib.parse.urlencode(link)}#{sorted(map(str, values.items()))}"


def current_value(widget: Widget) -> object:
    """The value a widget shows, as its proto carries it (what the run rendered)."""
    p = widget.proto
    if widget.kind == "slider":
        if p.options:  # select_slider: the value is option labels (raw_value when the server set it)
            if p.set_value and p.raw_value:
                return list(p.raw_value)
            return [p.options[int(i)] for i in (p.value if p.set_value and p.value else p.default)]
        return list(p.value if p.set_value and p.value else p.default)
    if widget.kind in ("selectbox", "radio"):
        if p.HasField("raw_value"):
            return p.raw_value
        return p.options[p.default] if p.HasField("default") and p.options else None
    if widget.kind == "checkbox":
        return p.value if p.set_value else p.default
    if widget.kind == "number_input":
        return p.value if p.HasField("value") else p.default
    raise ValueError(widget.kind)


def neighbour(widget: Widget, rng, current: object = None) -> object:
    """A value a student would pick next: a step or two along a slider, another option, a flip."""
    p = widget.proto
    current = current_value(widget) if current in (None, []) else current
    if widget.kind == "slider" and p.options:
        options = list(p.options)
        i = options.index(current[0]) if current[0] in options else 0
        j = i + rng.choice((-1, 1))
        if not 0 <= j < len(options):
            j = i - (j - i)
        return [options[max(0, min(len(options) - 1, j))]] + list(current[1:])
    if widget.kind == "slider":
        step = p.step or 1
        moved = min(p.max, max(p.min, current[0] + rng.choice((-2, -1, 1, 2)) * step))
        if moved == current[0]:
            moved = current[0] - step if current[0] - step >= p.min else current[0] + step
        return [moved] + list(current[1:])
    if widget.kind in ("selectbox", "radio"):
        others = [o for o in p.options if o != current]
        return rng.choice(others) if others else current
    if widget.kind == "checkbox":
        return not current
    if widget.kind == "number_input":
        step = p.step or 1
        low = p.min if p.has_min else float("-inf")
        high = p.max if p.has_max else float("inf")
        moved = current + rng.choice((-1, 1)) * step
        if not low <= moved <= high:
            moved = current - (moved - current)
        return moved if low <= moved <= high else current
    raise ValueError(widget.kind)


def metric_values(url: str, family: str) -> dict[str, float]:
    """One family of the server's /_stcore/metrics: {labels: value}; empty if it does not answer."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/metrics?families={family}", timeout=5) as r:
            text = r.read().decode("utf-8", "replace")
    except OSError:
        return {}
    values = {}
    for line in text.splitlines():
        name, _, rest = line.partition("{")
        if name in (family, f"{family}_total") and "}" in rest:
            labels, _, value = rest.rpartition("} ")
            values[labels] = float(value)
    return values


def experiments(url: str) -> dict[str, int]:
    """What the app's turns have done so far (ui/compute/cache.py): computed, shared, abandoned, dropped, failed."""
    return {labels.split('"')[1]: int(v) for labels, v in metric_values(url, "ffnlab_experiments").items()}


def ready(url: str) -> tuple[int, dict]:
    """The app's readiness route (ui/server.py): its HTTP status and its JSON (the warm-up's progress)."""
    import json
    import urllib.error

    try:
        with urllib.request.urlopen(f"{url}/ready", timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")
