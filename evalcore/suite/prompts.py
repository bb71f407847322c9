"""A suite's prompts: the templates in ``prompts/`` that decide what a contender is asked.

- ``prompts/<name>.txt`` or ``.md``: one user message.
- ``prompts/<name>.yaml``: a list of chat messages, ``[{role: system, content: ...}, {role: user, ...}]``.

Each message is a Jinja2 template rendered in an immutable sandbox (it can neither run code of ours nor change
the case it reads) with strict undefined names (a typo is an error, never an empty string). What a template
sees is decided by the scoring layer (:func:`evalcore.scoring.adapters.prompt_variables`). A lineup chooses a
prompt with the ``prompt`` setting, which is recorded with the contender but never sent to the model.

A template that does not compile is a :class:`~evalcore.core.errors.ConfigError` when the suite loads; one
that fails on a case (an undefined name) is one when it is rendered: ``evalcore verify`` and every plan render
before any call. Both name the file and the line.
"""

from __future__ import annotations

import hashlib
import json
import re
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jinja2 import FunctionLoader, StrictUndefined, Template, TemplateSyntaxError, UndefinedError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from evalcore.core.errors import ConfigError
from evalcore.core.records import Contender

#: The setting that names a contender's prompt (kept out of the provider call: ``evalcore.models.llm``).
PROMPT_SETTING = "prompt"
PROMPTS_DIR = "prompts"
TEXT_SUFFIXES = (".txt", ".md")
CHAT_SUFFIXES = (".yaml", ".yml")
ROLES = ("system", "user", "assistant")
#: Names that survive ``-p a,b`` and a contender id: no commas, no spaces.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class _Part:
    """One message of a prompt: its role, its compiled template and the file line its text starts on."""

    role: str
    template: Template
    first_line: int


