"""Generate an archive of sessions with varied text, for the search bench.

Text a search index cannot flatter itself on: a Zipf vocabulary of ~40k
synthetic words (seeded), code-like tool output (CamelCase identifiers such as
``JsonlParserError``, paths, 40-hex hashes, stack traces, grep and git
output), about one 300 KB tool result in 150, and four formats: Claude Code
(a ``~/.claude/projects`` layout, with sidechain records and
``<session>/subagents/agent-*.jsonl`` files), Codex rollouts, pi v3 and the
native tree format. Needles (exact strings in known records) are planted in
the Claude Code part, so the peers that read only Claude Code are held to
the same needles.

    from gen_varied import generate_archive
    planted = generate_archive(folder, total_bytes, seed=1)
"""

from __future__ import annotations

import itertools
import random
import string
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import orjson

FUNCTION_WORDS = (
    "the of and to in is that for it with as on be at by this we from or an are not but can was "
    "if has have will so all one there which when do you use run its than then now only also"
).split()
SYLLABLES = [c + v for c in "bcdfghklmnprstvwz" for v in "aeiou"] + ["an", "er", "in", "on", "st", "tr", "ch", "sh"]
SUFFIXES = ("Error", "Parser", "Handler", "Manager", "Config", "Reader", "Writer", "Index", "Builder", "Client")
TOOLS = ("Bash", "Read", "Grep", "Edit", "Write", "Glob")
BIG = 300_000  # a big tool result
BIG_EVERY = 150  # about one tool result in this many


class Text:
    """Seeded text: words drawn from a Zipf law over ~40k synthetic words."""

    def __init__(self, seed: int, size: int = 40_000, s: float = 1.07) -> None:
        self.rng = random.Random(seed)
        rng = self.rng
        words: list[str] = list(FUNCTION_WORDS)
        seen = set(words)
        while len(words) < size:
            word = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3, 3, 3, 4))))
            if word not in seen:
                seen.add(word)
                words.append(word)
        self.vocab = words
        self.cum = list(itertools.accumulate(1.0 / (rank**s) for rank in range(1, size + 1)))
        self._buffer: list[str] = []

    def rank(self, word: str) -> int:
        return self.vocab.index(word)

    def word(self) -> str:
        if not self._buffer:
            self._buffer = self.rng.choices(self.vocab, cum_weights=self.cum, k=65536)
        return self._buffer.pop()

    def words(self, n: int) -> list[str]:
        return [self.word() for _ in range(n)]

    def prose(self, n: int) -> str:
        out = []
        for i, w in enumerate(self.words(n)):
            out.append(w)
            if i % 13 == 12:
                out[-1] += self.rng.choice((".", ",", ";", ":", "?"))
        return " ".join(out)

    def ident(self) -> str:
        parts = [w.capitalize() for w in self.words(self.rng.randint(1, 3))]
        return "".join(parts) + self.rng.choice(SUFFIXES)

    def snake(self) -> str:
        return "_".join(self.words(self.rng.randint(1, 3)))

    def path(self) -> str:
        return f"src/{self.word()}/{self.snake()}.{self.rng.choice(('py', 'ts', 'go', 'rs'))}"

    def hexhash(self) -> str:
        return f"{self.rng.getrandbits(160):040x}"

    def code_line(self) -> str:
        rng = self.rng
        kind = rng.randrange(6)
        if kind == 0:
            return f"def {self.snake()}({self.snake()}: {self.ident()}) -> {self.ident()}:"
        if kind == 1:
            return f"    {self.snake()} = {self.ident()}({self.snake()}, {rng.randint(0, 999)})"
        if kind == 2:
            return f'    raise {self.ident()}(f"{self.prose(rng.randint(3, 8))}")'
        if kind == 3:
            return f"from {self.word()}.{self.snake()} import {self.ident()}, {self.ident()}"
        if kind == 4:
            return f"    # {self.prose(rng.randint(4, 12))}"
        return f"    return {self.snake()}.{self.snake()}()"

    def tool_output(self, size: int) -> str:
        """About ``size`` characters of what tools print: code, traces, grep and git output."""
        rng = self.rng
        lines: list[str] = []
        total = 0
        style = rng.randrange(4)
        while total < size:
            if style == 0:
                line = self.code_line()
            elif style == 1:
                line = (
                    f'  File "{self.path()}", line {rng.randint(1, 2000)}, in {self.snake()}\n'
                    f"    {self.code_line().strip()}"
                )
                if rng.random() < 0.15:
                    line += f"\n{self.ident()}: {self.prose(rng.randint(4, 10))}"
            elif style == 2:
                line = f"{self.path()}:{rng.randint(1, 900)}: {self.code_line().strip()}"
            else:
                line = f"commit {self.hexhash()}\n    {self.prose(rng.randint(5, 14))}"
            lines.append(line)
            total += len(line) + 1
            if rng.random() < 0.05:
                style = rng.randrange(4)
        return "\n".join(lines)


