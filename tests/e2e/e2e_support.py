"""Browser tests: the real `streamlit run dashboard.py` server, driven by Debian's Chromium.

One server and one browser for the whole session, a fresh browser context per test.
Waiting follows Streamlit's own e2e suite (e2e_playwright/conftest.py): the root element
`[data-testid="stApp"]` carries `data-test-connection-state` and `data-test-script-state`,
and a run is over when the script state reads `notRunning`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
SKIP_REASON = "Chromium not installed at /usr/bin/chromium: e2e tests skipped"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-quic",
    "--disable-sync",
]
# FFNLAB_APP_ROOT points the suite at another checkout (used while developing the suite itself).
APP_ROOT = Path(os.environ.get("FFNLAB_APP_ROOT", Path(__file__).resolve().parents[2]))
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"

RUN_TIMEOUT_MS = 60_000  # a cold torch import on a busy 2-core machine takes several seconds
VIEWPORT_WIDTH, VIEWPORT_HEIGHT = 1280, 1000
MAX_VIEWPORT_HEIGHT = 12_000
CHART = '[data-testid="stVegaLiteChart"]'
EXCEPTION = '[data-testid="stException"]'
MAIN = '[data-testid="stMain"]'
PRESENTER = f'{MAIN} [class*="st-key-room_presenter"]'  # the class room's panel on the instructor's page
HANGUL = re.compile(r"[\uac00-\ud7a3]")
PHONE_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
               "Chrome/126.0.0.0 Mobile Safari/537.36")
PHONE_VIEWPORT = {"width": 390, "height": 844}

# The server process and the page list are the benchmarks' own (bench/stclient.py), one copy for both.
sys.path.insert(0, str(APP_ROOT / "bench"))
from stclient import AppPage, Server, discover_pages, free_port  # noqa: E402,F401


# Reference pages hold text, not an experiment: no control, chart or table to test.
REFERENCE = frozenset({"glossary"})


def demo_pages() -> list[AppPage]:
    """The experiments' pages: every page but home and the reference pages."""
    return [p for p in discover_pages()[1:] if p.name not in REFERENCE]


def page_ids(pages: list[AppPage]) -> list[str]:
    return [p.name for p in pages]


# --- waiting and reading ----------------------------------------------------------------


def wait_for_app_run(page, initial_wait_ms: int = 250) -> None:
    """Wait until Streamlit reports the script finished, as its own e2e suite does.

    Its three conditions (connected, script state `notRunning`, no loading skeletons) are
    polled inside the page in one call: on a loaded machine each round trip to the browser
    costs a good fraction of a second.
    """
    page.wait_for_timeout(initial_wait_ms)  # a rerun triggered just now has not started yet
    page.wait_for_function(
        """() => {
            const app = document.querySelector('[data-testid="stApp"]');
            return app !== null
                && app.getAttribute('data-test-connection-state') === 'CONNECTED'
                && app.getAttribute('data-test-script-state') === 'notRunning'
                && document.querySelectorAll('[data-testid="stSkeleton"]').length === 0;
        }""",
        timeout=RUN_TIMEOUT_MS,
        polling=100,
    )


def open_app(page, server: Server, app_page: AppPage, query: str = "") -> None:
    """Go to a page of the app (query without the leading '?') and wait for its run to end."""
    open_link(page, f"{server.url}/{app_page.url_path}" + (f"?{query}" if query else ""))


def open_link(page, url: str) -> None:
    """Open a link as a student would (a fresh page load) and wait for the run to end."""
    response = page.goto(url, wait_until="domcontentloaded")
    assert response is not None and response.status == 200, f"GET {url} -> {response and response.status}"
    wait_for_app_run(page)


def class_context(browser, *, phone: bool = False, lang: str = "en-US", height: int = 720,
                  timeout_ms: int = 90_000, **options):
    """A browser context for one person in a class: a 1280×`height` screen, or a touch phone at 390×844."""
    screen = dict(viewport=PHONE_VIEWPORT, is_mobile=True, has_touch=True, user_agent=PHONE_AGENT) if phone \
        else dict(viewport={"width": 1280, "height": height})
    ctx = browser.new_context(locale=lang, **options, **screen)
    ctx.set_default_timeout(timeout_ms)
    return ctx


@contextlib.contextmanager
def class_server(folder: Path, **env: str) -> Iterator[Server]:
    """A server of its own whose class store is a database in `folder` (the default one would be written into the
    checkout), with `env` added to its environment; stopped on leaving."""
    srv = Server(APP_ROOT, env={"FFNLAB_CLASS_DB": f"sqlite:///{folder / 'class.sqlite'}", **env})
    try:
        srv.wait_healthy()
        yield srv
    finally:
        srv.stop()


