"""Input → answer in Chromium, page by page, against the framework's floor.

    python bench/browser.py [--repeat 3] [--warmup]

The floor is a bare Streamlit page with one slider and one Altair chart, served beside the app in
the same run. On each page the first slider of the main area is moved one step with the keyboard:
the first move is a new setting (computed), moving back and forth again is cached (warm). A page
without a slider but with a chart (home) switches the language in the sidebar instead, which
redraws the whole page. The time
is measured inside the page, from the key press to the script reporting `notRunning` after it ran,
plus two animation frames (the charts drawn). Printed: the median warm and new-setting times, each
as a multiple of the floor's, with the load average. Wall time: the machine's load counts in it.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from stclient import ROOT, FloorServer, Server, discover_pages, load_average  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
SLIDER = '[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]'
WATCH = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    window.__ran = false; window.__done = null; window.__t0 = performance.now();
    const obs = new MutationObserver(() => {
        const s = app.getAttribute('data-test-script-state');
        if (s === 'running') window.__ran = true;
        else if (window.__ran && s === 'notRunning') {
            obs.disconnect();
            requestAnimationFrame(() => requestAnimationFrame(() => { window.__done = performance.now(); }));
        }
    });
    obs.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
IDLE = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    return app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
        && app.getAttribute('data-test-script-state') === 'notRunning'
        && document.querySelectorAll('[data-testid="stSkeleton"]').length === 0;
}"""


def _move(page, key: str) -> float | None:  # noqa: ANN001
    """Press `key` on the first slider; ms from the press to the run's end (None if no run followed)."""
    thumb = page.locator(SLIDER).first
    thumb.focus()
    page.evaluate(WATCH)
    thumb.press(key)
    try:
        page.wait_for_function("() => window.__done !== null", timeout=120_000, polling=50)
    except Exception:
        return None
    return page.evaluate("() => window.__done - window.__t0")


LANGUAGE = '[data-testid="stSidebar"] [data-testid="stSelectbox"]'
LANG_NAMES = ("한국어", "English")


def _switch(page, name: str) -> float | None:  # noqa: ANN001
    """Choose the language `name` in the sidebar; ms from the choice to the run's end (None if no run followed)."""
    page.locator(LANGUAGE).first.click()
    option = page.get_by_role("option", name=name)
    option.wait_for(timeout=10_000)
    page.evaluate(WATCH)
    option.click()
    try:
        page.wait_for_function("() => window.__done !== null", timeout=120_000, polling=50)
    except Exception:
        return None
    return page.evaluate("() => window.__done - window.__t0")


def _languages(page, repeat: int) -> dict:  # noqa: ANN001
    """A page without a slider (home): the language switched back and forth, the whole page redrawn."""
    first = _switch(page, LANG_NAMES[0])
    warm = [t for i in range(repeat) for name in (LANG_NAMES[1], LANG_NAMES[0])
            if (t := _switch(page, name)) is not None]
    return {"new": first, "warm": statistics.median(warm) if warm else None, "note": "language switch"}


def measure(browser, url: str, page_path: str, repeat: int) -> dict:  # noqa: ANN001
    context = browser.new_context(viewport={"width": 1280, "height": 1000})
    page = context.new_page()
    try:
        page.goto(f"{url}/{page_path}?lang=en", wait_until="domcontentloaded")
        page.wait_for_function(IDLE, timeout=120_000, polling=100)
        page.wait_for_timeout(300)
        if page.locator(SLIDER).count() == 0:
            if page.locator(LANGUAGE).count() and page.locator('[data-testid="stMain"] [data-testid="stVegaLiteChart"]').count():
                return _languages(page, repeat)
            return {"new": None, "warm": None, "note": "no slider"}
        first = _move(page, "ArrowRight")
        key_back, key_fwd = "ArrowLeft", "ArrowRight"
        if first is None:  # at its maximum: step the other way
            first, key_back, key_fwd = _move(page, "ArrowLeft"), "ArrowRight", "ArrowLeft"
        warm = []
        for i in range(repeat):
            # Back to the default, then to the value just computed: both cached now.
            for key in (key_back, key_fwd):
                t = _move(page, key)
                if t is not None and i + (key == key_fwd) > 0:
                    warm.append(t)
        return {"new": first, "warm": statistics.median(warm) if warm else None, "note": ""}
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--warmup", action="store_true", help="let the app's server warm itself first")
    ap.add_argument("--pages", nargs="*", help="router names (default: every page)")
    args = ap.parse_args(argv)
    app, floor = Server(ROOT, warmup=args.warmup), FloorServer()
    try:
        app.wait_healthy()
        floor.wait_healthy()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                base = measure(browser, floor.url, "", args.repeat)
                print(f"input → answer in Chromium; {load_average()}")
                print(f"{'floor (1 slider, 1 chart)':<24} warm {base['warm']:6.0f} ms   new {base['new']:6.0f} ms")
                for page in discover_pages(ROOT):
                    if args.pages and page.name not in args.pages:
                        continue
                    r = measure(browser, app.url, page.url_path, args.repeat)
                    if r["warm"] is None:
                        print(f"{page.name:<24} {r['note'] or 'no run after the move'}")
                        continue
                    ratio_w = r["warm"] / base["warm"]
                    ratio_n = r["new"] / base["warm"] if r["new"] else float("nan")
                    print(f"{page.name:<24} warm {r['warm']:6.0f} ms ×{ratio_w:4.1f}   new {r['new']:6.0f} ms ×{ratio_n:4.1f}"
                          f"   {'ok' if ratio_w <= 2 else 'over 2× floor'}{'  (' + r['note'] + ')' if r['note'] else ''}")
                again = measure(browser, floor.url, "", args.repeat)
                print(f"{'floor again':<24} warm {again['warm']:6.0f} ms   new {again['new']:6.0f} ms; {load_average()}")
            finally:
                browser.close()
    finally:
        app.stop()
        floor.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
