"""Results on disk (ui/compute/disk_cache.py): read back only whole, signed and ours; bounded; shared by processes."""
from __future__ import annotations

import multiprocessing
import os
import pickle
import stat
import sys
import time
import types
from pathlib import Path

import pytest

from ui.compute import cache as compute
from ui.compute import disk_cache

MB = 2**20


def cache(root: Path, version: str = "v1", max_bytes: int = 4 * MB) -> disk_cache.DiskCache:
    made = disk_cache.DiskCache(root, version, max_bytes)
    assert made.enabled
    return made


def test_a_result_comes_back_byte_for_byte_and_only_under_its_own_name(tmp_path):
    c = cache(tmp_path)
    blob = pickle.dumps({"rmse": [0.62, 0.23], "seed": 7})
    c.put("sweep.run\0(7,)", blob)
    assert c.get("sweep.run\0(7,)") == blob
    assert c.get("sweep.run\0(8,)") is None
    assert stat.S_IMODE(os.stat(tmp_path).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(tmp_path / "key").st_mode) == 0o600


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "magic"])
def test_a_damaged_entry_is_refused_and_removed(tmp_path, damage):
    c = cache(tmp_path)
    c.put("k", pickle.dumps(list(range(1000))))
    path = c._path("k")
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[-10] ^= 0x01
    elif damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = bytearray()
    else:
        data[0:3] = b"XXX"
    path.write_bytes(bytes(data))
    assert c.get("k") is None
    assert c.refused == 1 and not path.exists()


def test_an_entry_moved_to_another_name_or_signed_with_another_key_is_refused(tmp_path):
    c = cache(tmp_path)
    c.put("a", b"result of a")
    c.put("b", b"result of b")
    c._path("a").replace(c._path("b"))  # a's file under b's name
    assert c.get("b") is None
    other = cache(tmp_path / "elsewhere")
    other.put("a", b"forged")
    c._path("a").write_bytes(other._path("a").read_bytes())  # a whole entry, signed with another key
    assert c.get("a") is None and c.refused == 2


def test_another_code_version_never_reads_an_entry_and_its_entries_go_first(tmp_path):
    old = cache(tmp_path, "old", max_bytes=40_000)
    old.put("k", b"x" * 10_000)
    new = cache(tmp_path, "new", max_bytes=40_000)
    assert new.get("k") is None
    for i in range(3):
        new.put(f"n{i}", b"y" * 10_000)
    new.trim()
    assert not old._path("k").exists()  # evicted before any of this version's entries
    assert all(new.get(f"n{i}") is not None for i in range(3))


def test_the_folder_stays_under_its_bound_and_the_recently_read_stay(tmp_path):
    c = cache(tmp_path, max_bytes=200_000)
    for i in range(40):
        c.put(f"k{i}", os.urandom(10_000))
        time.sleep(0.002)  # distinct modification times
        if i >= 5:
            assert c.get("k0") is not None  # read all along: the most recently used
        c.trim()
        assert c.size() <= 200_000
    assert c.get("k0") is not None
    assert c.get("k1") is None  # the oldest unread went first


def test_a_folder_others_may_use_or_a_symlink_turns_the_cache_off(tmp_path):
    open_folder = tmp_path / "open"
    open_folder.mkdir(mode=0o777)
    open_folder.chmod(0o777)
    assert not disk_cache.DiskCache(open_folder, "v", MB).enabled
    target = tmp_path / "target"
    target.mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(target)
    assert not disk_cache.DiskCache(tmp_path / "link", "v", MB).enabled
    key_open = tmp_path / "keyopen"
    cache(key_open)
    (key_open / "key").chmod(0o644)
    assert not disk_cache.DiskCache(key_open, "v", MB).enabled


@pytest.mark.skipif(os.getuid() != 0, reason="changing a folder's owner needs root")
def test_a_folder_owned_by_another_user_turns_the_cache_off(tmp_path):
    folder = tmp_path / "theirs"
    folder.mkdir(mode=0o700)
    os.chown(folder, 65534, 65534)
    assert not disk_cache.DiskCache(folder, "v", MB).enabled


def _writer(root: str, worker: int, rounds: int) -> None:
    c = disk_cache.DiskCache(Path(root), "v", 300_000)
    for i in range(rounds):
        c.put("shared", pickle.dumps(("shared", b"s" * 5_000)))  # every process writes the same result
        c.put(f"own-{worker}-{i}", pickle.dumps((worker, i, b"o" * 5_000)))
        got = c.get("shared")
        assert got is None or pickle.loads(got) == ("shared", b"s" * 5_000)


@pytest.fixture
def spawn(monkeypatch):
    """A spawning process context whose children do not run this process's main script first.

    A spawned child runs the parent's `__main__` from its file before the target; after an AppTest of a
    function in the same worker, `__main__` is that test's generated script, which cannot run alone. The
    targets here are this module's functions, imported by the child by name: a bare `__main__` will do.
    """
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    return multiprocessing.get_context("spawn")


def test_processes_writing_at_once_leave_only_whole_entries_and_the_bound_holds(tmp_path, spawn):
    ctx = spawn
    workers = [ctx.Process(target=_writer, args=(str(tmp_path), w, 40)) for w in range(4)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(120)
        assert p.exitcode == 0
    c = cache(tmp_path, max_bytes=300_000)
    c.trim()
    assert c.size() <= 300_000
    names = [f"own-{w}-{i}" for w in range(4) for i in range(40)] + ["shared"]
    kept = {n: c.get(n) for n in names}
    assert c.refused == 0  # no half-written or mixed entry anywhere
    assert all(pickle.loads(b)[0] in ("shared", 0, 1, 2, 3) for b in kept.values() if b is not None)
    assert not list((tmp_path / "v").glob(".tmp-*"))


def _claimer(root: str, log: str, hold_s: float, started) -> None:  # noqa: ANN001
    c = disk_cache.DiskCache(Path(root), "v", MB)
    with c.claim("the same view"):
        started.set()
        with open(log, "a") as f:
            f.write(f"in {os.getpid()}\n")
        time.sleep(hold_s)
        with open(log, "a") as f:
            f.write(f"out {os.getpid()}\n")


def test_a_claim_keeps_a_second_process_from_computing_the_same_view_at_once(tmp_path, spawn):
    cache(tmp_path)
    log = tmp_path / "log.txt"
    ctx = spawn
    first_in = ctx.Event()
    first = ctx.Process(target=_claimer, args=(str(tmp_path), str(log), 1.0, first_in))
    first.start()
    assert first_in.wait(60)
    second_in = ctx.Event()  # kept here: a child unpickles it after the parent's reference
    second = ctx.Process(target=_claimer, args=(str(tmp_path), str(log), 0.0, second_in))
    second.start()
    for p in (first, second):
        p.join(60)
        assert p.exitcode == 0
    lines = log.read_text().split()
    assert lines[0::2] == ["in", "out", "in", "out"]  # never two inside at once
    assert lines[1] == lines[3] == str(first.pid)


def test_a_second_replica_reads_the_result_the_first_computed(tmp_path, monkeypatch):
    monkeypatch.setattr(compute, "DISK", cache(tmp_path))
    calls = []

    @compute.cached(max_entries=4)
    def experiment(d: int) -> dict:
        calls.append(d)
        return {"d": d, "rows": list(range(d))}

    compute.clear()
    first = experiment(5)
    compute.clear()  # a replica that has not computed it (its memory is empty), or one restarted
    second = experiment(5)
    assert calls == [5] and first == second == {"d": 5, "rows": [0, 1, 2, 3, 4]}
    compute.clear()
