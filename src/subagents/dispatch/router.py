"""Rank agents for a request: keyword match plus a field-weighted BM25.

The router serves three callers: Codex-style ``keywords`` auto-routing, the Task
tool's shortlist when there are too many agents to list (``task_tool``), and ``subagents route``
/ ``subagents test`` (does each usage example reach its agent?).

Design decisions
----------------
* **Fields, not one bag of words.**  A name and a curated keyword list say far more about what
  an agent is for than a 10,000-character body that mentions every neighbouring technology, so
  each field gets its own BM25 index (via ``bm25s``, imported lazily) and the scores are added
  with weights (name and keywords high, description middle, body low): a simple BM25F.  The
  baseline in ``bench/bench_route.py`` is one plain BM25 over name + description + body.
* **Keywords are a hard signal**: a keyword of the agent,
  one or several words, found as a phrase in the request adds a fixed bonus on top of BM25.
* **Tokens.**  Lower-case words; ``c++``/``c#``/``.net``/``node.js``-style names survive as
  ``cpp``/``csharp``/``dotnet``/``nodejs``; dotted and hyphenated words also yield their joined
  form, and adjacent query words are tried joined (``react native`` -> ``reactnative``) so a
  request finds ``react-native-expert``.  A small suffix stemmer (no dependency; PyStemmer is
  not installed) folds ``tests``/``testing``/``tester`` onto ``test``; it only has to be
  consistent between index and query, not linguistically right.  Words that appear in almost
  every agent file (``agent``, ``expert``, ``use``, ``proactively``...) are stop words, and so
  are everyday verbs and pronouns that carry no domain (``may``, ``keep``, ``get``, ``show``,
  ``someone``): in a request phrased as a user talks they otherwise decide between agents
  whose long prompts happen to use them.
* **Generic role words.**  Names are short, so a name word gets a high BM25 score however
  ordinary it is: "manage" picked context-manager for "manage ten thousand sensors", "check"
  picked deploy-checker for "check this PR".  A word used by more than 5% of the collection's
  descriptions is a role word of that collection and weighs less in a name.  Bare numbers in
  a request weigh less too ("takes 8 seconds" is not .NET 4.8).  Both were found on the dev
  half of the hard labelled set and checked on its held-out half (``bench/bench_route.py``).
* **Why.**  Every ranked agent carries the words that scored and in which field, so a user can
  see what decided a route and ``subagents test`` can say why an example went elsewhere.
  Explaining costs one BM25 lookup per query word, so it is done only for the agents returned.
* **Similar agents**: ``find_similar_agents`` compares descriptions by the
  cosine of their TF-IDF vectors (same tokeniser); pairs above the threshold are too close for a
  model to choose between.  Pure Python: ``validate`` must stay fast and import nothing heavy.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from subagents.definition import AgentDefinition
from subagents.lint.similarity import SIMILAR_THRESHOLD, find_similar_agents, stem, tokenize
from subagents.lint.similarity import SPLIT_RE as _SPLIT_RE
from subagents.lint.similarity import STOPWORDS as _STOPWORDS
from subagents.lint.similarity import words as _words

__all__ = [
    "DEFAULT_WEIGHTS",
    "SIMILAR_THRESHOLD",
    "RouteMatch",
    "Router",
    "find_similar_agents",
    "stem",
    "tokenize",
]

# Field weights.  First set (name 3, description 1, body 0.3) before the easy labelled set was
# written; re-tuned by a grid on the *dev* halves of both sets once the hard set
# (bench/data/route_labels_hard.jsonl: symptoms and goals, no technology word) existed: on it
# the system prompt is where the user's everyday words are, so the body weighs more, and a
# lighter name (its generic words are handled by ``Router._field_weight``) stops "check" or
# "page" from picking deploy-checker or landing-page-copywriter.
DEFAULT_WEIGHTS: dict[str, float] = {
    "name": 2.0,
    "keywords": 3.0,
    "description": 1.5,
    "body": 1.0,
}
# A word in more than this share of the descriptions (and at least GENERIC_DF_MIN of them) is
# generic: it earns only GENERIC_NAME_WEIGHT of the name weight (``Router._field_weight``).
GENERIC_DF_SHARE = 0.05
GENERIC_DF_MIN = 2
GENERIC_NAME_WEIGHT = 0.5
# Weight of a bare number in a query (``Router._weighted_tokens``).
NUMBER_WEIGHT = 0.3
# BM25 parameters (bm25s defaults).
BM25_K1 = 1.5
BM25_B = 0.75
# Added once per agent keyword found as a phrase in the request.
KEYWORD_BONUS = 4.0

def _name_tokens(name: str) -> list[str]:
    """Tokens of an agent name, plus the name's meaningful parts joined (react-native-expert
    -> react, native, reactnative)."""
    parts = [p for p in _SPLIT_RE.split(name.lower().replace("_", "-")) if p]
    meaningful = [p for p in parts if p not in _STOPWORDS]
    toks = tokenize(name.replace("-", " ").replace("_", " "), joined=False)
    if len(meaningful) > 1:
        toks.append("".join(meaningful))
    return toks


def _surface_words(text: str) -> dict[str, str]:
    """Token -> the first word of ``text`` it came from (``merg`` -> ``merge``)."""
    out: dict[str, str] = {}
    raw = [w for w in _words(text) if w not in _STOPWORDS]
    for word in _words(text):
        parts = [p for p in _SPLIT_RE.split(word) if p]
        for part in parts:
            out.setdefault(stem(part), part)
        if len(parts) > 1:
            out.setdefault("".join(parts), word)
    for a, b in itertools.pairwise(raw):
        out.setdefault((a + b).replace(".", "").replace("-", ""), f"{a} {b}")
    return out


def _query_tokens(text: str, vocabulary: frozenset[str]) -> list[str]:
    """Query tokens, deduplicated, plus adjacent words joined when the index knows the result."""
    base = tokenize(text)
    raw = [w for w in _words(text) if w not in _STOPWORDS]
    extra: list[str] = []
    for a, b in itertools.pairwise(raw):
        j = (a + b).replace(".", "").replace("-", "")
        if j in vocabulary:
            extra.append(j)
    seen: dict[str, None] = {}
    for t in base + extra:
        seen.setdefault(t, None)
    return list(seen)


@dataclass(frozen=True, slots=True)
class RouteMatch:
    """One ranked agent: ``agent``, its ``score`` and ``why`` (readable reasons)."""

    agent: AgentDefinition
    score: float
    why: tuple[str, ...] = ()
    terms: dict[str, float] = field(default_factory=dict, compare=False)

    def __iter__(self) -> Any:
        # So that ``agent, score, why = match`` works, as the contract has tuples.
        return iter((self.agent, self.score, self.why))


_FIELDS = ("name", "keywords", "description", "body")


class Router:
    """Ranks a fixed set of agents for free-text requests.

    Build it once per set of agents (indexing 200 agents takes milliseconds); ``route`` is then
    cheap.  ``use_body=False`` ignores the system prompts (the Task tool shortlist, where only
    what the model will see matters, can still use them; the default is to use them).
    """

    def __init__(
        self,
        agents: Iterable[AgentDefinition],
        *,
        weights: dict[str, float] | None = None,
        keyword_bonus: float = KEYWORD_BONUS,
        use_body: bool = True,
    ) -> None:
        self.agents: tuple[AgentDefinition, ...] = tuple(agents)
        self.weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
        if not use_body:
            self.weights["body"] = 0.0
        self.keyword_bonus = keyword_bonus
        docs: dict[str, list[list[str]]] = {f: [] for f in _FIELDS}
        self._keyword_phrases: list[list[tuple[str, tuple[str, ...]]]] = []
        for agent in self.agents:
            docs["name"].append(_name_tokens(agent.name))
            kw_tokens: list[str] = []
            phrases: list[tuple[str, tuple[str, ...]]] = []
            for kw in agent.keywords:
                toks = tuple(tokenize(kw, joined=False))
                if toks:
                    phrases.append((kw, toks))
                    kw_tokens.extend(toks)
            self._keyword_phrases.append(phrases)
            docs["keywords"].append(kw_tokens)
            docs["description"].append(tokenize(agent.description))
            docs["body"].append(tokenize(agent.system_prompt) if self.weights["body"] else [])
        self._indices: dict[str, Any] = {}
        # Document frequency of each word over the descriptions (see ``_field_weight``).
        self._desc_df: Counter[str] = Counter()
        for d in docs["description"]:
            self._desc_df.update(set(d))
        self._generic_df = max(GENERIC_DF_MIN, GENERIC_DF_SHARE * len(self.agents))
        vocab: set[str] = set()
        for f in _FIELDS:
            if not self.weights.get(f) or not any(docs[f]):
                continue
            self._indices[f] = _bm25_index(docs[f])
            for d in docs[f]:
                vocab.update(d)
        self.vocabulary: frozenset[str] = frozenset(vocab)

    def __len__(self) -> int:
        return len(self.agents)

    def scores(self, text: str) -> list[float]:
        """The score of every agent, in ``self.agents`` order."""
        total = [0.0] * len(self.agents)
        tokens = _query_tokens(text, self.vocabulary)
        if not tokens or not self.agents:
            return total
        weighted = self._weighted_tokens(tokens)
        for f, index in self._indices.items():
            # BM25 is a sum over query words, so words of equal weight share one lookup
            # (usually one or two lookups per field instead of one per word).
            groups: dict[float, list[str]] = {}
            for t, w in weighted:
                fw = self._field_weight(f, t) * w
                if fw:
                    groups.setdefault(fw, []).append(t)
            for fw, group in groups.items():
                s = index.get_scores(group)
                for i in range(len(total)):
                    total[i] += fw * float(s[i])
        if self.keyword_bonus:
            for i, hits in enumerate(self._keyword_hits(tokens)):
                total[i] += self.keyword_bonus * len(hits)
        return total

    def _field_weight(self, f: str, token: str) -> float:
        """A field's weight for one query word.  A word in many agents' descriptions is a
        generic role word (manage, check, build, page...): in a *name* it says no more than in
        a description, so it gets ``GENERIC_NAME_WEIGHT`` of the name weight; words the
        descriptions rarely use (react, migration, accessibility...) get all of it.  This is
        the collection's own role vocabulary: nothing is listed by hand."""
        w = self.weights[f]
        if f == "name" and self._desc_df.get(token, 0) > self._generic_df:
            return GENERIC_NAME_WEIGHT * w
        return w

    @staticmethod
    def _weighted_tokens(tokens: Sequence[str]) -> list[tuple[str, float]]:
        """The query's words and their weights: a bare number ("8 seconds", "v2") weighs
        ``NUMBER_WEIGHT``, as it names a version only next to the technology word, which
        scores on its own (else "takes 8 seconds" picks dotnet-framework-4.8-expert)."""
        return [(t, NUMBER_WEIGHT if t.isdigit() else 1.0) for t in tokens]

    def _keyword_hits(self, tokens: Sequence[str]) -> list[list[str]]:
        tokset = set(tokens)
        joined = " " + " ".join(tokens) + " "
        hits: list[list[str]] = []
        for phrases in self._keyword_phrases:
            found = []
            for kw, toks in phrases:
                if len(toks) == 1:
                    if toks[0] in tokset:
                        found.append(kw)
                elif " " + " ".join(toks) + " " in joined:
                    found.append(kw)
            hits.append(found)
        return hits

    def keyword_route(self, text: str) -> AgentDefinition | None:
        """Codex-style keyword auto-routing: the one agent whose ``keywords`` the request hits
        most, or ``None`` when no agent's keyword appears or two agents tie."""
        hits = self._keyword_hits(_query_tokens(text, self.vocabulary))
        counts = sorted(((len(h), i) for i, h in enumerate(hits) if h), reverse=True)
        if not counts or (len(counts) > 1 and counts[0][0] == counts[1][0]):
            return None
        return self.agents[counts[0][1]]

    def route(self, text: str, *, top: int = 5, explain: bool = True) -> list[RouteMatch]:
        """The ``top`` best agents for ``text``, best first; agents scoring 0 are left out."""
        all_scores = self.scores(text)
        order = sorted(range(len(self.agents)), key=lambda i: (-all_scores[i], self.agents[i].name))
        chosen = [i for i in order if all_scores[i] > 0][: max(top, 0)]
        if not explain:
            return [RouteMatch(self.agents[i], all_scores[i]) for i in chosen]
        cache: dict[tuple[str, str], Any] = {}  # one lookup per (field, word) for all agents
        return [self._explain(text, i, all_scores[i], cache) for i in chosen]

    def explain(self, text: str, agent_name: str) -> RouteMatch | None:
        """Score and reasons for one named agent (``subagents test`` compares two)."""
        for i, agent in enumerate(self.agents):
            if agent.name == agent_name:
                return self._explain(text, i, self.scores(text)[i])
        return None

    def _explain(
        self, text: str, i: int, score: float, cache: dict[tuple[str, str], Any] | None = None
    ) -> RouteMatch:
        tokens = _query_tokens(text, self.vocabulary)
        # Reasons name the user's own words ("merge"), not their stems ("merg").
        shown = _surface_words(text)
        terms: dict[str, float] = {}
        per_field: dict[str, list[tuple[str, float]]] = {}
        for f, index in self._indices.items():
            for t, qw in self._weighted_tokens(tokens):
                # The same weights as ``scores``, so the reasons add up to the score.
                fw = qw * self._field_weight(f, t)
                if not fw:
                    continue
                if cache is None or (f, t) not in cache:
                    per_word = index.get_scores([t])
                    if cache is not None:
                        cache[(f, t)] = per_word
                else:
                    per_word = cache[(f, t)]
                s = fw * float(per_word[i])
                if s > 0:
                    word = shown.get(t, t)
                    terms[word] = terms.get(word, 0.0) + s
                    per_field.setdefault(f, []).append((word, s))
        why: list[str] = []
        kw_hits = self._keyword_hits(tokens)[i] if self.keyword_bonus else []
        if kw_hits:
            why.append("keyword match " + ", ".join(repr(k) for k in kw_hits))
            for kw in kw_hits:
                terms[kw] = terms.get(kw, 0.0) + self.keyword_bonus
        for f in _FIELDS:
            if f in per_field:
                items = sorted(per_field[f], key=lambda x: -x[1])
                why.append(f"{f}: " + ", ".join(f"{t} ({s:.2f})" for t, s in items[:6]))
        return RouteMatch(self.agents[i], score, tuple(why), terms)


def _bm25_index(corpus: list[list[str]]) -> Any:
    try:
        import bm25s  # heavy (numpy, scipy-free but still ~50 ms): only when routing
    except ImportError as exc:
        from subagents._deps import missing_dependency

        raise missing_dependency(exc, "routing") from None

    # An empty document breaks nothing, but bm25s wants at least one token overall.
    index = bm25s.BM25(k1=BM25_K1, b=BM25_B)
    index.index([doc or [""] for doc in corpus], show_progress=False)
    return index