@dataclass
class Prompt:
    """A prompt of a suite, compiled."""

    name: str
    #: The file, as read (``.../prompts/terse.txt``).
    path: Path
    #: The file's text: what the run file records.
    text: str
    #: ``sha256:<hex>`` of the file's bytes.
    sha256: str
    parts: tuple[_Part, ...]

    def render(self, variables: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The chat messages of this prompt over ``variables``.

        Raises:
            ConfigError: a name the template uses is undefined (or the sandbox refused it), with file and line.
        """
        messages = []
        for part in self.parts:
            try:
                content = part.template.render(variables)
            except Exception as exc:
                line = part.first_line + _template_line(exc, str(self.path)) - 1
                raise ConfigError(f"{self.path}: line {line}: {_problem(exc, variables)}") from None
            messages.append({"role": part.role, "content": content})
        return messages


def load_prompts(suite_folder: Path) -> dict[str, Prompt]:
    """Every prompt in ``suite_folder/prompts`` by name (the file's stem); ``{}`` when there is no folder."""
    folder = suite_folder / PROMPTS_DIR
    if not folder.is_dir():
        return {}
    prompts: dict[str, Prompt] = {}
    for path in sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")):
        prompt = _load_prompt(path)
        if prompt.name in prompts:
            raise ConfigError(
                f"{path}: a second prompt named {prompt.name!r} (also {prompts[prompt.name].path.name}). Keep one."
            )
        prompts[prompt.name] = prompt
    return prompts


def check_prompt_names(contenders: list[Contender], prompts: Mapping[str, Prompt], suite_folder: Path) -> None:
    """Raise when a contender names a prompt the suite does not have, listing the ones it has."""
    for contender in contenders:
        name = contender.settings.get(PROMPT_SETTING)
        if name is None or name in prompts:
            continue
        where = f"{contender.id}: prompt {name!r}"
        if not prompts:
            raise ConfigError(
                f"{where}: the suite has no prompts. Add {suite_folder / PROMPTS_DIR / str(name)}.txt "
                "(or .md, or .yaml with chat messages), or drop the prompt from the lineup or -p."
            )
        raise ConfigError(f"{where}: no such prompt in {suite_folder / PROMPTS_DIR}. Prompts: {', '.join(prompts)}")


def prompts_used(contenders: list[Contender]) -> list[str]:
    """The prompt names the contenders use, in order of first use."""
    names = (c.settings.get(PROMPT_SETTING) for c in contenders)
    return list(dict.fromkeys(str(n) for n in names if n is not None))


def _load_prompt(path: Path) -> Prompt:
    if not _NAME.match(path.stem):
        raise ConfigError(f"{path}: {path.stem!r} cannot name a prompt. Use letters, digits, '_', '-' and '.'.")
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text (byte {exc.start}). Save it as UTF-8.") from None
    if path.suffix in TEXT_SUFFIXES:
        sources = [("user", text, 1)]
    elif path.suffix in CHAT_SUFFIXES:
        sources = _chat_sources(text, path)
    else:
        raise ConfigError(
            f"{path}: not a prompt. A prompt is .txt or .md (one user message) or .yaml (a list of chat messages)."
        )
    compile_part = _compiler(path)
    parts = tuple(_Part(role, compile_part(i, source, first), first) for i, (role, source, first) in enumerate(sources))
    return Prompt(path.stem, path, text, "sha256:" + hashlib.sha256(data).hexdigest(), parts)


def _chat_sources(text: str, path: Path) -> list[tuple[str, str, int]]:
    """(role, template text, first line in the file) of each message of a ``.yaml`` prompt."""
    try:
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f": line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{line}: not valid YAML: {getattr(exc, 'problem', None) or exc}") from None
    shape = "a list of messages like `- {role: user, content: '{{ input }}'}`"
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise ConfigError(f"{path}: a .yaml prompt is {shape}")
    sources = []
    for item in node.value:
        line = item.start_mark.line + 1
        keys = {k.value: v for k, v in item.value} if isinstance(item, yaml.MappingNode) else {}
        if set(keys) != {"role", "content"} or not all(isinstance(v, yaml.ScalarNode) for v in keys.values()):
            raise ConfigError(f"{path}: line {line}: a message has exactly `role:` and `content:` (text); {shape}")
        role, content = keys["role"], keys["content"]
        if role.value not in ROLES:
            raise ConfigError(f"{path}: line {line}: role {role.value!r} is not one of {list(ROLES)}")
        block = content.style in ("|", ">")  # the text starts on the line after the indicator
        sources.append((role.value, content.value, content.start_mark.line + 1 + block))
    return sources


def _compiler(path: Path) -> Callable[[int, str, int], Template]:
    """Compiles a prompt's messages; the file's path names their frames, so errors can find their line."""
    sources: dict[str, str] = {}
    env = ImmutableSandboxedEnvironment(
        undefined=StrictUndefined,
        autoescape=False,
        finalize=_finalize,
        loader=FunctionLoader(lambda name: (sources[name], str(path), lambda: True)),
    )

    def compile_part(index: int, source: str, first_line: int) -> Template:
        sources[str(index)] = source
        try:
            return env.get_template(str(index))
        except TemplateSyntaxError as exc:
            line = first_line + (exc.lineno or 1) - 1
            raise ConfigError(f"{path}: line {line}: template syntax error: {exc.message}") from None

    return compile_part


def _finalize(value: Any) -> Any:
    """Objects and lists print as JSON (an object input reads as the adapter would send it), not Python."""
    if isinstance(value, dict | list | tuple):
        return json.dumps(value, ensure_ascii=False, indent=1)
    return value


def _template_line(exc: BaseException, filename: str) -> int:
    """The template line an error was raised on: Jinja2 gives the template's frames its file and lines."""
    lines = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename and f.lineno]
    return lines[-1] if lines else 1


def _problem(exc: Exception, variables: Mapping[str, Any]) -> str:
    if isinstance(exc, UndefinedError):
        return f"undefined: {exc}. A prompt sees {', '.join(variables)}"
    return f"{type(exc).__name__}: {exc}"
