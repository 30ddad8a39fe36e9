"""The head of the catalog: the newest remembered rows of the folders a
picker last showed, read for its first frame without the whole cache."""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from session_tui.model.catalog.cache import Catalog
from session_tui.model.catalog.head import HEAD_ROWS, head_path
from tests.builders.tree import chain

FILES = HEAD_ROWS + 30
START = 1_700_000_000


def written_folder(root: Path, files: int, folders: int = 7) -> str:
    """``files`` sessions spread over ``folders`` folders, the i-th last written i seconds after START."""
    for i in range(files):
        path = root / f"p{i % folders}" / f"run-{i:04d}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(chain(1))
        os.utime(path, (START + i, START + i))
    return str(root)


def remembered_folder(tmp_path, cache: str) -> str:
    """FILES sessions (``written_folder``), each read into the cache and saved."""
    root = written_folder(tmp_path / "s", FILES)
    catalog = Catalog(cache)
    for info in catalog.listing([str(root)]):
        catalog.read(info.path)
    catalog.save([str(root)])
    return str(root)


def test_the_head_is_the_newest_rows_of_the_folders_and_how_many_there_are(tmp_path):
    cache = str(tmp_path / "cache")
    root = remembered_folder(tmp_path, cache)
    head = Catalog(cache).head([root])
    assert head is not None
    rows, count = head
    assert count == FILES
    newest = sorted(Catalog(cache).remembered([root]), key=lambda info: -info.last_activity)[:HEAD_ROWS]
    assert rows == newest  # the same rows, in the order the picker sorts them by default
    assert os.path.basename(rows[0].path) == f"run-{FILES - 1:04d}.jsonl"


def test_no_head_for_other_folders_nor_from_a_damaged_file(tmp_path):
    cache = str(tmp_path / "cache")
    root = remembered_folder(tmp_path, cache)
    assert Catalog(cache).head([os.path.join(root, "p1")]) is None  # kept for the folders shown, only
    assert Catalog(cache).head([root, str(tmp_path)]) is None
    path = head_path(os.path.join(cache, "catalog.json"))
    data = orjson.loads(open(path, "rb").read())
    rows = data["heads"][0][2]
    rows[next(iter(rows))][0] = "not a size"  # one row out of shape: the whole cache is read instead
    with open(path, "wb") as f:
        f.write(orjson.dumps(data))
    assert Catalog(cache).head([root]) is None
    with open(path, "wb") as f:
        f.write(b'{"version": 1, "heads": [[')
    assert Catalog(cache).head([root]) is None
    assert len(Catalog(cache).remembered([root])) == FILES  # the cache itself is untouched


def test_the_heads_of_a_few_sets_of_folders_are_kept(tmp_path):
    cache = str(tmp_path / "cache")
    root = remembered_folder(tmp_path, cache)
    for sub in ("p1", "p2"):  # a picker on each folder, after a file there changed (else it writes nothing)
        folder = os.path.join(root, sub)
        changed = os.path.join(folder, sorted(os.listdir(folder))[0])
        with open(changed, "ab") as f:
            f.write(b"\n")
        catalog = Catalog(cache)
        for info in catalog.listing([folder]):
            if not info.known:
                catalog.read(info.path)
        catalog.save([folder])
    for folder, count in ((root, FILES), (os.path.join(root, "p1"), 33), (os.path.join(root, "p2"), 33)):
        head = Catalog(cache).head([folder])
        assert head is not None and head[1] == count, folder
