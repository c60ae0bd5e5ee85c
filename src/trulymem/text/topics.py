"""The topics a text is about, by a small hand-made lexicon (issue 16): write-time
enrichment without a model, and the topics a question asks about.

A question often names the kind of thing ("hobbies", "married", "pets") while the
turns that answer it name instances ("I went kayaking", "my husband", "our dog
Max"): no word is shared, so full text cannot find them. At ingest each episode gets
the topics its words belong to (a small hand-made lexicon, English), linked as
``(episode) -about-> (topic: hobbies)`` with the episode as provenance and written
into the episode's indexed context, so "hobbies" finds the kayaking turn by full
text and a topic node leads to every turn about it across sessions.
"""

from __future__ import annotations

from functools import lru_cache

from trulymem.text.stem import stems

# topic -> (the words a question uses for it, instance words a turn uses). Matched on stems.
_LEXICON: dict[str, tuple[str, str]] = {
    "hobbies": ("hobby hobbies activity activities pastime interest fun leisure partake enjoy",
                "painting paint drawing pottery kayaking kayak hiking hike camping camp running run swimming "
                "swim surfing surf skiing ski cycling biking bike yoga dance dancing climbing fishing gardening "
                "garden knitting baking cooking photography guitar piano violin sing singing reading read "
                "writing write chess gaming game volunteering volunteer skateboarding marathon workout "
                "sketching sculpture crafts"),
    "family": ("family relatives relationship married marriage spouse partner",
               "husband wife kids kid children child son daughter mom mother dad father parents brother sister "
               "grandma grandmother grandpa grandfather family wedding married engaged fiance fiancee"),
    "pets": ("pet pets animal animals",
             "dog dogs puppy cat cats kitten horse horses bird parrot hamster rabbit bunny fish turtle guinea "
             "snake"),
    "work": ("work job career profession occupation employment business company",
             "job work boss office coworker colleague hired promotion internship career company startup "
             "business client project salary interview manager shift"),
    "health": ("health wellbeing medical illness condition",
               "doctor hospital sick illness injury injured surgery therapy therapist medication diagnosis "
               "pain recovery health anxiety depression stress"),
    "travel": ("travel trip trips vacation visit visited places countries abroad",
               "trip travel traveled travelled vacation flight flew beach mountains abroad road tour visited "
               "visit city country island roadtrip"),
    "music": ("music musical instrument instruments band concert",
              "guitar piano violin drums song songs band concert album singer music sing singing "
              "playlist"),
    "art": ("art artwork creative creativity",
            "painting paint drawing draw sketch sculpture pottery art artist gallery exhibition museum mural "
            "canvas portrait"),
    "sports": ("sport sports exercise fitness athletic team",
               "football soccer basketball baseball tennis volleyball hockey golf running marathon race gym "
               "workout team match tournament league"),
    "education": ("education school study studies degree learning class classes",
                  "school college university class classes course degree study studying exam teacher "
                  "student graduate graduated lecture"),
    "food": ("food cooking cuisine meal meals dish dishes",
             "cook cooking bake baking recipe dinner lunch breakfast restaurant pizza pasta cake cookies "
             "dish meal"),
    "books": ("book books reading literature novel novels read",
              "book books novel novels author reading read library chapter poetry poem"),
    "community": ("community activism cause causes charity volunteer volunteering events",
                  "volunteer volunteering charity fundraiser donate donation community support group "
                  "activist activism parade rally nonprofit shelter mentor mentoring"),
}

TOPICS: tuple[str, ...] = tuple(_LEXICON)


@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """stem -> topics for instance words and for the words a question uses."""
    instance: dict[str, set[str]] = {}
    asked: dict[str, set[str]] = {}
    for topic, (query_words, words) in _LEXICON.items():
        for s in stems(words):
            instance.setdefault(s, set()).add(topic)
        for s in stems(query_words):
            asked.setdefault(s, set()).add(topic)
    return instance, asked


@lru_cache(maxsize=64)
def instance_stems(topic: str) -> frozenset[str]:
    """The stems of a topic's instance words."""
    return frozenset(stems(_LEXICON[topic][1])) if topic in _LEXICON else frozenset()


def topics_of(text: str, *, at_least: int = 1) -> list[str]:
    """The lexicon's topics ``text`` is about: those with ``at_least`` of their instance
    words in it, in the lexicon's order."""
    return topics_in(stems(text), at_least=at_least)


def topics_in(text_stems: set[str], *, at_least: int = 1) -> list[str]:
    """``topics_of`` for a text's already computed ``stems``."""
    instance, _ = _index()
    counts: dict[str, int] = {}
    for s in text_stems:
        for topic in instance.get(s, ()):
            counts[topic] = counts.get(topic, 0) + 1
    return [t for t in _LEXICON if counts.get(t, 0) >= at_least]


def asked_topics(question: str) -> list[str]:
    """The topics a question asks about by their own words ("hobbies", "pets", "career")."""
    _, asked = _index()
    found = {t for s in stems(question) for t in asked.get(s, ())}
    return [t for t in _LEXICON if t in found]


def topic_node(topic: str) -> str:
    """The name of the node that links the episodes about ``topic``."""
    return f"topic {topic}"


def topic_line(topics: list[str]) -> str:
    """The line added to an episode's indexed context: the words questions use for its topics."""
    if not topics:
        return ""
    return "about: " + " ".join(_LEXICON[t][0] for t in topics)