@dataclass
class Needle:
    kind: str  # "token", "phrase", "piece" (inside a word), "boundary" (a piece across a token boundary)
    where: str  # user, assistant, thinking, tool_input, tool_result, big_result, subagent
    planted: str  # the string put in the record
    query: str  # what is searched
    file: str = ""  # relative to the archive
    line: int = 0  # 1-based
    session: str = ""  # the session id (Claude Code) the record belongs to


@dataclass
class Planted:
    needles: list[Needle] = field(default_factory=list)
    extra: list[Needle] = field(default_factory=list)  # in the other formats: session-tui only
    phrases: list[str] = field(default_factory=list)  # word runs seen in the text (for the query mix)
    idents: list[str] = field(default_factory=list)
    hashes: list[str] = field(default_factory=list)
    files: dict[str, int] = field(default_factory=dict)  # format -> files written
    rare: list[str] = field(default_factory=list)  # vocabulary words of the Zipf tail
    common: list[str] = field(default_factory=list)  # of its head

    def placed(self) -> list[Needle]:
        """The needles the archive holds: a small one has no room for some (a 300 KB result, a sub-agent)."""
        return [n for n in self.needles if n.file]

    def placed_words(self) -> str:
        placed, left = len(self.placed()), len(self.needles) - len(self.placed())
        return f"{placed} needles" + (f" ({left} not planted: the archive is too small)" if left else "")


def _odd(rng: random.Random, n: int) -> str:
    """Letters no syllable makes (q, x, j, y): a string found nowhere else."""
    return "".join(rng.choice("qxjy") + rng.choice(string.ascii_lowercase) for _ in range(n))


def plan_needles(rng: random.Random) -> list[Needle]:
    """The 20 needles: 8 whole tokens, 4 phrases, 8 pieces inside words (3 of them hash fragments) or
    across a token boundary (2)."""
    out: list[Needle] = []
    token_places = [
        "user",
        "assistant",
        "thinking",
        "tool_input",
        "tool_result",
        "big_result",
        "big_result",
        "subagent",
    ]
    for where in token_places:
        word = "zk" + _odd(rng, 4)
        out.append(Needle("token", where, word, word))
    for where in ("assistant", "tool_result", "big_result", "subagent"):
        a, b, c = ("zk" + _odd(rng, 3) for _ in range(3))
        text = f"{a}, {b} {c}"
        out.append(Needle("phrase", where, text, f'"{text}"'))
    for where in ("tool_result", "big_result", "subagent"):
        core = _odd(rng, 3).capitalize()
        ident = f"Jsonl{core}ParserError"
        out.append(Needle("piece", where, ident, f"{core[1:]}Pars"))
    for where in ("tool_result", "big_result", "subagent"):
        h = f"{rng.getrandbits(160):040x}"
        out.append(Needle("piece", where, h, h[14:26]))
    for where in ("tool_result", "subagent"):
        a, b = ("zk" + _odd(rng, 3) for _ in range(2))
        text = f"{a}Error: {b}"
        out.append(Needle("boundary", where, text, f'"{a[3:]}Error: {b[:4]}"'))
    return out


