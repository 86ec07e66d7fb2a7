"""Guard: each kind of protocol knowledge stays in its home (docs/architecture.md).

Every difference between the dialects is a field of their spec (``_dialects.DialectSpec``), so
no other module compares a dialect's *name*: ``dialect == "1994"``, ``name != "google"``,
``d in ("rfc9309", ...)`` or a ``case "1994":`` anywhere else asks for a spec field instead;
and no other module lists the dialects by hand (a tuple, list or set of two or more names:
``_dialects.NAMES`` is the list every tool offers). The categories of the AIPREF vocabulary and
the Content-Signal keys are listed only in ``aipref/vocabulary.py`` (a literal collection of
two or more of them elsewhere is a second list, which misses the next vocabulary's category).
Every URL the core matches is cut into its parts by the URL homes (``_url.py``: URL -> path
and pattern normalisation; ``_origin.py``: origins, the robots.txt URL, IDNA), so no other
module splits one: ``urlsplit``/``urlparse``/``urldefrag`` and their inverses, or a string cut
at ``?`` or ``#`` (``split``, ``partition``, ``find``, ``index`` and their right-hand twins);
nor reads its path by hand: a cut at ``://`` or the ``path`` of a urllib split.

The scan reads every ``src/robotrules/**/*.py`` with :mod:`ast` and the Cython sources
(``.pyx``, ``.pxi``) line by line with regular expressions. The allow-lists below name each
exception by file and source line, with the reason it is not dialect knowledge or not a
matched URL; an entry that no longer matches anything fails too, so the lists stay true. The
copies in the shells that their owners are removing are listed per file, as expected failures.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "robotrules"
DIALECT_NAMES = frozenset({"rfc9309", "google", "1994"})  # robotrules._dialects.NAMES
DIALECT_HOME = frozenset({"_dialects.py"})
URL_HOMES = frozenset({"_url.py", "_origin.py"})
_SPLITTERS = frozenset({"urlsplit", "urlparse", "urlunsplit", "urlunparse", "urldefrag",
                        "SplitResult", "ParseResult"})
_CUTS = frozenset({"split", "rsplit", "partition", "rpartition", "find", "rfind", "index",
                   "rindex"})

# (file relative to src/robotrules, the source line stripped) -> why it is not dialect knowledge
DIALECT_ALLOWED: dict[tuple[str, str], str] = {
    ("guard/ranges.py", 'if fmt == "google":'):
        "an IP range list's format (Google's JSON of crawler prefixes), not a robots.txt dialect",
}

# (file relative to src/robotrules, the source line stripped) -> why the split belongs there
URL_ALLOWED: dict[tuple[str, str], str] = {
    ("dataset/warc.py", "parts = urlsplit(url)"):
        "a capture's URL split into Common Crawl's URL-index columns (url_host_name, url_path, "
        "url_query), which the outcome procedure reproduces as Common Crawl reads them, not "
        "a robots.txt path",
    ("_policy.py", 'target = urljoin(self.url, location).partition("#")[0]'):
        "a redirect's Location resolved against the request URL and its fragment dropped "
        "(RFC 9110 10.2.2): the HTTP policy owns redirects; the result is fetched, not matched",
    ("_checks.py", "parts = urlsplit(value) if value else None"):
        "a Sitemap line's value checked as an absolute URL (RFC 9309 2.2.4, L017): "
        "a URL the file names, never matched against rules",
    ("_tokenize.py", 'hash_at = line.find("#")'):
        "a robots.txt comment (RFC 9309 2.2: '#' starts one), not a URL",
    ("_tokenize.py", 'hash_at = seg.find("#")'):
        "a robots.txt comment (RFC 9309 2.2: '#' starts one), not a URL",
    ("cli/_ui.py", 'hash_at = shown.find("#", rest)'):
        "the comment of a robots.txt line shown dim on a terminal, not a URL",
    ("cli/_lint.py", "hosts = {urlsplit(u).hostname for u, _ in redirects}"):
        "the hosts of a fetch's redirect chain, for a message; nothing is matched",
    ("compat.py", "parts = urllib.parse.urlparse(url)"):
        "urllib.robotparser's set_url(): the drop-in keeps the host and path it was given, "
        "as the standard library does (its robots.txt URL; queries go through the core)",
    ("web/_fetch.py", "parts = urlsplit(url)"):
        "the web tester rebuilds the URL a person typed in ASCII (IDNA host) before the "
        "address guard connects; the rules never see it",
    ("web/_fetch.py",
     'ascii_url = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))'):
        "the same URL put back together for the fetch (see the line above)",
    ("guard/webbotauth.py", "parts = urlsplit(url.strip())"):
        "a Web Bot Auth Signature-Agent URL (an HTTP message signature's key directory), "
        "not a crawled URL",
    ("guard/ranges.py", 'raw = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]'):
        "a comment in a published IP range list, not a URL",
    ("aipref/findings.py", "parts = urlsplit(value)"):
        "an RSL License line's value checked as an absolute URL (a finding), never matched",
}


def _sources() -> list[tuple[str, Path]]:
    out = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix in (".py", ".pyx", ".pxi") and "__pycache__" not in path.parts:
            out.append((path.relative_to(PACKAGE).as_posix(), path))
    return out


def _is_name(node: ast.AST) -> bool:
    """A dialect name, or a tuple / list / set holding one."""
    if isinstance(node, ast.Constant):
        return node.value in DIALECT_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_name(e) for e in node.elts)
    return False


def _dialect_hits(path: Path) -> list[int]:
    """Lines that compare with a dialect name: ``==``, ``!=``, ``in``, ``not in``, ``is``, or a
    ``case`` pattern of a ``match``."""
    text = path.read_text("utf-8")
    if path.suffix != ".py":
        names = "|".join(sorted(DIALECT_NAMES))
        pattern = re.compile(
            rf"""(?:[=!]=|\bin|\bis)\s*[(\[{{]?\s*['"](?:{names})['"]"""
            rf"""|['"](?:{names})['"]\s*(?:[=!]=|\bin\b|\bnot\s+in\b)""")
        return [n for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
    hits = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Compare):
            if any(_is_name(side) for side in (node.left, *node.comparators)):
                hits.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _is_name(node.value):
            hits.append(node.lineno)
    return hits


def _url_hits(path: Path) -> list[int]:
    """Lines that split a URL: the urllib splitters, or a string cut at ``?`` or ``#``."""
    text = path.read_text("utf-8")
    if path.suffix != ".py":
        pattern = re.compile(
            r"\b(?:" + "|".join(sorted(_SPLITTERS)) + r")\s*\("
            r"""|\.(?:""" + "|".join(sorted(_CUTS)) + r""")\(\s*['"][?#]['"]""")
        return [n for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
    hits = []
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else (
            func.id if isinstance(func, ast.Name) else "")
        cut = (name in _CUTS and isinstance(func, ast.Attribute) and bool(node.args)
               and isinstance(node.args[0], ast.Constant) and node.args[0].value in ("?", "#"))
        if name in _SPLITTERS or cut:
            hits.append(node.lineno)
    return hits


def _found(homes: frozenset[str], hits_of: object) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = {}
    for rel, path in _sources():
        if rel in homes:
            continue
        lines = path.read_text("utf-8").splitlines()
        for n in hits_of(path):  # type: ignore[operator]
            out[(rel, lines[n - 1].strip())] = n
    return out


def _report(found: dict[tuple[str, str], int], allowed: dict[tuple[str, str], str]) -> str:
    extra = [f"  {rel}:{n}: {line}" for (rel, line), n in sorted(found.items())
             if (rel, line) not in allowed]
    stale = [f"  {rel}: {line}" for rel, line in sorted(allowed) if (rel, line) not in found]
    out = []
    if extra:
        out.append("outside their home:\n" + "\n".join(extra))
    if stale:
        out.append("allow-list entries that match nothing any more (delete them):\n"
                   + "\n".join(stale))
    return "\n".join(out)


def test_no_dialect_name_is_compared_outside_the_dialect_specs() -> None:
    """A comparison with a dialect's name is a dialect difference outside ``DialectSpec``."""
    problems = _report(_found(DIALECT_HOME, _dialect_hits), DIALECT_ALLOWED)
    assert not problems, problems


def test_no_url_is_split_outside_the_url_homes() -> None:
    """A URL split outside ``_url.py`` / ``_origin.py`` is a second URL-to-path."""
    problems = _report(_found(URL_HOMES, _url_hits), URL_ALLOWED)
    assert not problems, problems


DIALECT_LIST_HOMES = frozenset({"_dialects.py", "_types.py"})  # the specs; the Literal alias
VOCABULARY_HOME = frozenset({"aipref/vocabulary.py"})


# (file, the source line stripped) -> why the list is not the AIPREF vocabulary's
VOCABULARY_ALLOWED: dict[tuple[str, str], str] = {
    ("aipref/rsl.py",
     'RSL_USAGES: Final = ("all", "ai-all", "ai-train", "ai-input", "ai-index", "search")'):
        "RSL 1.0's own usage tokens (<permits type=\"usage\">), another standard's list",
}


def _labels() -> frozenset[str]:
    from robotrules.aipref.vocabulary import CONTENT_SIGNAL_KEYS, VOCABULARIES

    return frozenset({k for v in VOCABULARIES.values() for k in v.labels}
                     | set(CONTENT_SIGNAL_KEYS))


def _listed(path: Path, names: frozenset[str]) -> list[int]:
    """Lines of a literal tuple, list, set or dict (its keys) holding two or more ``names``."""
    if path.suffix != ".py":
        quoted = "|".join(re.escape(n) for n in sorted(names))
        pattern = re.compile(rf"""['"](?:{quoted})['"]\s*,\s*['"](?:{quoted})['"]""")
        return [n for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
                if pattern.search(line)]
    hits = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        elts = node.keys if isinstance(node, ast.Dict) else (
            node.elts if isinstance(node, ast.Tuple | ast.List | ast.Set) else [])
        found = {e.value for e in elts if isinstance(e, ast.Constant) and e.value in names}
        if len(found) >= 2:
            hits.append(node.lineno)
    return hits


def _path_hits(path: Path) -> list[int]:
    """Lines that read a URL's path by hand: a cut at ``://``, or the ``path`` of a name a
    urllib splitter gave."""
    text = path.read_text("utf-8")
    if path.suffix != ".py":
        pattern = re.compile(r"""\.(?:""" + "|".join(sorted(_CUTS)) + r""")\(\s*['"]://['"]""")
        return [n for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
    tree = ast.parse(text)
    split_names = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                   and isinstance(node.value, ast.Call) and _call_name(node.value) in _SPLITTERS
                   for t in node.targets if isinstance(t, ast.Name)}
    hits = []
    for node in ast.walk(tree):
        cut = isinstance(node, ast.Call) and _call_name(node) in _CUTS and bool(node.args) and (
            isinstance(node.args[0], ast.Constant) and node.args[0].value == "://")
        read = isinstance(node, ast.Attribute) and node.attr == "path" and (
            isinstance(node.value, ast.Name) and node.value.id in split_names)
        if cut or read:
            hits.append(node.lineno)
    return hits


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else (
        func.id if isinstance(func, ast.Name) else "")


# (file, the source line stripped) -> why it reads a path there
PATH_ALLOWED: dict[tuple[str, str], str] = {
    ("dataset/warc.py", 'cols["url_path"].append(parts.path)'):
        "Common Crawl's url_path column, as its URL index writes it (see URL_ALLOWED)",
    ("dataset/engines.py",
     'host = master.partition("://")[2].split(":")[0].split(",")[0]'):
        "a Spark master URL (spark://host:port[,host:port]), not a web URL",
    ("compat.py", "self.host, self.path = parts.netloc, parts.path"):
        "urllib.robotparser's set_url() keeps the host and path it was given, as the "
        "standard library does; queries go through the core",
    ("web/_fetch.py",
     'ascii_url = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))'):
        "the web tester puts the URL a person typed back together for the fetch",
    ("guard/webbotauth.py", "return origin, parts.path"):
        "a Signature-Agent may name its key directory by a full URL (the draft's 'a URL to a "
        "key directory'): that URL's own path, fetched as given; the origin comes from _origin",
}


def test_no_module_lists_the_dialects_by_hand() -> None:
    """A list of dialect names outside ``_dialects`` is a second list (``NAMES`` is the one)."""
    def hits(path: Path) -> list[int]:
        return _listed(path, DIALECT_NAMES)
    problems = _report(_found(DIALECT_LIST_HOMES, hits), {})
    assert not problems, problems


def test_no_module_lists_the_vocabulary_by_hand() -> None:
    """The categories and Content-Signal keys are listed in ``aipref/vocabulary.py`` alone."""
    labels = _labels()

    def hits(path: Path) -> list[int]:
        return _listed(path, labels)
    problems = _report(_found(VOCABULARY_HOME, hits), VOCABULARY_ALLOWED)
    assert not problems, problems


def test_no_url_path_is_read_outside_the_url_homes() -> None:
    """A URL's path read by hand outside ``_url.py`` / ``_origin.py`` is a second reading."""
    problems = _report(_found(URL_HOMES, _path_hits), PATH_ALLOWED)
    assert not problems, problems


def test_the_scanners_see_what_they_guard(tmp_path: Path) -> None:
    """The scanners themselves, on a file of each kind of hit (and of near misses)."""
    py = tmp_path / "x.py"
    py.write_text(
        'if dialect == "1994": pass\n'          # 1
        'ok = name != "google"\n'                # 2
        'ok = d in ("rfc9309", "x")\n'           # 3
        'ok = spec.first_match\n'                # 4: not a hit
        'NAMES = ("rfc9309", "google")\n'        # 5: a list of names, not a comparison
        'match d:\n    case "google": pass\n'    # 7
        'p = urlsplit(u)\n'                      # 8
        'a, _, b = url.partition("#")\n'         # 9
        'q = url.split("?", 1)\n'                # 10
        'r = url.split("/")\n'                   # 11: not a hit
        'import urllib.parse; urllib.parse.urlparse(u)\n',  # 12
        "utf-8")
    assert _dialect_hits(py) == [1, 2, 3, 7]
    assert sorted(_url_hits(py)) == [8, 9, 10, 12]
    pyx = tmp_path / "x.pyx"
    pyx.write_text('if dialect == "google":\n    x = 1\ncdef tuple N = ("rfc9309",)\n'
                   's = u.partition("?")\n', "utf-8")
    assert _dialect_hits(pyx) == [1]
    assert _url_hits(pyx) == [4]


def test_the_new_scanners_see_what_they_guard(tmp_path: Path) -> None:
    """The list and path scanners on a file of each kind of hit (and near misses)."""
    py = tmp_path / "x.py"
    py.write_text(
        'A = ("rfc9309", "google")\n'                    # 1: a dialect list
        'B = ["google"]\n'                               # 2: one name, not a list
        'C = {"train-ai": 1, "search": 2}\n'             # 3: a vocabulary list (dict keys)
        'D = ("ai-train", "ai-input")\n'                 # 4: Content-Signal keys
        'p = urlsplit(u)\n'                              # 5
        'x = p.path\n'                                   # 6: a path read by hand
        'y = u.partition("://")\n'                       # 7: a cut at the scheme
        'z = other.path\n',                              # 8: not from a splitter
        "utf-8")
    assert _listed(py, DIALECT_NAMES) == [1]
    assert _listed(py, _labels()) == [3, 4]
    assert sorted(_path_hits(py)) == [6, 7]
