"""Progress bars that cost nothing when they are off.

tqdm (with ``tqdm.auto``'s asyncio) takes 30-50 ms to import, a tenth of a
small command-line run; it is imported only when a bar is shown.
"""

__all__ = ["progress_bar"]


def progress_bar(enabled, iterable=None, **options):
    """``tqdm.auto.tqdm(iterable, **options)`` when `enabled`, else a bar that shows nothing.

    Either way the result iterates over `iterable`, works as a context
    manager and takes ``update()`` and ``set_postfix()``.

    Examples
    --------
    >>> with progress_bar(False, desc="mcl") as bar:
    ...     bar.update()
    >>> list(progress_bar(False, [1, 2]))
    [1, 2]
    """
    if enabled:
        from tqdm.auto import tqdm

        return tqdm(iterable, **options)
    return _Hidden(iterable)


class _Hidden:
    def __init__(self, iterable):
        self._iterable = iterable

    def __iter__(self):
        return iter(self._iterable)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        pass

    def set_postfix(self, **values):
        pass
