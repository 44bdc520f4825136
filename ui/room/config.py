"""Which database the class room uses: a URL for `st.connection("class", type="sql", url=...)`.

In this order: the FFNLAB_CLASS_DB environment variable; `.streamlit/secrets.toml`'s
`[connections.class] url = "..."` (st.connection reads that section itself, so `url()` then returns
None and the page passes no url); else an SQLite file `class.sqlite` in FFNLAB_DATA_DIR (default
`.data/` in the repo), created when missing. Nothing here imports streamlit.

    url = config.url()
    conn = st.connection("class", type="sql", url=url) if url else st.connection("class", type="sql")
    store = Store(conn.engine)
"""
from __future__ import annotations

import os
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV_URL = "FFNLAB_CLASS_DB"
ENV_DIR = "FFNLAB_DATA_DIR"
SECRETS = ROOT / ".streamlit" / "secrets.toml"


def data_dir() -> Path:
    """The folder of the default SQLite file (made when missing)."""
    folder = Path(os.environ.get(ENV_DIR) or ROOT / ".data")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def secrets_url(path: Path = SECRETS) -> str | None:
    """`[connections.class] url` from secrets.toml, or None (missing file, section or a broken file)."""
    try:
        with path.open("rb") as f:
            found = tomllib.load(f).get("connections", {}).get("class", {}).get("url")
    except (OSError, tomllib.TOMLDecodeError, AttributeError):
        return None
    return found if isinstance(found, str) and found else None


def sqlite_url() -> str:
    """The default: an SQLite file in the data folder (the store turns WAL on)."""
    return f"sqlite:///{(data_dir() / 'class.sqlite').resolve()}"


def url(secrets_path: Path = SECRETS) -> str | None:
    """The URL to pass to st.connection, or None when secrets.toml names it (st.connection reads it)."""
    from_env = os.environ.get(ENV_URL, "").strip()
    if from_env:
        return from_env
    if secrets_url(secrets_path):
        return None
    return sqlite_url()


def resolved_url(secrets_path: Path = SECRETS) -> str:
    """The URL the class room will use, wherever it comes from (for scripts and benchmarks)."""
    return url(secrets_path) or secrets_url(secrets_path) or sqlite_url()
