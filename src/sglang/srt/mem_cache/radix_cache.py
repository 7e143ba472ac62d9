"""``RadixCache``: RadixAttention's prefix cache, a radix tree of token ids over KV pages.

Each edge of the tree holds a run of token ids (a whole number of pages)
and the KV pages that hold them, so the path from the root to a node
spells a token prefix whose keys and values are computed already. A new
request takes the longest such prefix of its prompt (:meth:`match_prefix`)
and computes only the rest; the scheduler always leaves it at least one
token to compute, so its first output token has logits.

Pages have one owner at a time: the allocator (free), the tree, or one
request (its own pages past its shared prefix). A request locks the node
its shared prefix ends at (:meth:`lock`: a reference count on the node and
every ancestor), so locked pages are never evicted; the others are
*evictable* and :meth:`evict` frees them least recently used first, leaf
by leaf. After a prefill step the scheduler shares what a request
computed (:meth:`cache_unfinished_req`); when it finishes, is aborted or is
retracted, everything it computed goes into the tree
(:meth:`cache_finished_req`) and its lock is released.

Recency is a logical clock (one tick per lock or insert), not wall time:
every tensor-parallel rank runs the same scheduler on the same inputs, so
every rank's tree takes the same decisions.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterator, Sequence

from sglang.sdk.srt_runtime import PagedAllocator
from sglang.srt.mem_cache.base_prefix_cache import KVAccountingError, MatchResult
from sglang.srt.mem_cache.sequence import SequenceState

__all__ = ["RadixCache", "TreeNode"]


class TreeNode:
    """One edge of the tree: its token ids, their pages and its lock count.

    Attributes:
        key: The token ids of this edge (``len(pages) * page_size`` of them).
        pages: The pages holding them, in order.
        children: Child nodes by the token ids of their first page.
        parent: The node above (``None`` for the root).
        lock_ref: How many running requests use this node's pages.
        last_access: The logical time it was last used.
        number: Its creation order (breaks recency ties the same way everywhere).
    """

    __slots__ = ("children", "key", "last_access", "lock_ref", "number", "pages", "parent")

    def __init__(
        self, key: tuple[int, ...], pages: list[int], parent: TreeNode | None, number: int
    ) -> None:
        self.key = key
        self.pages = pages
        self.parent = parent
        self.children: dict[tuple[int, ...], TreeNode] = {}
        self.lock_ref = 0
        self.last_access = 0
        self.number = number

    def __repr__(self) -> str:
        return f"<TreeNode {len(self.pages)} pages, lock {self.lock_ref}>"


def _common_length(a: Sequence[int], b: Sequence[int]) -> int:
    """The length of the common prefix of *a* and *b* (slice comparisons run in C)."""
    high = min(len(a), len(b))
    if a[:high] == b[:high]:
        return high
    low = 0
    while low < high:  # a[:low] == b[:low] and a[:high + 1] != b[:high + 1]
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


class RadixCache:
    """The radix prefix cache over a paged KV pool (on by default).

    Args:
        allocator: The page allocator: evicted pages go back to it.
    """

    def __init__(self, allocator: PagedAllocator) -> None:
        self.allocator = allocator
        self.page_size = allocator.page_size
        self._numbers = itertools.count()
        self._clock = 0
        self._evictable = 0
        self._protected = 0
        self.root = self._new_root()

    def _new_root(self) -> TreeNode:
        root = TreeNode((), [], None, next(self._numbers))
        root.lock_ref = 1  # never evicted
        return root

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    @property
    def evictable_pages(self) -> int:
        """Pages only the tree holds: no running request uses them."""
        return self._evictable

    @property
    def protected_pages(self) -> int:
        """Tree pages that running requests use (locked)."""
        return self._protected

    # -- lookup and insertion ------------------------------------------------------

    def _split(self, node: TreeNode, pages: int) -> TreeNode:
        """Cut *node* after its first *pages* pages; return the new upper part."""
        size = pages * self.page_size
        parent = node.parent
        assert parent is not None
        assert 0 < pages < len(node.pages)
        upper = TreeNode(node.key[:size], node.pages[:pages], parent, next(self._numbers))
        upper.lock_ref, upper.last_access = node.lock_ref, node.last_access
        parent.children[node.key[: self.page_size]] = upper
        node.key, node.pages, node.parent = node.key[size:], node.pages[pages:], upper
        upper.children[node.key[: self.page_size]] = node
        return upper

    def _walk(self, key: tuple[int, ...]) -> list[TreeNode]:
        """Follow *key* from the root: the nodes whose whole edge it matches, splitting the last."""
        path: list[TreeNode] = []
        node, at = self.root, 0
        size = self.page_size
        while len(key) - at >= size:
            child = node.children.get(key[at : at + size])
            if child is None:
                break
            common = _common_length(child.key, key[at : at + len(child.key)]) // size
            if common < len(child.pages):
                child = self._split(child, common)
            at += len(child.key)
            node = child
            path.append(node)
        return path

    def match_prefix(self, token_ids: list[int]) -> MatchResult:
        """The longest prefix of *token_ids*, in whole pages, whose KV the tree holds.

        Nothing is locked or touched: :meth:`lock` the returned node to keep the pages.
        """
        path = self._walk(tuple(token_ids))
        pages = tuple(page for node in path for page in node.pages)
        return MatchResult(pages, path[-1] if path else self.root, len(pages) * self.page_size)

    def _insert(self, key: tuple[int, ...], pages: Sequence[int]) -> tuple[int, TreeNode]:
        """Add *key* (whole pages) held by *pages*; return (pages already cached, end node)."""
        now = self._tick()
        path = self._walk(key)
        for node in path:
            node.last_access = now
        node = path[-1] if path else self.root
        have = sum(len(n.pages) for n in path)
        at = have * self.page_size
        if at < len(key):
            leaf = TreeNode(key[at:], list(pages[have:]), node, next(self._numbers))
            leaf.last_access = now
            node.children[key[at : at + self.page_size]] = leaf
            self._evictable += len(leaf.pages)
            return have, leaf
        return have, node

    # -- locks and eviction ---------------------------------------------------------

    def _path(self, node: object | None) -> Iterator[TreeNode]:
        assert node is None or isinstance(node, TreeNode)
        while node is not None and node is not self.root:
            yield node
            node = node.parent

    def lock(self, node: object | None) -> None:
        """Protect *node*'s pages and its ancestors' from eviction (one more user)."""
        now = self._tick()
        for item in self._path(node):
            if item.lock_ref == 0:
                self._evictable -= len(item.pages)
                self._protected += len(item.pages)
            item.lock_ref += 1
            item.last_access = now

    def unlock(self, node: object | None) -> None:
        """Release one :meth:`lock` of *node*."""
        for item in self._path(node):
            if item.lock_ref <= 0:
                raise KVAccountingError(f"{item!r} unlocked more often than locked")
            item.lock_ref -= 1
            if item.lock_ref == 0:
                self._protected -= len(item.pages)
                self._evictable += len(item.pages)

    def _nodes(self) -> Iterator[TreeNode]:
        stack = [self.root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(node.children.values())

    def evict(self, num_pages: int) -> int:
        """Free unlocked leaves, least recently used first, until *num_pages* are freed.

        Returns the number of pages freed (fewer only when nothing more is evictable).
        """
        heap = [
            (n.last_access, n.number, n) for n in self._nodes() if not n.children and not n.lock_ref
        ]
        heapq.heapify(heap)
        freed = 0
        while freed < num_pages and heap:
            _, _, leaf = heapq.heappop(heap)
            parent = leaf.parent
            assert parent is not None
            self.allocator.free(leaf.pages)
            freed += len(leaf.pages)
            self._evictable -= len(leaf.pages)
            del parent.children[leaf.key[: self.page_size]]
            if not parent.children and not parent.lock_ref:
                heapq.heappush(heap, (parent.last_access, parent.number, parent))
        return freed

    # -- requests -------------------------------------------------------------------

    def _share(self, seq: SequenceState) -> TreeNode:
        """Insert *seq*'s computed whole pages; swap its duplicates for the tree's pages."""
        whole = seq.cached_len // self.page_size
        key = tuple(seq.token_ids[: whole * self.page_size])
        existing, node = self._insert(key, seq.pages[:whole])
        if existing > seq.shared_pages:  # another request computed these first: use its pages
            ours = seq.pages[seq.shared_pages : existing]
            theirs = self.match_prefix(list(key)).pages[seq.shared_pages : existing]
            self.allocator.free(ours)
            seq.pages[seq.shared_pages : existing] = theirs
        return node

    def cache_unfinished_req(self, seq: SequenceState) -> None:
        """Share what *seq* has computed so far and keep it locked for *seq*."""
        if seq.cached_len // self.page_size <= seq.shared_pages:
            return
        node = self._share(seq)
        self.lock(node)
        self.unlock(seq.cache_node)
        seq.cache_node, seq.shared_pages = node, seq.cached_len // self.page_size

    def cache_finished_req(self, seq: SequenceState) -> None:
        """Keep everything *seq* computed in the tree (unlocked); free its other pages."""
        whole = seq.cached_len // self.page_size
        if whole:
            self._share(seq)
        self.allocator.free(seq.pages[max(whole, seq.shared_pages) :])
        self.unlock(seq.cache_node)
        seq.pages, seq.cached_len, seq.shared_pages, seq.cache_node = [], 0, 0, None

    # -- maintenance ----------------------------------------------------------------

    def reset(self) -> None:
        """Free every page of the tree (``flush_cache``); no request may hold any.

        Raises:
            KVAccountingError: Running requests still lock pages of the tree.
        """
        if self._protected:
            raise KVAccountingError(f"{self._protected} cached pages are locked by requests")
        for node in self._nodes():
            if node is not self.root:
                self.allocator.free(node.pages)
        self.root = self._new_root()
        self._evictable = 0

    def check(self) -> None:
        """Recount the tree and compare with the running totals.

        Raises:
            KVAccountingError: The counts differ, an edge is not whole pages,
                a page is in the tree twice, or a child is locked more than its parent.
        """
        seen: set[int] = set()
        evictable = protected = 0
        for node in self._nodes():
            if node is self.root:
                continue
            assert node.parent is not None
            if len(node.key) != len(node.pages) * self.page_size or not node.pages:
                raise KVAccountingError(f"{node!r} holds {len(node.key)} tokens")
            if node.lock_ref > node.parent.lock_ref and node.parent is not self.root:
                raise KVAccountingError(f"{node!r} is locked more than its parent")
            if seen.intersection(node.pages):
                raise KVAccountingError(f"pages {sorted(seen & set(node.pages))} are cached twice")
            seen.update(node.pages)
            if node.lock_ref:
                protected += len(node.pages)
            else:
                evictable += len(node.pages)
        if (evictable, protected) != (self._evictable, self._protected):
            raise KVAccountingError(
                f"the tree holds {evictable} evictable and {protected} locked pages, "
                f"but counts {self._evictable} and {self._protected}"
            )

    def pages(self) -> set[int]:
        """Every page the tree holds (for accounting checks)."""
        return {page for node in self._nodes() for page in node.pages}
