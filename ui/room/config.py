"""Which database the class room uses: a URL for `st.connection("class", type="sql", url=...)`.

In this order: the FFNLAB_CLASS_DB environment variable; the repo's `.streamlit/secrets.toml`
`[connections.class] url = "..."`; else an SQLite file `class.sqlite` in FFNLAB_DATA_DIR (default
`.data/` in the repo, created when missing). The URL is always passed to st.connection explicitly,
so it does not matter which folder the server was started from. Nothing here imports streamlit.
"""
from __future__ import annotations

import os
import tomllib
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

ROOT = Path(__file__).resolve().parents[2]
ENV_URL = "FFNLAB_CLASS_DB"
ENV_PER_ADDRESS = "FFNLAB_CLASS_PER_ADDRESS"
PER_ADDRESS = 100  # a class of 100 behind one school address joins within a minute
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


def url(secrets_path: Path = SECRETS) -> str:
    """The class room's database URL: the environment, else secrets.toml, else the SQLite file."""
    return os.environ.get(ENV_URL, "").strip() or secrets_url(secrets_path) or sqlite_url()


def describe(database_url: str) -> str:
    """The URL with its password hidden."""
    try:
        return make_url(database_url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(not a database URL)"


def class_behind_one_address() -> int:
    """The largest class one address brings to a room: FFNLAB_CLASS_PER_ADDRESS (10-1000), else 100."""
    try:
        n = int(os.environ.get(ENV_PER_ADDRESS, "").strip() or PER_ADDRESS)
    except ValueError:
        return PER_ADDRESS
    return n if 10 <= n <= 1000 else PER_ADDRESS
