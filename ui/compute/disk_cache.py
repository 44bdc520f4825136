"""Computed results on disk, shared by the replicas of one host and kept across restarts; bounded in size.

The pages' results are pickled (ui/compute/result_cache.ResultCache stores them so), and unpickling runs code
named in the data, so a result is read back only from a place this process controls, and only when
it is exactly what a process of this app wrote:

- the folder is created private (0700) and is used only while it is owned by this process's user and
  closed to everyone else; otherwise the cache is off and the server computes as before;
- each entry carries an HMAC-SHA256 of its contents and its name under a key kept in that folder
  (0600, created once by the first process), so a truncated, corrupted or swapped file is refused;
- entries are written to a temporary file and renamed into place, so a reader never sees half of one,
  and two replicas writing the same result at once leave one whole entry;
- entries are kept per code version (a hash of the app's sources and the shipped weights), so a
  result computed by other code is never read back; older versions are evicted first.

`claim(name)` is a lock across processes: a replica computing a result holds it, and another asking for
the same result waits, then reads it from disk instead of computing it again.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import os
import secrets
import stat
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

MAGIC = b"FFNLAB1\n"
_MAC_BYTES = 32
_LOCKS = 64  # lock files: two results share one with chance 1/64, and then only wait for each other
_KEY_FILE = "key"


def code_version(files: Iterable[Path]) -> str:
    """A short hash of these files' names and contents: results of other code live under another version."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(str(path.name).encode() + b"\0")
        with contextlib.suppress(OSError):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _private_folder(path: Path) -> bool:
    """Create `path` private if absent; whether it is a real folder owned by us that no one else may use."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IRWXG | stat.S_IRWXO))


class DiskCache:
    """Pickled results in files under `root/<version>/`, each signed; at most `max_bytes` in all versions."""

    def __init__(self, root: Path, version: str, max_bytes: int) -> None:
        self.root, self.version, self.max_bytes = Path(root), version, max_bytes
        self.refused = 0  # entries refused (corrupted, foreign, of another name): tests and metrics read it
        self._lock = threading.Lock()
        self._written = 0  # bytes written since the last size check
        self.enabled = _private_folder(self.root) and _private_folder(self.root / version) \
            and _private_folder(self.root / "locks")
        self._key = self._load_key() if self.enabled else b""
        self.enabled = self.enabled and bool(self._key)

    def _load_key(self) -> bytes:
        path = self.root / _KEY_FILE
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        except OSError:
            return b""
        else:
            # Written whole before any reader can take it: a reader that finds it short waits below.
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
        for _ in range(100):
            try:
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
                    return b""
                key = path.read_bytes()
            except OSError:
                return b""
            if len(key) == 32:
                return key
            threading.Event().wait(0.01)  # another process is writing it this instant
        return b""

    def _path(self, name: str) -> Path:
        return self.root / self.version / (hashlib.sha256(name.encode()).hexdigest() + ".bin")

    def _mac(self, name: str, blob: bytes) -> bytes:
        return hmac.new(self._key, self.version.encode() + b"\0" + name.encode() + b"\0" + blob, hashlib.sha256).digest()

    def get(self, name: str) -> bytes | None:
        """The blob stored under `name`, if there is one and it is intact; None otherwise."""
        if not self.enabled:
            return None
        path = self._path(name)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        head = len(MAGIC) + _MAC_BYTES
        blob = data[head:]
        if len(data) < head or data[:len(MAGIC)] != MAGIC \
                or not hmac.compare_digest(data[len(MAGIC):head], self._mac(name, blob)):
            with self._lock:
                self.refused += 1
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # used now: the last to be evicted
        return blob

    def put(self, name: str, blob: bytes) -> None:
        """Store `blob` under `name` (atomically), then trim the folder to its bound."""
        if not self.enabled or len(blob) + len(MAGIC) + _MAC_BYTES > self.max_bytes:
            return
        path = self._path(name)
        data = MAGIC + self._mac(name, blob) + blob
        try:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(data)
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:  # a full disk or a folder gone: the result stays in memory only
            return
        with self._lock:
            self._written += len(data)
            check = self._written > self.max_bytes // 16
            if check:
                self._written = 0
        if check:
            self.trim()

    def _entries(self) -> list[tuple[float, int, Path]]:
        out = []
        for folder in self.root.iterdir():
            if folder.name in ("locks", _KEY_FILE) or not folder.is_dir() or folder.is_symlink():
                continue
            for entry in folder.iterdir():
                with contextlib.suppress(OSError):
                    info = entry.lstat()
                    if stat.S_ISREG(info.st_mode):
                        # Another version's entries go first: this code never reads them.
                        age = info.st_mtime if folder.name == self.version else float("-inf")
                        out.append((age, info.st_size, entry))
        return out

    def size(self) -> int:
        """Bytes in the folder's entries now, every version."""
        return sum(size for _, size, _ in self._entries()) if self.enabled else 0

    def trim(self) -> None:
        """Remove the least recently used entries (by modification time, refreshed on every read) until the
        folder holds at most max_bytes."""
        if not self.enabled:
            return
        entries = sorted(self._entries(), key=lambda e: e[0])
        total = sum(size for _, size, _ in entries)
        for _, size, path in entries:
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                path.unlink()  # another replica may have removed it first: it is gone either way
            total -= size

    @contextlib.contextmanager
    def claim(self, name: str) -> Iterator[None]:
        """Hold `name`'s lock across processes (and threads) while computing it."""
        if not self.enabled:
            yield
            return
        index = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big") % _LOCKS
        try:
            fd = os.open(self.root / "locks" / f"{index:02d}", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            yield
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # flock is per open file: two threads of one process exclude each other too
            yield
        finally:
            os.close(fd)  # closing releases the lock