def _insert(text: str, needle: str, rng: random.Random) -> str:
    spaces = [i for i in range(len(text) // 2 - 2000, len(text) // 2 + 2000) if 0 <= i < len(text) and text[i] == " "]
    if not spaces:
        return f"{text} {needle}"
    at = rng.choice(spaces)
    return f"{text[:at]} {needle} {text[at + 1 :]}"


class _File:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(path, "wb", buffering=1 << 20)  # noqa: SIM115
        self.lines = 0
        self.written = 0

    def write(self, record: dict) -> int:
        data = orjson.dumps(record) + b"\n"
        self.f.write(data)
        self.lines += 1
        self.written += len(data)
        return self.lines

    def close(self) -> None:
        self.f.close()


class _Clock:
    def __init__(self, start: float) -> None:
        self.t = start

    def tick(self, rng: random.Random) -> str:
        self.t += rng.uniform(0.5, 40)
        whole = int(self.t)
        ms = int((self.t - whole) * 1000)
        # 2026-03-01 plus t seconds
        day, rest = divmod(whole, 86400)
        month_day = 1 + day % 28
        month = 3 + (day // 28) % 9
        return f"2026-{month:02d}-{month_day:02d}T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}.{ms:03d}Z"


class _Turns:
    """The abstract conversation the writers serialize: what each step says."""

    def __init__(self, text: Text, planted: Planted) -> None:
        self.t = text
        self.rng = text.rng
        self.planted = planted
        self.results = 0

    def user(self) -> str:
        text = self.t.prose(self.rng.randint(8, 60))
        if self.rng.random() < 0.3:
            text += f" see {self.t.path()} and {self.t.ident()}"
        if self.rng.random() < 0.02:
            cut = text.split()
            at = self.rng.randrange(max(1, len(cut) - 3))
            self.planted.phrases.append(" ".join(cut[at : at + self.rng.randint(2, 3)]).rstrip(".,;:?"))
        return text

    def assistant(self) -> str:
        return self.t.prose(self.rng.randint(10, 120))

    def thinking(self) -> str:
        return self.t.prose(self.rng.randint(10, 80))

    def tool_call(self) -> tuple[str, dict]:
        rng = self.rng
        name = rng.choice(TOOLS)
        if name == "Bash":
            return name, {"command": f"pytest {self.t.path()} -k {self.t.snake()} -q", "description": self.t.prose(6)}
        if name == "Grep":
            return name, {"pattern": self.t.ident(), "path": self.t.path().rsplit("/", 1)[0]}
        if name in ("Edit", "Write"):
            return name, {
                "file_path": self.t.path(),
                "old_string": self.t.code_line(),
                "new_string": self.t.code_line(),
            }
        return name, {"file_path": self.t.path()}

    def tool_result(self, big: bool = False) -> tuple[str, bool]:
        self.results += 1
        rng = self.rng
        size = BIG if big or rng.random() < 1 / BIG_EVERY else int(rng.lognormvariate(7.0, 1.1))
        out = self.t.tool_output(min(size, BIG))
        if rng.random() < 0.01:
            self.planted.idents.append(self.t.ident())
            self.planted.hashes.append(self.t.hexhash())
            out += f"\n{self.planted.idents[-1]} {self.planted.hashes[-1]}"
        return out, rng.random() < 0.08


def _plant(value: str, needle: Needle | None, rng: random.Random) -> str:
    return _insert(value, needle.planted, rng) if needle else value


def _claude_session(
    root: Path, rel_dir: str, size: int, turns: _Turns, clock: _Clock, needles: list[Needle], agent_size: int
) -> None:
    rng = turns.rng
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    rel = f"{rel_dir}/{sid}.jsonl"
    out = _File(root / rel)
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/src/" + rel_dir.rsplit("-", 1)[-1]}
    base |= {"sessionId": sid, "version": "2.1.30", "gitBranch": "main"}
    parent: str | None = None
    model = rng.choice(("claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"))
    main_needles = [n for n in needles if n.where != "subagent"]
    sub_needles = [n for n in needles if n.where == "subagent"]
    turn = 0

    def rec(kind: str, message: dict, **extra) -> int:
        nonlocal parent
        uid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        record = {"parentUuid": parent, **base, "type": kind, "message": message, "uuid": uid}
        record["timestamp"] = clock.tick(rng)
        record.update(extra)
        parent = uid
        return out.write(record)

    due = {id(n): rng.uniform(0.05, 0.9) * size for n in main_needles}

    def take(where: str) -> Needle | None:
        for n in main_needles:
            if n.where == where and not n.file and out.written >= due[id(n)]:
                return n
        return None

    def mark(n: Needle | None, line: int) -> None:
        if n:
            n.file, n.line, n.session = "claude/" + rel, line, sid

    subagent_at = rng.randint(3, 8)
    while out.written < size or any(not n.file for n in main_needles):
        turn += 1
        n = take("user")
        mark(n, rec("user", {"role": "user", "content": _plant(turns.user(), n, rng)}))
        for _ in range(rng.randint(1, 4)):
            n = take("thinking")
            content = [{"type": "thinking", "thinking": _plant(turns.thinking(), n, rng), "signature": "c2ln"}]
            usage = {"input_tokens": rng.randint(1, 900), "cache_read_input_tokens": rng.randint(0, 90000)}
            usage["output_tokens"] = rng.randint(10, 2000)
            msg = {"id": f"msg_{rng.getrandbits(64):016x}", "type": "message", "role": "assistant", "model": model}
            mark(n, rec("assistant", msg | {"content": content, "usage": usage}))
            name, args = turns.tool_call()
            n = take("tool_input")
            if n:
                args["command"] = _plant(args.get("command", "ls"), n, rng)
            call_id = f"toolu_{rng.getrandbits(96):024x}"
            call = {"type": "tool_use", "id": call_id, "name": name, "input": args}
            mark(n, rec("assistant", msg | {"content": [call], "usage": usage}))
            n = take("big_result") or take("tool_result")
            body, error = turns.tool_result(big=bool(n and n.where == "big_result"))
            result = {"type": "tool_result", "tool_use_id": call_id, "content": _plant(body, n, rng)}
            if error:
                result["is_error"] = True
            mark(n, rec("user", {"role": "user", "content": [result]}, toolUseResult={"stdout": "", "stderr": ""}))
        n = take("assistant")
        msg = {"id": f"msg_{rng.getrandbits(64):016x}", "type": "message", "role": "assistant", "model": model}
        text = [{"type": "text", "text": _plant(turns.assistant(), n, rng)}]
        mark(n, rec("assistant", msg | {"content": text, "usage": {"input_tokens": 3, "output_tokens": 200}}))
        if turn == subagent_at or (sub_needles and turn >= subagent_at and any(not s.file for s in sub_needles)):
            _claude_subagent(root, rel_dir, sid, base, agent_size, turns, clock, [s for s in sub_needles if not s.file])
    out.close()


def _claude_subagent(
    root: Path, rel_dir: str, sid: str, base: dict, size: int, turns: _Turns, clock: _Clock, needles: list[Needle]
) -> None:
    rng = turns.rng
    agent = f"a{rng.getrandbits(64):016x}"[:18]
    rel = f"{rel_dir}/{sid}/subagents/agent-{agent}.jsonl"
    out = _File(root / rel)
    parent: str | None = None
    todo = list(needles[:2])  # two a sub-agent at most: the rest go to the next one

    def rec(kind: str, message: dict) -> int:
        nonlocal parent
        uid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        record = {"parentUuid": parent, **base, "isSidechain": True, "agentId": agent, "type": kind}
        record |= {"message": message, "uuid": uid, "timestamp": clock.tick(rng)}
        parent = uid
        return out.write(record)

    rec("user", {"role": "user", "content": turns.user()})
    while out.written < size or todo:
        n = todo.pop(0) if todo and rng.random() < 0.5 else None
        msg = {"id": f"msg_{rng.getrandbits(64):016x}", "type": "message", "role": "assistant"}
        msg["model"] = "claude-haiku-4-5-20251001"
        name, args = turns.tool_call()
        call_id = f"toolu_{rng.getrandbits(96):024x}"
        rec("assistant", msg | {"content": [{"type": "tool_use", "id": call_id, "name": name, "input": args}]})
        body, _ = turns.tool_result()
        line = rec(
            "user",
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": call_id, "content": _plant(body, n, rng)}],
            },
        )
        if n:
            n.file, n.line, n.session = "claude/" + rel, line, sid
    out.close()


def _codex_session(root: Path, rel: str, size: int, turns: _Turns, clock: _Clock, needle: Needle | None) -> None:
    rng = turns.rng
    out = _File(root / rel)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    meta = {
        "id": sid,
        "timestamp": clock.tick(rng),
        "cwd": "/home/dev/src/" + turns.t.word(),
        "originator": "codex_cli_rs",
    }
    out.write({"timestamp": meta["timestamp"], "type": "session_meta", "payload": meta | {"cli_version": "0.98.0"}})
    while out.written < size or (needle and not needle.file):
        ts = clock.tick(rng)
        out.write({"timestamp": ts, "type": "turn_context", "payload": {"cwd": meta["cwd"], "model": "gpt-5-codex"}})
        text = turns.user()
        out.write(
            {
                "timestamp": ts,
                "type": "response_item",
                "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
            }
        )
        for _ in range(rng.randint(1, 4)):
            summary = [{"type": "summary_text", "text": turns.thinking()}]
            out.write(
                {
                    "timestamp": clock.tick(rng),
                    "type": "response_item",
                    "payload": {"type": "reasoning", "summary": summary, "content": None},
                }
            )
            _, args = turns.tool_call()
            call_id = f"call_{rng.getrandbits(96):024x}"
            command = ["bash", "-lc", args.get("command", f"cat {args.get('file_path', 'x')}")]
            call = {
                "type": "function_call",
                "name": "shell",
                "arguments": orjson.dumps({"command": command}).decode(),
                "call_id": call_id,
            }
            out.write({"timestamp": clock.tick(rng), "type": "response_item", "payload": call})
            body, error = turns.tool_result()
            if needle and not needle.file and rng.random() < 0.3:
                body = _insert(body, needle.planted, rng)
                needle.file = rel
            output = orjson.dumps(
                {"output": body, "metadata": {"exit_code": int(error), "duration_seconds": 0.4}}
            ).decode()
            line = out.write(
                {
                    "timestamp": clock.tick(rng),
                    "type": "response_item",
                    "payload": {"type": "function_call_output", "call_id": call_id, "output": output},
                }
            )
            if needle and needle.file == rel and not needle.line:
                needle.line = line
        answer = [{"type": "output_text", "text": turns.assistant()}]
        out.write(
            {
                "timestamp": clock.tick(rng),
                "type": "response_item",
                "payload": {"type": "message", "role": "assistant", "content": answer},
            }
        )
    out.close()


def _pi_session(root: Path, rel: str, size: int, turns: _Turns, clock: _Clock, needle: Needle | None) -> None:
    rng = turns.rng
    out = _File(root / rel)
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    out.write(
        {
            "type": "session",
            "version": 3,
            "id": sid,
            "timestamp": clock.tick(rng),
            "cwd": "/home/dev/src/" + turns.t.word(),
        }
    )
    parent: str | None = None

    def rec(message: dict) -> int:
        nonlocal parent
        eid = f"{rng.getrandbits(32):08x}"
        line = out.write(
            {"type": "message", "id": eid, "parentId": parent, "timestamp": clock.tick(rng), "message": message}
        )
        parent = eid
        return line

    while out.written < size or (needle and not needle.file):
        rec({"role": "user", "content": [{"type": "text", "text": turns.user()}]})
        for _ in range(rng.randint(1, 4)):
            name, args = turns.tool_call()
            call_id = f"toolu_{rng.getrandbits(96):024x}"
            content = [
                {"type": "thinking", "thinking": turns.thinking()},
                {"type": "toolCall", "id": call_id, "name": name.lower(), "arguments": args},
            ]
            usage = {"input": rng.randint(100, 9000), "output": rng.randint(10, 900), "cacheRead": 0, "cacheWrite": 0}
            rec(
                {
                    "role": "assistant",
                    "content": content,
                    "model": "claude-sonnet-4-5",
                    "provider": "anthropic",
                    "usage": usage,
                    "stopReason": "toolUse",
                }
            )
            body, error = turns.tool_result()
            plant = needle and not needle.file and rng.random() < 0.3
            if plant:
                body = _insert(body, needle.planted, rng)
            line = rec(
                {
                    "role": "toolResult",
                    "toolCallId": call_id,
                    "toolName": name.lower(),
                    "content": [{"type": "text", "text": body}],
                    "isError": error,
                }
            )
            if plant:
                needle.file, needle.line = rel, line
        rec(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": turns.assistant()}],
                "model": "claude-sonnet-4-5",
                "stopReason": "stop",
            }
        )
    out.close()


def _tree_session(root: Path, rel: str, size: int, turns: _Turns, clock: _Clock, needle: Needle | None) -> None:
    rng = turns.rng
    out = _File(root / rel)
    out.write(
        {
            "type": "session",
            "version": 1,
            "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
            "createdAt": clock.tick(rng),
            "cwd": "/home/dev/src/x",
            "model": "gpt-4.1-mini",
        }
    )
    parent: str | None = None

    def rec(message: dict) -> int:
        nonlocal parent
        eid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        line = out.write(
            {"type": "message", "id": eid, "parentId": parent, "createdAt": clock.tick(rng), "message": message}
        )
        parent = eid
        return line

    while out.written < size or (needle and not needle.file):
        rec({"role": "user", "content": turns.user()})
        for _ in range(rng.randint(1, 3)):
            name, args = turns.tool_call()
            call = {
                "id": f"call_{rng.getrandbits(64):016x}",
                "type": "function",
                "function": {"name": name.lower(), "arguments": orjson.dumps(args).decode()},
            }
            rec(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [call],
                    "usage": {"prompt_tokens": rng.randint(1000, 90000), "completion_tokens": rng.randint(10, 900)},
                }
            )
            body, _ = turns.tool_result()
            plant = needle and not needle.file and rng.random() < 0.3
            if plant:
                body = _insert(body, needle.planted, rng)
            line = rec({"role": "tool", "tool_call_id": call["id"], "content": body})
            if plant:
                needle.file, needle.line = rel, line
        rec({"role": "assistant", "content": turns.assistant()})
    out.close()


