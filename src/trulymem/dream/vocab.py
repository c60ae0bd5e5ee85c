"""The dream's vocabulary: which relations hold one value, which take many, which
words are synonyms or opposites, and what makes a memory specific to a project."""

from __future__ import annotations

import re

from trulymem.dream.similarity import words

# Relations a subject has one value of at a time: two different objects disagree.
SINGLE_VALUED = frozenset("""
lives_in live_in located_in location based_in resides_in home hometown address city country timezone time_zone
works_at works_for work_at employer company job job_title title role position occupation profession
age birthday born_in born_on birth_date name full_name nickname email phone phone_number
married_to spouse partner status state
deploy_to deploys_to deployed_to deployed_on deploy_target hosted_on host hosting runs_on platform cloud
database uses_database db primary_database auth_db language primary_language main_language framework
package_manager editor os operating_system default_branch ci build_tool test_runner formatter linter
prefers preferred preference favorite favourite
住在 住址 居住地 家乡 城市 国家 时区 工作于 公司 职位 职业 年龄 生日 名字 姓名 邮箱 电话 配偶 状态
部署到 部署在 数据库 使用数据库 语言 框架 偏好 最喜欢
""".split())
SINGLE_PREFIXES = ("current_", "favorite_", "favourite_", "preferred_", "primary_", "main_", "default_", "最喜欢")
# Verbs that take many objects: "likes rock" and "likes jazz" do not disagree.
MULTI_VALUED = frozenset(words(
    "like likes love loves enjoy enjoys visit visited read reads watch watched play plays know knows have has own "
    "owns speak speaks want wants need needs friend friends member learn learning study studies eat "
    "eats drink drinks collect collects tried try went attended met allergic allergy allergies certification "
    "certifications certified"))
MULTI_VALUED_PHRASES = ("喜欢", "喜爱", "爱吃", "爱看", "去过", "看过", "读过", "玩过", "认识", "学过", "吃过", "喝过", "朋友",
                   "养", "证书", "会弹", "会拉", "会吹", "会打", "been to", "traveled to", "travelled to", "worked on",
                   "contributed to")  # phrases whose words are stopwords
# places been to, however said: one trip beside another ("has been to Japan" / "travelled around Georgia")
TRAVEL_PHRASES = ("been to", "traveled", "travelled", "visited", "toured", "trip to", "去过", "旅行", "旅游", "游览")
# Words that carry no topic of their own: left out when comparing what memories say.
GENERIC = frozenset(words("use uses used using make makes made get gets got go goes set put keep take give do does "
                          "done thing things always usually often sometimes really very just also still already "
                          "currently now"))
# Whom a note is about: sharing only these says nothing about the topic.
OWNER_WORDS = frozenset(words("user users team project we our i my me 用户 我 我们 团队 项目"))
# Predicates that say the same thing: swapping one for another is a paraphrase.
SYNONYMS = [frozenset(words(g)) | frozenset(g.split()) for g in (
    "like love enjoy adore fond prefer favor 喜 欢 爱 喜欢 喜爱",
    "call called name named titled 叫 名叫",
    "live lives resides based located 住 住在 家",
    "work works working employ employer employed",
    "store stored keep kept save saved put",
    "manage managed handle handled maintain maintained own owned run",
    "ship shipped send sent forward forwarded",
    "write written build built develop developed",
    "dislike hate detest loathe 讨厌 厌恶",
    "use utilize employ 用 使用 采用",
    "big large huge 大", "small little tiny 小", "film movie 电影", "colour color 颜色", "dish food 菜",
    "song track 歌", "book novel 书", "club team 球队",
    "begin start 开始", "finish end complete 完成 结束", "later newer",
    "certified certificate certificates certification certifications",
)]
CANON = {t: min(g) for g in SYNONYMS for t in g}  # one term per synonym group when comparing
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
ANTONYMS = {("like", "dislike"), ("likes", "dislikes"), ("love", "hate"), ("loves", "hates"), ("want", "avoid"),
            ("wants", "avoids"), ("prefers", "avoids"), ("enjoys", "hates"), ("喜欢", "讨厌"), ("喜欢", "不喜欢"),
            ("爱", "恨"), ("想要", "不想要")}
NEG_PREFIX = re.compile(r"^(?:not_|no_|never_|dont_|doesnt_|does_not_|do_not_|isnt_|is_not_|不|没|别)")

PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:py|js|ts|tsx|jsx|go|rs|java|rb|php|c|h|cpp|md|json|ya?ml|toml|"
                   r"sql|sh|cfg|ini|txt|html|css)\b")
IDENT = re.compile(r"https?://\S+|\b[a-z]+_[a-z0-9_]+\b|\b[a-z]+[A-Z]\w*\b|\b\w+\.\w+\(|\b[A-Za-z]+\d\w*\b|#\d+|`[^`]+`")
PROPER = re.compile(r"(?<=[a-z,;:] )[A-Z][a-zA-Z]+")

# how a date is said to hold ("falls on", "takes place on"): no word of what happens
WHEN_VERBS = frozenset(words("fall falls fell happen happens land lands take takes place occur occurs due "
                             "start starts begin begins"))

# a bound on an amount: "limits coffee to 2 cups", "maximum upload size", 上限; not "is up to 11 kg now" (has risen to)
LIMIT = re.compile(r"\b(?:limit(?:s|ed)?\s+(?:\w+\s+){0,3}to|limit (?:is|of)|capped|cap (?:is|of)|at most|no more than|"
                   r"not more than|(?<!\bis )(?<!\bare )(?<!['’]s )(?<!\bwas )up to|"
                   r"allow(?:s|ed)?\s+(?:up to\s+|at most\s+|only\s+)?(?:\d|one|two|three|four|five|an?\s)|maximum|max|"
                   r"cap(?:s|ped)?\s+(?:\w+\s+){0,3}at)\b|最多|不超过|不能超过|上限|限制在",
                   re.IGNORECASE)