def choose(page, select, option: str) -> None:
    """Pick `option` in the select box `select`, scrolled into view first: a click that scrolls the sidebar to reach
    the box opens its list, and the scroll closes it again. Should a list still close, it is opened again (at most 10 s)."""
    wanted = page.get_by_role("option", name=option)
    select.scroll_into_view_if_needed()
    for _ in range(10):
        select.locator("input").click()
        try:
            wanted.wait_for(timeout=1_000)
            break
        except Exception:
            page.keyboard.press("Escape")
    wanted.click()


def open_class_box(page, t) -> None:
    """Open the sidebar's class box (folded outside a class: Start a class, join by code) and wait for its run."""
    page.locator('[data-testid="stSidebar"] summary', has_text=t("room.section_closed")).click()
    wait_for_app_run(page)


def press_presenter_button(teacher, name: str) -> None:
    """Press one of the presenter's buttons and wait for the run. The panel reruns on its own every 2 s, and while a
    rerun that moves its buttons draws, the button from before can stand beside the new one for a moment: it is
    pressed once alone."""
    button = teacher.locator(PRESENTER).first.get_by_role("button", name=name, exact=True)
    for _ in range(100):
        if button.count() == 1:
            try:
                button.click(timeout=5_000)
                break
            except Exception as e:  # a redraw began between the count and the press
                if "strict mode violation" not in str(e):
                    raise
        teacher.wait_for_timeout(100)
    else:
        raise AssertionError(f"the presenter's {name!r} button was never alone on screen for 10 s")
    wait_for_app_run(teacher)


def fit_viewport(page, width: int = VIEWPORT_WIDTH) -> None:
    """Make the window as tall as the page, so every element is in view.

    Streamlit scrolls inside `stMain`, not the document, and mounts a chart only once it is
    scrolled into view: with the whole page in view every chart draws, and a full-page
    screenshot holds the whole page.
    """
    for _ in range(3):  # charts that mount can make the page taller
        height = page.evaluate(
            "() => Math.ceil(document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight ?? 0)"
        )
        height = min(max(height, VIEWPORT_HEIGHT), MAX_VIEWPORT_HEIGHT)
        if height <= page.viewport_size["height"]:
            return
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(200)


def chart_states(page) -> list[bool]:
    """For each chart in the main area: has vega-embed drawn it (a canvas or an svg)?"""
    return page.evaluate(
        """([chart, drawn]) => [...document.querySelectorAll(chart)].map(c => c.querySelector(drawn) !== null)""",
        [f"{MAIN} {CHART}", "canvas, svg.marks"],
    )


def wait_for_charts(page, timeout_ms: int = 30_000) -> int:
    """Fit the window to the page, wait until every chart has drawn; return how many there are.

    Gives up early when the browser has reported a JavaScript error and a chart is still blank
    after a few seconds: vega-embed does not retry a spec it failed on.
    """
    fit_viewport(page)
    deadline = time.monotonic() + timeout_ms / 1000
    blank_since_error = None
    while True:
        states = chart_states(page)
        if states and all(states):
            return len(states)
        errors = getattr(page, "errors", [])
        now = time.monotonic()
        if errors and blank_since_error is None:
            blank_since_error = now
        if now > deadline or (blank_since_error is not None and now - blank_since_error > 5):
            break
        page.wait_for_timeout(250)
    pytest.fail(
        f"{page.url}: {states.count(False)} of {len(states)} charts never drew (drawn: {states}); "
        f"browser errors: {errors[:3]}",
        pytrace=False,
    )


def assert_no_exception(page, server: Server) -> None:
    texts = page.locator(EXCEPTION).all_inner_texts()
    if texts:
        text = "\n---\n".join(texts)
        pytest.fail(f"exception element on {page.url}:\n{text}\nserver log tail:\n{server.log()[-3000:]}", pytrace=False)


