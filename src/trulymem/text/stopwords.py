"""Function words that carry no topic: dropped from search terms (never from names)."""

from __future__ import annotations

ENGLISH = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just let me more most my myself no nor not now of off
on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves also ever yet may might must shall
get got would've could've i'm i've you're he's she's it's we're they're don't didn't doesn't isn't wasn't
""".split())
CHINESE = frozenset("的 了 是 在 和 与 或 吗 呢 吧 啊 我 你 他 她 它 们 这 那 什么 怎么 哪 谁 有 没有 就 都 也 还 很".split())
STOPWORDS = ENGLISH | CHINESE


def content_terms(terms: list[str]) -> list[str]:
    """``terms`` without stopwords — unless that would leave nothing to search for."""
    kept = [t for t in terms if t.casefold().strip("?!.,:;'\"") not in STOPWORDS]
    return kept or terms
