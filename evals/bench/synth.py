"""Seeded synthetic card libraries for the benchmark: realistic sizes, some Chinese, no meaning.

The same seed and size always give the same files, so runs on different machines measure the
same library. Vocabulary follows a rough Zipf curve: a few common technical words shared by many
cards, a long tail of project-specific names, as in a real team's library.
"""

from __future__ import annotations

import random
from pathlib import Path

WORDS = """
api app auth backend bug build cache ci cli client cluster code commit config container cron
css data database debug dependency deploy deployment docker docs endpoint env error event export
file fix flag frontend function git handler header hook html http image import index input install
job json key lambda layout lint lock log login memory merge message migration mock model module
network node npm object package page parser patch path payment permission pipeline pod port
process prod production proxy query queue react release repo request response retry review role
route rust schema script secret server service session shell sql ssh stage state storage stream
style table task template test thread timeout token trace type upload url user validation value
version view volume webhook worker yaml branch rebase tag artifact bucket certificate column
compiler constraint cursor daemon dashboard driver encoding feature fixture format gateway graph
hash host invoice kernel latency ledger limit listener locale manifest metric mutex namespace
notification offset order partition plugin policy pool profile protocol quota rate record
registry replica report resolver router runtime sandbox scheduler scope search selector sensor
shard signal snapshot socket source spec sync tenant ticket timezone topic transaction tunnel
unicode vendor webhook window
""".split()
VERBS = """
add remove update rename migrate deploy rollback restart configure validate check verify review
refactor debug fix test build publish release export import upload download cache invalidate
rotate encrypt sign parse render format lint compile bump pin retry schedule monitor profile
""".split()
QUALIFIERS = """
flaky slow broken missing stale shared staging local remote nightly legacy async concurrent
duplicate partial empty large unsafe public private internal external temporary default
""".split()
ZH_WORDS = """
部署 回滚 数据库 迁移 测试 缓存 日志 配置 发布 接口 权限 超时 重试 队列 索引 事务 证书 密钥
前端 后端 浏览器 验收 导出 导入 订单 发票 支付 用户 会话 令牌 镜像 容器 脚本 分支 合并 冲突
""".split()
SYLLABLES = "ka lo mi nu re so ta vi xe zu bra chi dro fen gal hox jun kep lum mor".split()
CATEGORIES = (
    "operations",
    "testing",
    "frontend",
    "backend",
    "security",
    "data",
    "release",
    "测试验收",
)


def _zipf(rng: random.Random, items: list[str]) -> str:
    # Index ~ exponential: the first words are common, the tail rare.
    return items[min(int(rng.expovariate(6.0 / len(items))), len(items) - 1)]


def _name(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 3)))


def _phrase(rng: random.Random, names: list[str], low: int, high: int) -> str:
    words = [rng.choice(VERBS)]
    for _ in range(rng.randint(low, high) - 1):
        roll = rng.random()
        if roll < 0.15:
            words.append(rng.choice(QUALIFIERS))
        elif roll < 0.3:
            words.append(rng.choice(names))
        else:
            words.append(_zipf(rng, WORDS))
    return " ".join(words)


def _zh(rng: random.Random) -> str:
    return "".join(rng.choice(ZH_WORDS) for _ in range(rng.randint(2, 3)))


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def card_text(rng: random.Random, card_id: str, names: list[str]) -> str:
    """One card file: front matter with 4-8 triggers, aliases, topics, and a rule section."""
    chinese = rng.random() < 0.25
    title = _phrase(rng, names, 4, 7).capitalize()
    if chinese:
        title = f"{_zh(rng)} {title}"
    triggers = [_phrase(rng, names, 2, 4) for _ in range(rng.randint(4, 8))]
    if chinese:
        triggers.append(_zh(rng))
    use_when = [_phrase(rng, names, 4, 8) for _ in range(rng.randint(2, 4))]
    ignore_when = [_phrase(rng, names, 2, 4) for _ in range(rng.randint(1, 2))]
    summary = ". ".join(_phrase(rng, names, 8, 14).capitalize() for _ in range(2)) + "."
    if chinese:
        summary += " " + "，".join(_zh(rng) for _ in range(3)) + "。"
    topics = sorted({_zipf(rng, WORDS) for _ in range(rng.randint(2, 4))})
    lines = [
        "---",
        "schema: ome-card",
        f"id: {card_id}",
        "status: active",
        f"title: {_quote(title)}",
        f"category: {rng.choice(CATEGORIES)}",
        f"summary: {_quote(summary)}",
        "criteria:",
        "  use_when:",
        *(f"    - {_quote(p)}" for p in use_when),
        "  ignore_when:",
        *(f"    - {_quote(p)}" for p in ignore_when),
        "recall:",
        f"  policy: {rng.choice(('should', 'should', 'should', 'must', 'summary'))}",
        f"  risk: {rng.choice(('low', 'medium', 'high'))}",
        "  triggers:",
        *(f"    - {_quote(p)}" for p in triggers),
    ]
    if rng.random() < 0.6:
        lines.append("  aliases:")
        lines.append(f"    zh-CN: [{', '.join(_zh(rng) for _ in range(rng.randint(1, 3)))}]")
        if rng.random() < 0.5:
            lines.append(f"    en: [{', '.join(_phrase(rng, names, 2, 3) for _ in range(2))}]")
    lines.append(f"  topics: [{', '.join(topics)}]")
    lines += ["scope:", "  level: global", "---", "", f"# {title}", "", "## Problem", ""]
    lines.append(" ".join(_phrase(rng, names, 8, 14) for _ in range(4)) + ".")
    lines += ["", "## Full Rule", "", "```text"]
    lines += [f"{i}. {_phrase(rng, names, 6, 12)}." for i in range(1, rng.randint(3, 7))]
    lines += ["```", ""]
    return "\n".join(lines)


def write_library(data_dir: Path, size: int, seed: int = 7) -> list[Path]:
    """Write `size` active cards into `<data_dir>/experiences/active/`; returns their paths."""
    rng = random.Random(f"{seed}:{size}")
    names = [_name(rng) for _ in range(max(size // 4, 20))]
    folder = data_dir / "experiences" / "active"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for n in range(size):
        card_id = f"card-{n:05d}-{_name(rng)}"
        path = folder / f"{card_id}.md"
        path.write_text(card_text(rng, card_id, names), encoding="utf-8")
        paths.append(path)
    return paths


PROMPTS = (
    "the deploy of the payment service fails after the database migration, please fix the"
    " flaky test and check the retry config",
    "部署之后数据库迁移失败了，帮我看一下日志和缓存配置",
    "review this pull request: it renames the auth token handler and updates the webhook route",
)