def cut_metric_values(page) -> list[str]:
    """The metric values the page shows cut off (ellipsis): the number a lesson is about, unreadable."""
    return page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
            .filter(el => [el, ...el.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1))
            .map(el => el.innerText)"""
    )


# An element is cut when its text needs more room than its box gives it: wider (an ellipsis or a
# clipped line) or, for a line-clamped title, taller.
CUT = """(selector) => [...document.querySelectorAll(selector)]
    .filter(el => el.offsetParent !== null)
    .filter(el => [el, ...el.querySelectorAll('*')].some(
        e => e.scrollWidth > e.clientWidth + 1 || (getComputedStyle(e).overflow !== 'visible'
                                                   && e.scrollHeight > e.clientHeight + 1)))
    .map(el => el.innerText.trim())"""
METRIC_LABELS = '[data-testid="stMetricLabel"]'
WIDGET_LABELS = '[data-testid="stMain"] [data-testid="stWidgetLabel"]'


def cut_texts(page, selector: str) -> list[str]:
    """The texts matched by `selector` that are shown cut off."""
    return page.evaluate(CUT, selector)


def main_title(page) -> str:
    heading = page.locator(f"{MAIN} h1").first
    heading.wait_for(state="visible")
    return heading.inner_text().strip()


def snapshot(page) -> dict:
    """What a control change should move: the metric values, and a digest of each chart's drawing."""
    return page.evaluate(
        """([main, chart]) => {
            const digest = text => {  // FNV-1a over the drawing's data URL or svg markup
                let h = 0x811c9dc5;
                for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193); }
                return (h >>> 0).toString(16);
            };
            return {
                metrics: [...document.querySelectorAll(main + ' [data-testid="stMetricValue"]')].map(m => m.innerText),
                charts: [...document.querySelectorAll(main + ' ' + chart)].map(c => {
                    const canvas = c.querySelector('canvas');
                    if (canvas) return digest(canvas.toDataURL());
                    const svg = c.querySelector('svg.marks');
                    return svg ? digest(svg.outerHTML) : null;
                }),
            };
        }""",
        [MAIN, CHART],
    )


def wait_for_change(page, before: dict, timeout_ms: int = 4000) -> bool:
    """Did the metrics or a chart change? (Vega redraws just after the run ends: poll a little.)"""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        if snapshot(page) != before:
            return True
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(300)


