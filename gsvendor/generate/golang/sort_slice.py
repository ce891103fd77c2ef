"""Go's ``sort.Slice`` (``pdqsort_func`` in sort/zsortfunc.go since Go 1.19; checked against Go 1.26.8's
``sort.Slice`` on tied and adversarial inputs, heapsort fallback included): an unstable sort.

Elements that compare equal end in the order pattern-defeating quicksort leaves them, which
depends on the input order and length; a stable sort (Python's :func:`sorted`) can order them
differently. helm-docs v1.14.2 (any Go from 1.19 on) sorts the values table with ``sort.Slice``,
so rows with equal keys (the children of a YAML alias share their anchor's line and column) come
out in this order. Written from the behaviour of Go's source; same comparisons, same swaps.
"""

from __future__ import annotations

from collections.abc import Callable, MutableSequence
from typing import Any, TypeVar

T = TypeVar("T")

_MAX_INSERTION = 12  # pdqsort_func: shorter ranges get insertion sort
_SHORTEST_NINTHER = 50  # choosePivot_func: Tukey's ninther from this length on
_MAX_SWAPS = 4 * 3
_UNKNOWN, _INCREASING, _DECREASING = 0, 1, 2  # sortedHint
_MASK64 = (1 << 64) - 1


def sort_slice(items: MutableSequence[T], less: Callable[[T, T], bool]) -> None:
    """Sort ``items`` in place as Go's ``sort.Slice(items, func(i, j int) bool {...})`` does.

    ``less(x, y)``: the Go callback on the elements (not their indices), a strict weak order.
    The result is the exact permutation Go produces, ties included.
    """

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]

    _LessSwap(lambda i, j: less(items[i], items[j]), swap).pdqsort(0, len(items), len(items).bit_length())


def sort_slice_by_key(items: MutableSequence[T], key: Callable[[T], Any]) -> None:
    """:func:`sort_slice` with ``less(x, y) = key(x) < key(y)``, each key computed once (faster)."""
    keys = [key(item) for item in items]

    def swap(i: int, j: int) -> None:
        items[i], items[j] = items[j], items[i]
        keys[i], keys[j] = keys[j], keys[i]

    _LessSwap(lambda i, j: keys[i] < keys[j], swap).pdqsort(0, len(items), len(items).bit_length())


class _LessSwap:
    """Go's ``lessSwap`` (a less and a swap on indices) and the pdqsort_func family as methods."""

    def __init__(self, less: Callable[[int, int], bool], swap: Callable[[int, int], None]) -> None:
        self.less = less
        self.swap = swap

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, hi = a, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(0, i, first)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced = was_partitioned = True
        while True:
            length = b - a
            if length <= _MAX_INSERTION:
                self.insertion_sort(a, b)
                return
            if limit == 0:  # too many bad pivots
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING
            if was_balanced and was_partitioned and hint == _INCREASING and self.partial_insertion_sort(a, b):
                return
            if a > 0 and not self.less(a - 1, pivot):  # many equal elements: put them first
                a = self.partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = self.partition(a, b, pivot)
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                was_balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i, j = i + 1, j - 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i, j = i + 1, j - 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        max_steps, shortest_shifting = 5, 50
        i = a + 1
        for _ in range(max_steps):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < shortest_shifting:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:  # shift the smaller one left (Go's loop runs down to index 1, not a + 1)
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:  # shift the greater one right
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        random = length  # xorshift seeded with the length
        modulus = 1 << length.bit_length()
        start = a + (length // 4) * 2
        for index in range(start - 1, start + 2):
            random ^= (random << 13) & _MASK64
            random ^= random >> 7
            random ^= (random << 17) & _MASK64
            other = random & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(index, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        length = b - a
        swaps = [0]
        i, j, k = a + length // 4, a + length // 4 * 2, a + length // 4 * 3
        if length >= 8:
            if length >= _SHORTEST_NINTHER:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        if swaps[0] == _MAX_SWAPS:
            return j, _DECREASING
        return j, _UNKNOWN

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i, j = i + 1, j - 1
