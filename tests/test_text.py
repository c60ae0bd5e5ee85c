from pathlib import Path

from trulymem.text import fts_document, fts_match, name_key, phrases, query_terms, relation_key
from trulymem.text.tokenize import tokens


def test_name_key_folds_case_width_and_whitespace() -> None:
    assert name_key("User") == name_key("user") == name_key("ｕｓｅｒ") == name_key("  USER ") == "user"
    assert name_key("猫娘") == name_key(" 猫娘 ")
    assert name_key("New   York") == "new york"
    assert name_key("Ｔａｓｋ＿１") == "task_1"
    assert name_key("\ufeffuser") == name_key("user\u200b") == name_key("us\u200der") == "user"
    assert name_key("\u200b") == ""


def test_relation_key_joins_words() -> None:
    assert relation_key("speaking style") == relation_key("Speaking-Style") == relation_key("speaking_style")


def test_chinese_runs_become_bigrams() -> None:
    assert tokens("我喜欢猫娘") == ["我喜", "喜欢", "欢猫", "猫娘"]
    assert tokens("猫") == ["猫"]
    assert tokens("Rock music, 成语接龙!") == ["rock", "music", "成语", "语接", "接龙"]


def test_query_terms_split_on_commas_and_spaces_in_both_scripts() -> None:
    assert query_terms("AI,persona, role，语气、口癖") == ["AI", "persona", "role", "语气", "口癖"]
    assert query_terms("  ") == []
    assert query_terms("TaskNode working_memory  task_chain") == ["TaskNode", "working_memory", "task_chain"]
    assert query_terms("New York, 猫娘") == ["New York", "猫娘"]


def test_fts_match_quotes_and_phrases() -> None:
    assert fts_match(phrases(["猫娘"])) == '"猫娘"'
    assert fts_match(phrases(["为所欲为"])) == '"为所 所欲 欲为"'
    assert fts_match(phrases(['a"b'])) == '"a b"'
    assert fts_match(phrases(["猫"])) == '("猫" OR "猫"*)'
    assert fts_match(phrases(["!!!"])) is None
    assert phrases(["Rock", "rock", "ROCK music"]) == [("rock",), ("rock", "music")]
    assert fts_document("Task_1 成语") == "task 1 成语"


def test_fts_document_line_by_line_equals_whole_text() -> None:
    # The document is tokenised one (cached) line at a time: it must equal the whole text's tokens.
    samples = [
        ("ep-1", "Rosa: We hiked up the ridge\nTomás: Nice! 我们去爬山了\nabout: hobby hobbies"),
        ("", "\n\nfirst\r\nsecond line\n\n猫\n娘 cat\n"),
        ("Ｆｕｌｌ width\nname", "e\u0301t\u00e9\ncafe\u0301 ok"),
    ]
    for parts in samples:
        whole = " ".join(t for part in parts if part for t in tokens(part))
        assert fts_document(*parts) == whole
        assert fts_document(*parts) == whole  # again, from the line cache
    assert fts_document("", "\n \n") == ""


def test_the_c_stemmer_stems_as_the_pure_python_one() -> None:
    """PyStemmer (a dependency for speed) must not change what is indexed: the same stems as
    snowballstemmer's own Python stemmer, over the words of this project's own text."""
    import re

    import Stemmer  # type: ignore[import-not-found,unused-ignore]
    from snowballstemmer.english_stemmer import EnglishStemmer  # type: ignore[import-untyped,unused-ignore]

    root = Path(__file__).resolve().parents[1]
    text = " ".join(p.read_text(encoding="utf-8") for p in [root / "README.md", *root.glob("docs/*.md")])
    words = sorted({w.lower() for w in re.findall(r"[A-Za-z]{2,}", text)})
    assert len(words) > 2000
    assert Stemmer.Stemmer("english").stemWords(words) == EnglishStemmer().stemWords(words)
