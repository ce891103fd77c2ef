"""Where gopkg.in/yaml.v3's scanner reads text unlike ruamel.yaml's pure-Python parser.

* libyaml's events (:func:`c_events`), which are ruamel's where they can be taken (fast).

* Tabs before comment lines: yaml.v3 reads a run of comment lines in one go, skipping blanks
  (spaces and tabs) and empty lines between them, so ``# x`` followed by ``<TAB># y`` is one
  comment; ruamel (and libyaml) refuse a tab at the start of a block line. :func:`comment_tabs`
  turns those tabs into spaces (one character each: every mark stays where it was).
* Tabs between tokens (``a:<TAB>1``, ``x<TAB># c``, a tab at a line's end): libyaml, like
  yaml.v3, skips them where a space could be; ruamel refuses every tab outside a scalar in block
  context. :func:`separator_tabs` turns those tabs into spaces.
* An implicit key that is missing (``: x``): ruamel reads an empty key, libyaml and yaml.v3
  refuse it ("did not find expected key"). :func:`libyaml_error` gives libyaml's verdict.
"""

from __future__ import annotations

import re
from typing import Any

# Text libyaml reads differently from ruamel's pure-Python parser: tabs (libyaml accepts some
# that ruamel rejects), NEL and the Unicode line and paragraph separators (line breaks in YAML 1.1,
# not in 1.2), byte-order marks (not counted in marks) and directives (their document's start).
C_UNSAFE = re.compile(r"[\t\ufeff\x85\u2028\u2029]|^%", re.M)


def c_events(text: str) -> list[Any] | None:
    """libyaml's events up to the first document's end, or ``None`` where ruamel's must decide.

    libyaml (ruamel.yaml.clib) gives ruamel's events with the same character marks, except for
    empty plain scalars (ruamel marks them at the next token), root block scalars, directives,
    tabs, text without a final newline and streams of several documents; those, and any text
    libyaml rejects, return ``None`` so the pure-Python parser reads (and words the errors).
    ``tests/cli/test_speed_paths.py`` compares both parsers on generated text.
    """
    if C_UNSAFE.search(text) or not text.endswith("\n"):
        return None  # libyaml also marks the ends of text without a final newline differently
    try:
        from ruamel.yaml.cyaml import CSafeLoader
    except ImportError:  # pragma: no cover - ruamel.yaml.clib is a dependency on CPython
        return None
    loader = CSafeLoader(text)
    events: list[Any] = []
    try:
        while True:
            event = loader.get_event()
            if event is None:
                break
            name = type(event).__name__
            if name == "ScalarEvent" and (
                (not event.value and not event.style) or (event.style in ("|", ">") and not event.start_mark.column)
            ):
                return None  # ruamel marks empty scalars elsewhere; YAML 1.2 reads a root block scalar differently
            events.append(event)
            if name == "DocumentEndEvent" and type(loader.get_event()).__name__ != "StreamEndEvent":
                return None  # ruamel reads ahead into a next document (and may fail there)
            if name in ("DocumentEndEvent", "StreamEndEvent"):
                break
    except Exception:  # libyaml's errors are worded differently: let ruamel's parser decide
        return None
    finally:
        loader.dispose()
    return events


_COMMENT_LINE = re.compile(r"[ \t]*#")
_BLANK_LINE = re.compile(r"[ \t]*")
_PEEK = 512  # yaml.v3 looks this many characters past a comment line for the next one


def comment_tabs(text: str) -> str:
    """``text`` with the tabs yaml.v3 skips inside a run of comment lines written as spaces.

    A run starts at a line whose only text before ``#`` is spaces (yaml.v3's scanner refuses a
    tab there, at the start of a block line); it goes on over lines of blanks and comment lines
    as long as the next ``#`` is within 512 characters of the end of the last comment line. The
    tabs of the comment lines' indentation and of the blank lines between them become spaces;
    blank lines after the run's last comment are left as they are (yaml.v3 refuses their tabs).
    """
    if "\t" not in text:
        return text
    lines = text.split("\n")
    out = list(lines)
    index = 0
    while index < len(lines):
        line = lines[index]
        if not (_COMMENT_LINE.match(line) and "\t" not in line[: line.index("#")]):
            index += 1
            continue
        last = index  # the last comment line of the run so far
        gap = 0  # characters from the end of the last comment line
        probe = index + 1
        while probe < len(lines):
            candidate = lines[probe]
            gap += 1  # the line break
            if _COMMENT_LINE.match(candidate):
                gap += candidate.index("#")
                if gap >= _PEEK:
                    break
                for between in range(last + 1, probe + 1):
                    head = out[between]
                    cut = head.index("#") if between == probe else len(head)
                    out[between] = head[:cut].replace("\t", " ") + head[cut:]
                last, gap = probe, 0
            elif not _BLANK_LINE.fullmatch(candidate):
                break
            else:
                gap += len(candidate)
            probe += 1
        index = last + 1
    return "\n".join(out)


def separator_tabs(text: str) -> str:
    """``text`` with the tabs libyaml skips between tokens written as spaces (one character each, so
    every mark stays where it was); tabs inside scalars and comments stay. ``text`` unchanged when
    it has no tab or libyaml refuses it (its tabs are then errors in yaml.v3 too).
    """
    if "\t" not in text:
        return text
    try:
        from ruamel.yaml.cyaml import CSafeLoader
    except ImportError:  # pragma: no cover - ruamel.yaml.clib is a dependency on CPython
        return text
    loader: Any = CSafeLoader(text)
    spans = []  # (start, end) character offsets of every token
    try:
        while (token := loader.get_token()) is not None:
            spans.append((token.start_mark.index, token.end_mark.index))
    except Exception:  # libyaml refuses the text: ruamel's error stands
        return text
    finally:
        loader.dispose()
    out = list(text)
    gaps = [0, *(i for span in spans for i in span), len(text)]
    for start, end in zip(gaps[::2], gaps[1::2], strict=True):  # the text between two tokens
        for line in re.finditer(r"[^\n]*", text[start:end]):  # blanks, then maybe a comment, per line
            blanks = line.group().split("#", 1)[0]
            for offset in (i for i, char in enumerate(blanks) if char == "\t"):
                out[start + line.start() + offset] = " "
    return "".join(out)


def libyaml_error(text: str) -> tuple[str, int] | None:
    """libyaml's problem with the first document of ``text`` and its 1-based line, or ``None``
    when libyaml reads it (or is not installed)."""
    try:
        from ruamel.yaml.cyaml import CSafeLoader
        from ruamel.yaml.error import MarkedYAMLError
    except ImportError:  # pragma: no cover - ruamel.yaml.clib is a dependency on CPython
        return None
    loader: Any = CSafeLoader(text)
    try:
        while True:
            event = loader.get_event()
            if event is None or type(event).__name__ in ("DocumentEndEvent", "StreamEndEvent"):
                return None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return str(exc.problem or exc.context or "syntax error"), mark.line + 1 if mark else 0
    except Exception:  # any other libyaml failure: ruamel's parser decides
        return None
    finally:
        loader.dispose()
