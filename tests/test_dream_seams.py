"""What a dream without a model may do with pairs that look alike (issue 26): merge only
what is provably one fact, put the rest in front of a person, flag only real
disagreements, and leave two facts alone. Cases in tests/fixtures/dream_seams.json."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from trulymem import TrulyMem
from trulymem.dream import analyze, dream_embedder, load_retention
from trulymem.dream.amounts import value_sequence
from trulymem.dream.gate import provably_same
from trulymem.dream.glossary import attributes
from trulymem.dream.kinship import kin_differs
from trulymem.dream.numerals import zh_number
from trulymem.dream.romanize import same_place
from trulymem.dream.stated import value_clash
from trulymem.dream.values import special_values
from trulymem.memories import MEMORY_RELATION, iter_memories

CASES = json.loads((Path(__file__).parent / "fixtures" / "dream_seams.json").read_text(encoding="utf-8"))
PAIRS = [(want, a, b) for want in ("merge", "review", "conflict", "none") for a, b in CASES[want]]


def _fact(text: str) -> dict[str, str]:
    """A memory to commit: "subject|relation|object" is a triplet, anything else a sentence."""
    parts = text.split("|")
    subject, relation, obj = parts if len(parts) == 3 else ("user", MEMORY_RELATION, text)
    return {"subject": subject, "relation": relation, "object": obj, "type": "pref"}


def outcome(db: Path, a: str, b: str) -> str:
    with TrulyMem(db, user_id="u", app_id="p") as mem:
        mem.commit([_fact(t) for t in (a, b)], supersede=False)
        items = list(iter_memories(mem.store, mem.scope))
        got = analyze(items, load_retention(), datetime.now(UTC), embedder=dream_embedder("auto", mem.embedder))
    found = [k for k, hit in (("merge", got.merges), ("review", got.reviews), ("conflict", got.conflicts)) if hit]
    assert len(found) <= 1, found  # a pair is one thing or another, never two
    return found[0] if found else "none"


@pytest.mark.parametrize(("want", "a", "b"), PAIRS, ids=[f"{w}:{a}|{b}"[:60] for w, a, b in PAIRS])
def test_what_a_dream_without_a_model_does_with_a_pair(tmp_path: Path, want: str, a: str, b: str) -> None:
    assert outcome(tmp_path / "d.db", a, b) == want


NEVER = [(a, b) for a, b in CASES["never_same"]]


@pytest.mark.parametrize(("a", "b"), NEVER, ids=[f"{a}|{b}"[:60] for a, b in NEVER])
def test_words_alike_meaning_apart_is_never_merged(tmp_path: Path, a: str, b: str) -> None:
    assert not provably_same(a, b) and not provably_same(b, a)
    assert outcome(tmp_path / "d.db", a, b) != "merge"


@pytest.mark.parametrize(("a", "b"), [
    ("02:00 UTC", "2am UTC"), ("14:30", "2:30 pm"), ("下午两点半", "2:30 PM"), ("March 5th, 2024", "2024-03-05"),
    ("5 March", "3月5日"), ("two weeks", "14 days"), ("2 GB", "2048 MB"), ("1.5 hours", "90 minutes"),
    ("weekly", "每周"), ("every other week", "biweekly"), ("noon", "12:00"), ("三天", "72 hours"),
    ("once a week", "weekly"), ("三百六十五天", "365 days"),
    ("2,048 MB", "2 GB"), ("1.5 litres", "1500 ml"), ("0.5 kWh", "500 Wh"), ("20,000 square metres", "2 hectares"),
    ("3 公顷", "30000 平方米"), ("140 °F", "60 °C"), ("twice a week", "每周两次"), ("一周两次", "2 times per week"),
    ("两周一次", "every two weeks"), ("一个月一次", "monthly"), ("半个月一次", "twice a month"),
    ("2:30 to 3:50 pm", "14:30–15:50"), ("listens on port 8080", "监听 8080 端口"), ("USD 4,500 a month", "$4500/month"),
    ("200 bar", "20000 kPa"), ("2 feet", "24 inches"), ("1.75 m", "175 厘米"), ("on Saturdays and Sundays", "on weekends"),
    ("Monday through Friday: Mon, Tue, Wed, Thu, Fri", "on weekdays"), ("on the 8th of every month", "每月8号"),
    ("the 21st of each month", "每个月 21 日"), ("rent is due on the 3rd of every month.", "房租每月三号交"),
    ("下午2点45放学", "school is out at 2:45 pm"), ("晚上八点十五开始", "starts at 8:15 pm"), ("早上7点05", "7:05 am"),
    ("二十世纪二十年代", "the 1920s"), ("上世纪 90 年代", "in the '90s"), ("2019 年", "2019年"),
    ("weighs twenty-nine kilos", "weighs 29 kg"), ("thirty-five years", "35 years"), ("a quarter to eight", "7:45"),
    ("quarter past eight pm", "20:15"), ("half past seven", "7:30"), ("ten to nine pm", "8:50 pm"),
    ("every hour and a half", "every 90 minutes"), ("two and a half hours", "2.5 hours"),
    ("7 in the morning", "7 am"), ("11 at night", "23:00"), ("seven-thirty", "7:30"), ("at seven 45 pm", "19:45"),
    ("6.30pm", "18:30"), ("5 o'clock", "05:00"), ("5'10\"", "5 ft 10 in"), ("一米七五", "175 cm"), ("1米8", "180厘米"),
    ("35 years old", "三十五岁"), ("a 3-year-old", "aged 3"), ("3岁半", "3.5 years old"), ("一个半月", "45天"),
    ("a fortnight", "two weeks"), ("three quarters of an hour", "45 minutes"), ("on the fifth of March", "5 March"),
    ("March thirty-first", "31 March"), ("2024.03.05", "2024-03-05"), ("05.03.2024", "5 March 2024"),
    ("零下五摄氏度", "-5 °C"), ("零下5度", "-5°C"), ("周一到周五", "on weekdays"), ("Monday through Friday", "on weekdays"),
    ("每周二、四", "on Tuesdays and Thursdays"), ("周一三五", "Mon, Wed, Fri"), ("每隔一天", "every other day"),
    ("下午两点到四点", "2 to 4 pm"), ("半个钟头", "half an hour"), ("两个礼拜", "two weeks"),
    ("every 2 weeks", "every two weeks"), ("every three days", "每三天"), ("每隔三天", "三天一次"),
    ("每两个月", "every 2 months"), ("Mon-Fri", "on weekdays"), ("works weekdays", "every weekday"),
    ("every weekend", "每个周末"), ("each morning", "every morning"),
    ("3x a week", "three times a week"), ("每月1号和15号", "on the 1st and 15th of each month"),
    ("every 60 days", "每两个月"), ("every 14 days", "every two weeks"), ("每24个月", "every 2 years"),
    ("护照有效期至2028-03-01", "1 March 2028"), ("started on 2024-06-05.", "6月5日, 2024年"), ("25 兆字节", "25 MB"),
    ("twice weekly", "twice a week"), ("every six months", "半年一次"), ("semi-annually", "twice a year"),
    ("every other Tuesday", "隔周二"), ("thrice daily", "每天三次"), ("4 times a year", "quarterly"),
    ("an hour and 15 minutes", "75 minutes"), ("1小时15分钟", "75分钟"), ("2 weeks and 3 days", "17 days"),
    ("1 kg 200 g", "1.2 kg"), ("五月初", "early May"), ("每晚十二点前", "before midnight"), ("晚8点", "8 pm"),
    ("明年3月", "in March"), ("March 2025", "2025年3月"), ("in Q3", "第三季度"),
    ("four years younger than her", "比她小四岁"), ("five days a week", "5 times a week"),
    ("one and a half years", "18 months"), ("365 days", "one year"), ("半年", "6个月")])
def test_one_value_written_two_ways(a: str, b: str) -> None:
    assert special_values(a)[0] == special_values(b)[0] != frozenset()


@pytest.mark.parametrize(("a", "b"), [
    ("3月5日", "5月3日"), ("March 5", "May 3"), ("02:00", "14:00"), ("2am", "2pm"), ("30天", "14天"),
    ("2 GB", "2 MB"), ("daily", "weekly"), ("每周一", "每周"), ("every morning", "every evening"),
    ("every other day", "every other week"), ("once a week", "a week"), ("下午2点45", "下午2点"),
    ("早上7点05", "早上7点"), ("下午三点过五分", "下午三点"), ("1920年代", "1930年代"), ("1953年", "1951年"),
    ("in her 20s", "20 seconds"), ("1920年", "1920 years"), ("差一刻三点", "三点"), ("between 2 and 4 pm", "4 pm")])
def test_two_values_stay_two(a: str, b: str) -> None:
    assert special_values(a)[0] != special_values(b)[0]


@pytest.mark.parametrize(("a", "b"), [
    ("Lena plays the cello", "Lena 在学大提琴"),  # a first word is a name too, when the other says it
    ("AWS Lambda runs the cron jobs", "定时任务跑在 AWS Lambda 上"),
    ("Secrets are kept in Google Secret Manager", "密钥放在 GSM 里"),  # initials of the other's name
])
def test_a_name_both_say_is_not_two_values(a: str, b: str) -> None:
    assert value_clash(a, b) is None


@pytest.mark.parametrize(("a", "b"), [
    ("Alerts go to PagerDuty", "告警现在发到 Opsgenie"), ("The server clock is UTC", "服务器时钟用 UTC+8"),
    ("Lena rents her cello from Hoffmann", "Lena 的大提琴是从 Schmidt 琴行租的"),
])
def test_names_only_one_says_are_two_values(a: str, b: str) -> None:
    assert value_clash(a, b) is not None


def test_numbers_in_words_and_times() -> None:
    assert [zh_number(n) for n in ("十二", "二十", "两百五十", "一万五千", "三零五")] == [12, 20, 250, 15000, 305]
    # a last digit after 百, 千 or 万 counts the next lower unit, as said; after 零 it is a digit
    assert [zh_number(n) for n in ("四千八", "一万二", "一万二千八", "三百五", "两千零八", "一万零五", "三千万")] == \
        [4800, 12000, 12800, 350, 2008, 10005, 30_000_000]
    for idiom in ("千万不要忘记", "万一下雨", "用百度搜"):  # "by all means", "in case", a name: no numbers
        assert special_values(idiom)[1] == idiom
    assert "twenty-first" in special_values("her twenty-first birthday")[1]  # an ordinal stays a word …
    assert special_values("the twenty-first of May")[0] == special_values("May 21")[0]  # … but beside a month, a day
    assert special_values("周一三点开会")[0] == {"w:1", "t:03:00"}  # Monday at three, not 13:00
    assert special_values("晚上12点")[0] == special_values("midnight")[0]
    assert special_values("中午12点")[0] == special_values("12:00")[0]
    assert special_values("凌晨12点")[0] == special_values("midnight")[0]
    assert special_values("5月14日中午")[0] == special_values("May 14 at noon")[0]
    for not_a_time in ("一点点", "一点儿", "用户提了两点建议", "三点五公里"):
        assert not any(k.startswith("t:") for k in special_values(not_a_time)[0]), not_a_time


def test_kinship_and_roles() -> None:
    assert kin_differs("用户的哥哥住在广州", "用户的弟弟住在广州")
    assert not kin_differs("The user's husband is Tom", "The user's spouse is Tom")  # a husband is a spouse
    assert kin_differs("The user's husband is a nurse", "The user's wife is a nurse")
    assert not kin_differs("Her dad is a retired maths teacher", "The user's father taught maths")  # a trade, no one else
    assert kin_differs("Emil's teacher lives in Oslo", "Emil lives in Oslo")  # one's own teacher is someone
    assert not kin_differs("Leo不太会讲中文", "用户的儿子Leo中文说得不太好")  # the son named is Leo
    assert not kin_differs("豆包由黄晓冬照看", "用户把豆包寄养在同事黄晓冬家")  # the colleague named is 黄晓冬
    assert kin_differs("用户在一家银行工作", "用户的哥哥在一家银行工作")  # 在一家 is no name
    assert kin_differs("My sister is a nurse", "My mother is a nurse")
    assert not kin_differs("My older brother lives in Boston", "我哥哥住在波士顿")  # the general and the specific
    assert not kin_differs("Use npm as the package manager", "Use pnpm as the package manager")  # a manager, not a boss
    assert not kin_differs("The user's brother lives in Boston", "The user's brother moved to Boston")


@pytest.mark.parametrize("others", [(), ("The user likes tea",), ("The user likes tea", "Standup is at 9:30")])
def test_two_things_named_alike_stay_apart_whatever_else_is_remembered(tmp_path: Path, others: tuple[str, ...]) -> None:
    """"The user's [dog] is called [Biscuit]" / "… [manager] is named [Karen]": two places differ
    (synonyms between them are one word), so no conflict, however many other memories there are."""
    pair = ("The user's dog is called Biscuit", "The user's manager is named Karen")
    with TrulyMem(tmp_path / "d.db", user_id="u") as mem:
        mem.commit([{"subject": "user", "relation": MEMORY_RELATION, "object": t, "type": "fact"}
                    for t in (*pair, *others)], supersede=False)
        items = list(iter_memories(mem.store, mem.scope))
        got = analyze(items, load_retention(), datetime.now(UTC), embedder=dream_embedder("auto", mem.embedder))
    assert got.conflicts == [] and got.merges == []


@pytest.mark.parametrize(("old", "new"), [
    ("The API allows 100 rpm", "The API allows 200 requests per minute"),
    ("The release is on 03/04", "The release is on April 3"),
])
def test_a_reviewed_pair_whose_values_differ_is_never_joined_into_one_text(tmp_path: Path, old: str, new: str) -> None:
    """Choosing "merge" on such a pair keeps the newer statement: a text saying both values
    would contradict itself."""
    with TrulyMem(tmp_path / "d.db", user_id="u", app_id="p") as mem:
        for text in (old, new):
            mem.commit([{"subject": "user", "relation": MEMORY_RELATION, "object": text, "type": "pref"}],
                       supersede=False)
        got = analyze(list(iter_memories(mem.store, mem.scope)), load_retention(), datetime.now(UTC),
                      embedder=dream_embedder("auto", mem.embedder))
    assert [(r.a.memory, r.b.memory) for r in got.reviews] == [(old, new)]
    review = got.reviews[0]
    assert review.merge.merged == new and "values differ" in review.why
    assert {m.memory for m in review.merge.items} == {old, new}  # merging still retires both into the newer


@pytest.mark.parametrize(("han", "latin", "same"), [
    ("厦门", "Xiamen", True), ("大连市", "Dalian", True), ("苏州工业园区", "Suzhou", True), ("西安", "Xi'an", True),
    ("重庆", "Chongqing", True), ("苏州", "Xiamen", False), ("烟台", "Dalian", False), ("成都", "Kunming", False),
    ("旧金山", "San Francisco", None), ("波尔图", "Porto", None), ("尼斯", "Nice", None), ("东京", "Tokyo", None)])
def test_a_chinese_place_name_against_a_latin_one(han: str, latin: str, same: bool | None) -> None:
    """Told apart only where the Latin name is pinyin of another place; a foreign place's
    Chinese name (by sound or by meaning) is never read as a different place."""
    assert same_place(han, latin) is same and same_place(latin, han) is same


@pytest.mark.parametrize(("a", "b"), [
    ("The user works at FieldLens", "Renata works at FieldLens."), ("用户在 FieldLens 工作", "Renata 在 FieldLens 工作"),
    ("The user prefers dark mode", "Renata prefers light mode"), ("Alice works at Acme", "Bob works at Acme")])
def test_whom_a_memory_is_about_is_no_value_that_conflicts(tmp_path: Path, a: str, b: str) -> None:
    """The user and a person named may be one (the user's own name) or two: never a conflict."""
    assert outcome(tmp_path / "d.db", a, b) in ("none", "review")


@pytest.mark.parametrize(("text", "not_read"), [
    ("读书会两周一次", "w:1"),  # 周一 inside 两周一次 is no Monday
    ("The cache holds 2,048 MB", "q:bytes:49152"),  # a thousands separator is no decimal break
    ("a 3-5 °C band", "q:temperature:-5"),  # a range, not below zero
    ("Team A v team B, 20 v 30", "q:voltage:20"),  # "v" alone is no volt
    ("The 5G network", "q:mass:5"),  # "G" is no gram
    ("a $10m budget", "q:length:10"),  # money, not metres
    ("每月15日交房租", "q:time:1296000"),  # the 15th of each month, not fifteen days
    ("月费99克朗", "q:mass:99"),  # kroner, not grams
    ("bills her clients EUR 95 an hour", "q:time:3600"),  # money by the hour, not an hour long
    ("her office is on the 4th floor", "dm:4"),  # a floor, not a day of the month
    ("ten to twelve people came", "t:11:50"),  # a count from ten to twelve, not a time
    ("seven 30-minute sessions", "t:07:30"),  # a count of sessions
    ("wins 30 pm", "t:18:00"),  # no hour is 30
    ("农历八月十五", "d:08-15"),  # a lunar date is no calendar date
    ("三个月", "m:03"),  # three months, not March
    ("只能听懂一点。", "t:01:00"),  # a little, not one o'clock
    ("takes a day", "f:1d"),  # how long, not how often
    ("Room 12 A", "q:current:12"),  # a room, not amperes
    ("ran 10 km and 5 km", "q:length:15000"),  # two runs, not one of 15 km
    ("Keychron Q1 Pro", "qtr:1"),  # a keyboard, not a quarter
    ("上小学一年级", "q:time:31104000"),  # the first grade, not a year
    ("第7周的作业", "q:time:4233600"),  # week 7, not seven weeks
    ("比她小四岁", "age:4"),  # four years younger, not four years old
    ("turned 35 years ago", "age:35")])  # a time gone by, not an age
def test_what_a_value_is_not(text: str, not_read: str) -> None:
    assert not_read not in special_values(text)[0]


@pytest.mark.parametrize(("a", "b"), [("USD 4,500", "$4,500"), ("3000 美元", "$3,000"), ("20 欧元", "EUR 20"),
                                      ("花了3000元", "¥3000"), ("年薪 30万", "an annual salary of 300000"),
                                      ("NOK 250", "250 kroner"), ("400 SEK", "400 kronor"), ("月费99克朗", "99 kroner"),
                                      ("预算3千元", "a budget of 3,000 yuan"), ("1.2M users", "1,200,000 users"),
                                      ("20 thousand", "20k"), ("1亿", "100000000"),
                                      ("one hundred and twenty people", "120 people"), ("a hundred and fifty dollars", "$150"),
                                      ("two thousand five hundred steps", "2,500 steps"), ("月供一万二千八", "月供12800"),
                                      ("房租一个月四千八", "房租一个月4800"), ("twelve hundred dollars", "$1,200"),
                                      ("预算1万5", "预算15000"), ("百分之五十", "50%"), ("百分之三点五", "3.5 percent"),
                                      ("£1.2m", "£1,200,000"), ("5 bucks", "$5"), ("joined in 2015", "2015年加入"),
                                      ("三块五", "3.5元"), ("五毛钱", "0.5元"),
                                      ("产能 2 万台", "产能20000台"), ("学费 3.2 万元", "学费32000元"),
                                      ("3e-4", "0.0003"), ("1200澳元", "AUD 1,200"), ("A$1,200", "1200澳币"),
                                      ("50加元", "C$50"), ("US$50", "$50"), ("3000新加坡元", "SGD 3000"),
                                      ("3千5", "3500"), ("1万5千", "15000"), ("1万2000", "12000")])
def test_one_amount_written_two_ways(a: str, b: str) -> None:
    assert value_sequence(a) == value_sequence(b) != ()


@pytest.mark.parametrize(("a", "b"), [("3千", "3"), ("1.2M", "1.2"), ("Room 5 B", "5 billion"), ("Flat 3B", "3 billion"),
                                      ("£1.2m", "£1.2"),
                                      ("3千米", "3000")])
def test_a_scale_is_never_dropped_nor_guessed(a: str, b: str) -> None:
    assert value_sequence(a) != value_sequence(b)


@pytest.mark.parametrize(("a", "b", "same"), [
    ("Her hospital locker number is 112.", "用户在医院的更衣柜号是208。", True),
    ("The user's favourite tea is oolong.", "用户最喜欢喝的茶是普洱。", True),
    ("Feature flags are managed in Unleash.", "功能开关统一用 LaunchDarkly 管理。", True),
    ("Her manager is Dev.", "Feature flags are managed in Unleash.", False),  # "managed" is no manager
    ("Release notes are written by hand.", "每两周发版一次。", False),
])
def test_one_attribute_named_in_two_languages(a: str, b: str, same: bool) -> None:
    assert (attributes(a) == attributes(b) != frozenset()) is same