def screenshot(page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    fit_viewport(page)
    page.screenshot(path=str(path), full_page=True)
    return path


# --- controls ---------------------------------------------------------------------------

SLIDER_INPUT = '[data-testid="stSlider"] input[type="range"]'
SELECTBOX_INPUT = '[data-testid="stSelectbox"] input[role="combobox"]'
SWITCH_OR_BOX = '[data-testid="stCheckbox"] input[type="checkbox"]'
NUMBER_INPUT = '[data-testid="stNumberInputField"]'


def control_values(page) -> dict:
    """The values every control of the main area shows, in page order (sidebar left out)."""
    main = page.locator(MAIN)
    return {
        "sliders": [el.input_value() for el in main.locator(SLIDER_INPUT).all()],
        "selectboxes": [el.input_value() for el in main.locator(SELECTBOX_INPUT).all()],
        "switches": [el.is_checked() for el in main.locator(SWITCH_OR_BOX).all()],
        "numbers": [el.input_value() for el in main.locator(NUMBER_INPUT).all()],
    }


def move_slider(page, index: int = 0) -> tuple[str, str]:
    """Move a slider one step with the keyboard (back one step if it sits at its maximum)."""
    thumb = page.locator(MAIN).locator(SLIDER_INPUT).nth(index)
    before = thumb.input_value()
    thumb.focus()
    thumb.press("ArrowRight")
    wait_for_app_run(page)
    if thumb.input_value() == before:
        thumb.focus()
        thumb.press("ArrowLeft")
        wait_for_app_run(page)
    return before, thumb.input_value()


# A Python or Streamlit stack trace in the server's log.
STACK = re.compile(r"Traceback \(most recent call last\)|Stack \(most recent call last\)")

# Every keyed control of the main area and the value it shows, by key (Streamlit marks a keyed
# element's container with the class st-key-<key>).
READ_CONTROLS = """(main) => {
    const values = {};
    for (const box of document.querySelector(main).querySelectorAll('[class*="st-key-"]')) {
        const key = [...box.classList].find(c => c.startsWith('st-key-')).slice(7);
        const one = sel => box.querySelector(sel);
        let value;
        if (one('[data-testid="stSlider"]')) {
            value = [...box.querySelectorAll('input[type="range"]')].map(t => t.getAttribute('aria-valuetext') || t.value).join('–');
        } else if (one('[data-testid="stSelectbox"]')) {
            value = one('input[role="combobox"]').value;
        } else if (one('[data-testid="stRadio"]')) {
            const on = one('input:checked');
            value = on ? on.closest('label').innerText.trim() : null;
        } else if (one('[data-testid="stCheckbox"]')) {
            value = one('input[type="checkbox"]').checked;
        } else if (one('[data-testid="stNumberInputField"]')) {
            value = one('[data-testid="stNumberInputField"]').value;
        } else if (one('[data-testid="stMultiSelect"]')) {
            value = [...box.querySelectorAll('[data-tag] [title]')].map(t => t.getAttribute('title')).join(',');
        } else if (one('[data-testid="stTextInput"]')) {
            value = one('[data-testid="stTextInput"] input').value;
        } else {
            continue;  // buttons, downloads
        }
        values[key] = value;
    }
    return values;
}"""


def _declared() -> dict[str, set[str]]:
    """Each page's declared control keys (ui/registry/catalog.py) by its path in the address."""
    from ui.registry import catalog, query

    return {query.url_path(e.path): {c.key for c in catalog.CONTROLS[e.section]} for e in catalog.PAGES}


def read_controls(page) -> dict[str, object]:
    """The page's declared controls and the values they show: what its link carries. Other keyed
    widgets (a question's guess box) are no part of the view."""
    declared = _declared().get(urllib.parse.urlsplit(page.url).path.strip("/").split("/")[-1], set())
    return {k: v for k, v in page.evaluate(READ_CONTROLS, MAIN).items() if k in declared}


# --- the balancer path (deploy/run.sh: replicas behind nginx) -------------------------------------------

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
RUN_SH = APP_ROOT / "deploy" / "run.sh"


def free_ports(n: int) -> list[int]:
    """n distinct free ports of 127.0.0.1."""
    ports: list[int] = []
    while len(ports) < n:
        if (port := free_port()) not in ports:
            ports.append(port)
    return ports


def active_sessions(port: int) -> int:
    """A replica's own count of open sessions, read on its port (not through nginx)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/metrics", timeout=10) as r:
        text = r.read().decode()
    line = next(line for line in text.splitlines() if line.startswith("active_sessions"))
    return int(float(line.split()[-1]))


def settle(ports: list[int], want: list[int], timeout_s: float = 20.0) -> list[int]:
    """Wait until the replicas count `want` sessions (or the time is up); their counts."""
    deadline = time.monotonic() + timeout_s
    while (counts := [active_sessions(p) for p in ports]) != want and time.monotonic() < deadline:
        time.sleep(0.2)
    return counts


@contextlib.contextmanager
def balancer(run_dir: Path, **env: str) -> Iterator[tuple[str, list[int]]]:
    """Two replicas and nginx started by deploy/run.sh on free ports: (nginx's address, the replicas' ports).

    Stopped after, and every process it started is checked to be gone.
    """
    listen, *replicas = free_ports(3)
    # Sessions per replica are what these tests read; the warm-up's own sessions (tests/ui/test_warmup.py) would count.
    env = {**os.environ, "FFNLAB_WARMUP": "0", "FFNLAB_RUN_DIR": str(run_dir),
           "FFNLAB_PORTS": " ".join(map(str, replicas)), "FFNLAB_LISTEN": f"127.0.0.1:{listen}",
           "FFNLAB_PYTHON": sys.executable, "FFNLAB_NGINX": NGINX or "nginx", **env}
    pids: dict[str, int] = {}
    try:
        started = subprocess.run(["bash", str(RUN_SH), "start"], env=env, capture_output=True, text=True, timeout=240)
        pids = {p.name: int(p.read_text()) for p in run_dir.glob("*.pid")}
        assert started.returncode == 0, f"run.sh start failed:\n{started.stdout}\n{started.stderr}"
        assert len(pids) == 3, pids  # two replicas and nginx, each with its pid file
        yield f"http://127.0.0.1:{listen}", replicas
    finally:
        stopped = subprocess.run(["bash", str(RUN_SH), "stop"], env=env, capture_output=True, text=True, timeout=120)
        assert stopped.returncode == 0, stopped.stderr
        alive = [name for name, pid in pids.items() if Path(f"/proc/{pid}").exists()
                 and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()]
        assert not alive, f"still running after run.sh stop: {alive}"


def start_linked_lesson(teacher, t, steps: int) -> str:
    """On a page opened from a lesson's link: start a class, pick the linked lesson, start it; the join address.

    The lesson bar then says "step 1 of <steps>"."""
    sidebar = teacher.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text(t("lesson.linked")).wait_for()
    open_class_box(teacher, t)
    sidebar.get_by_role("button", name=t("room.start")).click()
    wait_for_app_run(teacher)
    choose(teacher, sidebar.locator(".st-key-room_lesson_pick"), t("lesson.from_link", n=steps))
    wait_for_app_run(teacher)
    sidebar.get_by_role("button", name=t("lesson.start")).click()
    wait_for_app_run(teacher)
    teacher.locator(".st-key-room_lesson_bar").get_by_text(f"step 1 of {steps}").wait_for()
    short = teacher.locator('.st-key-room_join_card [data-testid="stCode"]').inner_text().strip()
    return f"http://{short}"