def generate_archive(folder: Path, total: int, seed: int = 1) -> Planted:
    """About ``total`` bytes of sessions under ``folder``: half Claude Code (``claude/<project>/``, sub-agents
    included), a sixth each Codex (``codex/``), pi (``pi/``) and tree (``tree/``). Returns the needles and
    samples of the text for the query mix."""
    text = Text(seed)
    rng = text.rng
    planted = Planted()
    turns = _Turns(text, planted)
    planted.needles = plan_needles(rng)
    claude_total = total // 2
    files = max(4, claude_total // (4 << 20))
    projects = [f"-home-dev-src-{text.word()}{i}" for i in range(max(2, files // 6))]
    todo = list(planted.needles)
    rng.shuffle(todo)
    per_file = -(-len(todo) // files)
    for i in range(files):
        size = int(claude_total / files * rng.uniform(0.3, 1.7))
        share, todo = todo[:per_file], todo[per_file:]
        _claude_session(
            folder / "claude", projects[i % len(projects)], size, turns, _Clock(i * 50_000), share, size // 20
        )
    planted.files["claude"] = files
    others = (("codex", _codex_session), ("pi", _pi_session), ("tree", _tree_session))
    for fmt, write in others:
        part = total // 6
        n = max(2, part // (6 << 20))
        needle_word = "zk" + _odd(rng, 4)
        needle = Needle("token", fmt, needle_word, needle_word)
        planted.extra.append(needle)
        for i in range(n):
            size = int(part / n * rng.uniform(0.3, 1.7))
            stamp = f"2026-03-{1 + i % 28:02d}T10-00-00"
            rel = {"codex": f"codex/2026/03/rollout-{stamp}-{i:04d}.jsonl", "pi": f"pi/{stamp}-000Z_{i:04d}.jsonl"}
            rel_path = rel.get(fmt, f"tree/tree-{i:03d}.jsonl")
            write(folder, rel_path, size, turns, _Clock(i * 70_000 + 3_000), needle if i == n // 2 else None)
        planted.files[fmt] = n
    planted.rare = text.vocab[20_000:40_000:97]
    planted.common = [w for w in text.vocab[:300] if len(w) >= 3]
    return planted
