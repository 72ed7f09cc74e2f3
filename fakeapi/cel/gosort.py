"""Go's ``sort.Slice`` (``sort/zsortfunc.go``, unchanged since Go 1.19: pattern-defeating
quicksort, an insertion sort for 12 elements or fewer, a heapsort past too many bad pivots),
ported step for step: it is not stable, and cel-go's ``sortBy`` (``ext/lists.go``) sorts with it,
so the order it leaves elements of equal keys in is kube's. Its only randomness is a xorshift
seeded with the length: the order is a function of the keys alone."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

_MAX_INSERTION = 12
_SHORTEST_NINTHER = 50
_MAX_SWAPS = 4 * 3
_MAX_STEPS, _SHORTEST_SHIFTING = 5, 50
_UINT64 = 2**64 - 1
_INCREASING, _DECREASING, _UNKNOWN = "increasing", "decreasing", "unknown"


def slice_order(keys: Sequence[Any], less: Callable[[Any, Any], bool]) -> list[int]:
    """The indexes of ``keys`` in the order ``sort.Slice`` leaves them in, sorting by ``less``."""
    sorter = _Sorter(keys, less)
    length = len(keys)
    sorter.pdqsort(0, length, length.bit_length())
    return sorter.order


class _Sorter:
    """The slice being sorted (``order``: indexes into ``keys``) and Go's ``lessSwap`` on it."""

    def __init__(self, keys: Sequence[Any], less: Callable[[Any, Any], bool]) -> None:
        self.keys = keys
        self.key_less = less
        self.order = list(range(len(keys)))

    def less(self, i: int, j: int) -> bool:
        return self.key_less(self.keys[self.order[i]], self.keys[self.order[j]])

    def swap(self, i: int, j: int) -> None:
        self.order[i], self.order[j] = self.order[j], self.order[i]

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
            if limit == 0:
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
            if a > 0 and not self.less(a - 1, pivot):
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
        i = a + 1
        for _step in range(_MAX_STEPS):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < _SHORTEST_SHIFTING:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:  # the smaller one shifted left
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:  # the greater one shifted right
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length < 8:
            return
        random = length
        modulus = 1 << length.bit_length()
        for index in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
            random ^= (random << 13) & _UINT64
            random ^= random >> 7
            random ^= (random << 17) & _UINT64
            other = random & (modulus - 1)
            if other >= length:
                other -= length
            self.swap(index, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, str]:
        length = b - a
        swaps = [0]
        i, j, k = a + length // 4, a + length // 4 * 2, a + length // 4 * 3
        if length >= 8:
            if length >= _SHORTEST_NINTHER:  # Tukey's ninther
                i, j, k = (self.median(index - 1, index, index + 1, swaps) for index in (i, j, k))
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        return j, _DECREASING if swaps[0] == _MAX_SWAPS else _UNKNOWN

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
