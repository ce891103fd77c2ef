"""Differential: values rows that helm-docs' sort finds equal, against the real helm-docs v1.14.2.

helm-docs sorts the values table with Go's unstable ``sort.Slice`` (pattern-defeating quicksort).
In ``file`` order the rows under a YAML alias of an anchored mapping or sequence have the anchored
node's line and column, so they tie with the anchor's rows; in ``alphanum`` order duplicate keys
tie. Each chart below has more than 12 rows (below that Go's insertion sort keeps ties in input
order) and is compared byte for byte in both orders; then Go's permutation of two recorded inputs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from diff_tools import ours_readme, real_readmes, tool

from gsvendor.generate.golang.sort_slice import sort_slice, sort_slice_by_key

# the smallest values.yaml hypothesis found where a stable sort differed (test_generated.py)
FOUND = """\
---
tag: &a0
  global:  # <b> value
    # @schema required: true
    # -- (tpl/object) second value second `code` -- \n\
    true: {x: {}}
  true:
    - ''
    - 0
z:
  null:
    - z: 0

      global: 0  # @schema type: string

    - 42
  'single key': &a1 0

  key with space: *a0
  camelCase: 1_000

items: &a2 007
camelCase: 0
"""
VALUES = {
    "found": FOUND,
    "several": "base: &b\n  one: 1\n  two: [x, y]\n  three: {four: 4}\n"
    + "".join(f"copy{i}: *b\n" for i in range(6))
    + "last: 0\n",
    "sequence": "list: &l\n  - a\n  - {b: 1, c: 2}\n  - [d, e]\n"
    + "".join(f"k{i}:\n  inner: *l\n  after: {i}\n" for i in range(5)),
    # over 50 rows: Tukey's ninther and the partial insertion sort
    "large": "anchor: &a\n"
    + "".join(f"  f{i}: {i}\n" for i in range(10))
    + "".join(f"n{i}: *a\nplain{i}: {i}\n" for i in range(8)),
    "nested": "inner: &i {p: 1, q: [1, 2]}\nouter: &o\n  x: *i\n  y: 2\nm1: *o\nm2: {deep: *o}\nm3: *i\n",
    # sorted again within the section
    "sections": "base: &b\n  # -- one\n  # @section -- S\n  one: 1\n  two: 2\n"
    + "".join(f"c{i}: *b\n" for i in range(7)),
    "duplicates": "".join(f"{k}: {i}\n" for i, k in enumerate("dbdadcddbdeddaddfd")),
}


@pytest.mark.parametrize("order", ["file", "alphanum"])
def test_tied_rows_are_ordered_as_helm_docs_sort_leaves_them(tmp_path: Path, order: str) -> None:
    tool("helm-docs")
    for name, values in VALUES.items():
        folder = tmp_path / "helm" / name
        folder.mkdir(parents=True)
        (folder / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
        (folder / "values.yaml").write_text(values)
    real_readmes(tmp_path / "helm", order)

    for name in VALUES:
        folder = tmp_path / "helm" / name
        assert ours_readme(folder, order) == (folder / "README.md").read_bytes(), name
    found = (tmp_path / "helm" / "found" / "README.md").read_text()
    rows = [line.split(" | ")[0] for line in found.splitlines() if line.startswith("| ")]
    if order == "file":  # the alias's row before the anchor's, which comes first in the file
        assert rows[1:3] == ['| z."key with space".global.true.x', "| tag.global.true.x"]
    duplicates = (tmp_path / "helm" / "duplicates" / "README.md").read_text()
    d_values = [line.split("`")[1] for line in duplicates.splitlines() if line.startswith("| d |")]
    assert sorted(d_values, key=int) == ["0", "2", "4", "6", "7", "9", "11", "12", "14", "15", "17"]
    if order == "alphanum":  # the equal keys d leave the sort out of their file order
        assert d_values != sorted(d_values, key=int)


# Go 1.26.8 sort.Slice(xs, less by key) on these keys: where each original index ends up
GO_PERMUTATIONS = [
    (
        [(i * 37 + 11) % 5 for i in range(64)],
        "37 22 2 32 57 42 17 7 52 27 12 47 62 30 50 15 40 55 20 5 10 0 45 60 35 25 33 43 28 63 3 58 23 53 8 48 13 18 "
        "38 36 31 41 1 61 16 26 46 11 56 6 21 51 34 9 54 49 19 4 44 59 24 39 14 29",
    ),
    (
        [i % 13 for i in range(80)],
        "78 13 26 52 65 0 39 27 79 40 14 53 66 1 41 15 28 54 2 67 68 29 55 16 42 3 69 56 43 4 30 17 31 18 57 44 70 5 "
        "32 45 71 6 19 58 20 72 46 59 33 7 8 73 34 21 47 60 74 22 35 48 9 61 36 10 49 23 62 75 24 11 37 63 76 50 12 "
        "25 38 51 77 64",
    ),
]


@pytest.mark.parametrize(("keys", "expected"), GO_PERMUTATIONS)
def test_sort_slice_leaves_equal_elements_where_go_does(keys: list[int], expected: str) -> None:
    by_less = list(enumerate(keys))
    sort_slice(by_less, lambda a, b: a[1] < b[1])
    by_key = list(enumerate(keys))
    sort_slice_by_key(by_key, lambda item: item[1])

    assert " ".join(str(index) for index, _ in by_less) == expected
    assert by_key == by_less
