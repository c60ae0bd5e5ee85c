"""Names of everyday attributes in English and Chinese, one key each: what lets "Her hospital
locker number is 112" and "用户在医院的更衣柜号是208" be read as one attribute with two values.

General vocabulary of the things a person's memories give one value at a time (a dentist, a
bank, a target weight, a deadline, a favourite tea), not the words of any one data set. A
Chinese term is matched as written, an English phrase word by word (stemmed); a Chinese term
of one character is too small a word and is never listed alone (but right after 最喜欢). Parts of
a system that mostly qualify another noun ("database schema migrations", "server logs") are not
listed: they name no one attribute."""

from __future__ import annotations

import re
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9][a-z0-9:'’-]*")


def _tokens(text: str) -> list[str]:
    """English words as written, a plural's "s" dropped: "managed" is not "manager" (a stemmer
    makes them one), "flags" is "flag"."""
    out = []
    for t in _TOKEN.findall(text.casefold()):
        t = re.sub(r"['’]s$", "", t)
        out.append(t[:-1] if len(t) > 3 and t.endswith("s") and not t.endswith("ss") else t)
    return out

# key: English phrases | Chinese terms
_TABLE = """
dentist: dentist, dental clinic | 牙医, 牙科, 口腔诊所
orthodontist: orthodontist | 正畸医生, 正畸
doctor: doctor, gp, physician, family doctor, fastlege | 家庭医生, 主治医生, 全科医生
pediatrician: pediatrician, paediatrician | 儿科医生
vet: vet, veterinarian | 兽医, 宠物医院
therapist: therapist, counselor, counsellor, psychologist | 心理咨询师, 心理医生, 咨询师
physio: physiotherapist, physio | 理疗师, 康复师
caregiver: caregiver, carer, care worker | 护工
babysitter: babysitter, nanny | 保姆, 育儿嫂
tutor: tutor | 家教
teacher: teacher, instructor, lecturer | 老师, 讲师, 教师
coach: coach, trainer | 教练
manager: manager, boss, supervisor, line manager, team lead, head of department | 经理, 主管, 上司, 领导, 组长
advisor: advisor, adviser, phd supervisor, mentor | 导师
landlord: landlord | 房东
lawyer: lawyer, solicitor | 律师
accountant: accountant | 会计
hairdresser: hairdresser, barber | 理发师
contact: emergency contact | 紧急联系人
liaison: main contact, point of contact, contact person | 对接人, 联系人
bank: bank, salary account | 银行, 工资卡
insurance: insurance, insurer, health insurance | 保险, 医保
carrier: mobile carrier, carrier, mobile operator, phone plan | 运营商, 手机套餐
broadband: broadband, internet provider, home internet | 宽带
email: email provider, email | 邮箱
phone: phone | 手机
laptop: laptop | 笔记本电脑
car: car | 汽车, 开的车, 座驾
gym: gym | 健身房
airline: airline | 航空公司, 航空
school: school | 学校, 小学, 中学
kindergarten: kindergarten, nursery | 幼儿园
supermarket: supermarket, grocery store, groceries | 超市, 买菜
courier: courier, delivery service | 快递
electricity: electricity | 电费, 供电
editor: editor, ide | 编辑器
notes: note taking app, notes app | 笔记软件, 笔记
password_manager: password manager, password vault, passwords | 密码管理器
calendar: calendar | 日历
chat: team chat, chat tool, messaging app | 聊天工具, 团队沟通, 沟通工具
video_calls: video conferencing, video calls, video meetings | 视频会议
browser: browser | 浏览器
ci: ci, continuous integration, build pipeline | 持续集成
warehouse: data warehouse | 数据仓库
cloud: cloud provider | 云服务商, 云厂商
logs: logs, logging, log shipping | 日志
monitoring: monitoring | 监控
errors: error tracking, crash reporting | 错误追踪, 崩溃上报, 错误监控
flags: feature flags, feature flag | 功能开关
push: push notifications | 推送通知, 推送
analytics: product analytics, analytics | 埋点, 数据统计
package_manager: package manager | 包管理器
test_framework: test framework, test runner | 测试框架
tasks: task tracker, issue tracker, project management | 任务管理, 项目管理
map: map tiles, maps | 地图
payments: payment provider, payments | 支付
bookkeeping: accounting software, bookkeeping | 记账软件, 财务软件
erp: erp | erp
port: port | 端口
timezone: timezone, time zone | 时区
weight: weight, target weight | 体重, 目标体重
height: height | 身高
blood_type: blood type | 血型
shoe_size: shoe size | 鞋码
birthday: birthday | 生日
anniversary: anniversary | 纪念日
address: address | 地址, 住址
office: office | 办公室
desk: desk | 工位
locker: locker | 更衣柜, 储物柜
seat: seat | 座位
race_number: race number, bib number, bib | 号码布
jersey: jersey number | 球衣号码
student_id: student id, student number | 学号
employee_id: employee id, staff id, staff number | 工号
phone_number: phone number, mobile number | 电话号码, 手机号
extension: extension | 分机
salary: salary | 工资, 薪水, 月薪, 年薪
rate: hourly rate, day rate | 时薪, 日薪
rent: rent | 房租, 租金
deposit: deposit | 押金
budget: budget | 预算
allowance: allowance, pocket money | 零花钱
tuition: tuition, school fees | 学费
deadline: deadline, due date | 截止日期, 截止
passport: passport | 护照
visa: visa | 签证
license: driving licence, driving license, driver's license | 驾照
flight: flight | 航班
appointment: appointment | 预约
standup: standup, stand-up | 站会
sync: sync meeting, sync call, sync | 例会, 同步会
one_on_one: one-on-one, one on one, 1:1 | 一对一
on_call: on-call, on call | 值班
release: release cadence, release schedule | 发版
code_freeze: code freeze | 封版, 代码冻结
bedtime: bedtime, goes to bed | 睡觉, 上床
wake: wakes up, wake up, gets up | 起床
commute: commute | 通勤
retention: retention, retained, kept for | 保留
timeout: timeout, times out | 超时
rate_limit: rate limit | 限流, 限速
coverage: test coverage, coverage | 覆盖率
language: reply language, preferred language | 回复语言, 用中文回复, 用英文回复
"""

# favourites: "favourite <kind>" / "最喜欢的<kind>", one key per kind
_KINDS = """
tea: tea | 茶
coffee: coffee | 咖啡
food: food, dish, meal | 菜, 食物
colour: colour, color | 颜色
film: film, movie | 电影
book: book, novel | 书, 小说
band: band | 乐队
singer: singer, artist | 歌手
song: song | 歌
team: team, club, football club | 球队, 俱乐部
sport: sport | 运动
game: game, board game | 游戏, 桌游
city: city | 城市
restaurant: restaurant | 餐厅, 饭店
author: author, writer | 作家
season: season | 季节
drink: drink | 饮料
fruit: fruit | 水果
dive_site: dive site | 潜水点
hike: hike, hiking spot, trail | 徒步
"""


def _parse(table: str, prefix: str, shortest: int) -> tuple[dict[tuple[str, ...], str], dict[str, str]]:
    english: dict[tuple[str, ...], str] = {}
    chinese: dict[str, str] = {}
    for line in table.strip().splitlines():
        key, rest = line.split(":", 1)
        en, zh = rest.split("|")
        for phrase in en.split(","):
            stems = tuple(_tokens(phrase.strip()))
            if stems:
                english[stems] = prefix + key.strip()
        for term in zh.split(","):
            if len(term.strip()) >= shortest:
                chinese[term.strip()] = prefix + key.strip()
    return english, chinese


_ENGLISH, _CHINESE = _parse(_TABLE, "", 2)
# a person's own attributes: every person has one, so both sides must say whose
PERSONAL = frozenset(("weight", "height", "blood_type", "shoe_size", "birthday", "anniversary", "passport", "visa",
                      "license", "salary", "phone_number", "student_id", "employee_id", "bedtime", "wake", "address",
                      "allowance", "rate"))
_FAV_ENGLISH, _FAV_CHINESE = _parse(_KINDS, "favourite:", 1)  # right after 最喜欢 one character is the kind
_LONGEST = max(len(p) for p in _ENGLISH)


@lru_cache(maxsize=65_536)
def attributes(text: str) -> frozenset[str]:
    """The attribute keys a memory names, in either language ("locker", "favourite:tea")."""
    low = text.casefold()
    found = {key for term, key in _CHINESE.items() if term in low}
    seq = _tokens(text)
    for k in range(len(seq)):
        for n in range(min(_LONGEST, len(seq) - k), 0, -1):
            key = _ENGLISH.get(tuple(seq[k:k + n]))
            if key is not None:
                found.add(key)
                break
    return frozenset(found | _favourites(low, seq))


def _favourites(low: str, seq: list[str]) -> set[str]:
    found = set()
    for at in (k for k, w in enumerate(seq) if w in ("favourite", "favorite", "preferred", "all-time")):
        for n in (3, 2, 1):
            key = _FAV_ENGLISH.get(tuple(seq[at + 1:at + 1 + n]))
            if key is not None:
                found.add(key)
                break
    for marker in ("最喜欢", "最爱"):
        at = low.find(marker)
        if at >= 0:
            after = low[at + len(marker):at + len(marker) + 8]
            found |= {key for term, key in _FAV_CHINESE.items() if term in after}
    return found
