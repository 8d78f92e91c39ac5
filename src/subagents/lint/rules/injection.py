"""Prompt-injection detection: normalise the text, look for signals in several views of it,
and say how sure we are.

Design notes
------------
* **Normalise first.**  :func:`normalise` applies NFKC, removes invisible characters
  (zero-width, bidi controls, variation selectors, soft hyphens, tag characters), folds
  letters that look like ASCII (Cyrillic ``а``, Greek ``ο``... from Unicode's confusables data,
  see :mod:`._confusables`) to ASCII, case-folds, and collapses whitespace, so that line breaks
  cannot split a phrase.  It is idempotent and total (a hypothesis test says so).
* **Several views.**  The signals are searched in: the normalised text; the same text with the
  confusables *not* folded (Russian, Greek and other scripts keep their own letters); a
  "squeezed" text of letters only, leet digits read as letters (``1gn0r3``, ``i g n o r e``,
  ``dis-\\nregard``); and *hidden* views: HTML comments, Markdown link titles, targets and
  ``[//]: #`` comments, and decoded runs of base64, hex, ``\\xNN``, percent-encoding, HTML
  entities and Unicode tag characters.
* **Signals**, in English, German, Spanish, French, Italian, Portuguese, Chinese, Japanese and
  Russian: ``override`` (ignore your instructions, the earlier rules no longer apply...),
  ``jailbreak`` (role play without restrictions, developer mode), ``fake-role`` (a forged
  ``system:`` turn or chat-template token), ``leak`` (print your system prompt), ``exfil``
  (send secrets or files to an address), ``destructive`` (``rm -rf ~``, ``curl ... | sh``,
  delete the repository), ``conceal`` (do not tell the user).  A signal does not count when
  its sentence frames it as a description ("detect prompts that...", "such as"), when it is
  quoted, or negated right before it ("never send secrets...").
* **Confidence.**  ``high``: an override, jailbreak or forged turn together with another kind
  of signal in the same passage; exfiltration with concealment; or any signal that was
  hidden (found only in a comment, a decoded run, or only after removing invisible
  characters or folding look-alike letters: disguise is itself evidence).  ``medium``: one
  signal alone.  SA405 (an error; ``run`` refuses the agent unless
  ``--allow-flagged-prompt``) is ``high``; SA406 (a warning with the measured rates) is
  ``medium``.  Text fetched by tools is wrapped as data at either level, with a warning.
* **Compiled when needed.**  Compiling every pattern costs more than reading and judging a
  small agent file, so each is compiled once per process on first use, and a signal is not
  even compiled for a text that holds none of the literals it cannot match without (a
  generated table, :mod:`subagents.lint.rules.prefilter`; tests check it is current and
  that it changes no finding).
* The figures are measured by :mod:`subagents.lint.rules.injection_eval` on a development
  set (``tests/data/injection/dev.jsonl``, the only one the patterns were tuned on) and a
  held-out set written apart from the detector; docs/security.md has both.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import re
import unicodedata
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["HELDOUT_RATES", "InjectionFinding", "assess_injection", "normalise"]

Confidence = Literal["high", "medium"]

#: Precision and recall of the ``medium``-or-higher level on the held-out set, quoted in the
#: SA406 warning (measured by :mod:`subagents.lint.rules.injection_eval`).
HELDOUT_RATES: tuple[float, float] | None = (1.000, 0.722)


@dataclass(frozen=True, slots=True)
class InjectionFinding:
    """Where (an offset into the original text, approximate for hidden views), what was
    found, how sure, and in which view (``text``, ``squeezed``, ``comment``, ``base64``...)."""

    offset: int
    signals: tuple[str, ...]
    confidence: Confidence
    view: str


# ------------------------------------------------------------------------------ normalising

_INVISIBLE = (
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# Runs of blanks become one space and a break with blanks around it one newline: patterns may
# cross a line break (``\s``) where a phrase allows it, and windows (``[^\n]``) stop at it.
_BLANKS = re.compile(r"[^\S\n]+")
_BREAKS = re.compile(r" ?\n[\s]*")
@functools.cache
def _fold_table() -> dict[int, str]:
    """The confusables and :data:`_EXTRA_FOLD`, one table (one ``translate`` pass)."""
    from subagents.lint.rules._confusables import FOLD

    return {ord(k): v for k, v in (FOLD | _EXTRA_FOLD).items()}


# Greek and other letters close enough to ASCII to read as it, that the confusables data
# leaves out (it lists only near-identical shapes).
_EXTRA_FOLD = {"τ": "t", "η": "n", "υ": "u", "ω": "w", "κ": "k", "ρ": "p", "ν": "v", "ε": "e",
               "ι": "i", "χ": "x", "β": "b", "μ": "u", "ѕ": "s", "ԁ": "d", "ɡ": "g", "ʀ": "r"}


def _once(text: str, fold: bool) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = _re(_INVISIBLE).sub("", text)
    if fold and not text.isascii():
        text = text.translate(_fold_table())
    text = text.casefold()
    return _BREAKS.sub("\n", _BLANKS.sub(" ", text)).strip()


_WS_RUN = r"\s+"


def _mapped(text: str, fold: bool) -> tuple[str, list[int]]:
    """:func:`normalise` character by character (so NFKC does not compose across characters),
    with the offset in ``text`` of every character of the result: findings are reported at
    the line the user wrote them on."""
    if text.isascii():
        low, index = text.lower(), None
    else:
        parts: list[str] = []
        positions: list[int] = []
        table = _fold_table()
        for i, ch in enumerate(text):
            if ch.isascii():
                piece = ch.lower()
            else:
                piece = _re(_INVISIBLE).sub("", unicodedata.normalize("NFKC", ch))
                if fold:
                    piece = piece.translate(table)
                piece = piece.casefold()
            parts.append(piece)
            positions.extend([i] * len(piece))
        low, index = "".join(parts), positions
    out: list[str] = []
    where: list[int] = []
    last = 0
    for m in _re(_WS_RUN).finditer(low):
        out.append(low[last:m.start()])
        where.extend(range(last, m.start()) if index is None else index[last:m.start()])
        last = m.end()
        if m.start() == 0 or m.end() == len(low):
            continue  # as in :func:`_collapse`: none at either end
        out.append("\n" if "\n" in m.group(0) else " ")
        where.append(m.start() if index is None else index[m.start()])
    out.append(low[last:])
    where.extend(range(last, len(low)) if index is None else index[last:])
    return "".join(out), where


def _collapse(text: str) -> str:
    """Blanks to one space, a break with blanks around it to one newline, none at either
    end (``str.split`` runs in C: several times faster than two ``re.sub``)."""
    return "\n".join(filter(None, (" ".join(line.split()) for line in text.split("\n"))))


def _fast(text: str, fold: bool) -> str:
    """About what :func:`_mapped` returns as text (NFKC over the whole text, so composed
    where it composes), without the offsets: C-speed string methods; the offsets are worked
    out only for a finding."""
    if text.isascii():
        return _collapse(text.lower())
    text = unicodedata.normalize("NFKC", text)
    if _rx("invisible").search(text):
        text = _re(_INVISIBLE).sub("", text)
    if fold and _rx("foldable").search(text):
        text = text.translate(_fold_table())
    return _collapse(text.casefold())


def normalise(text: str, *, fold: bool = True) -> str:
    """NFKC, invisible characters removed, look-alike letters folded to ASCII (``fold``),
    case-folded, blanks collapsed to one space and line breaks to one newline.
    ``normalise(normalise(t)) == normalise(t)`` for every string: the steps repeat until
    nothing changes (case-folding can produce text that NFKC changes again)."""
    out = _once(text, fold)
    for _ in range(4):
        again = _once(out, fold)
        if again == out:
            return out
        out = again
    return out


# --------------------------------------------------------------------------------- patterns
# Each signal: one case-insensitive regex over a normalised view (lower case, one space).

_INSTR = (r"(?:instructions?|instruction set|rules|guidelines|guidance|directions|directives|"
          r"orders|prompts?|system prompt|constraints|restrictions|polic(?:y|ies))")
_EARLIER = (r"(?:previous|prior|above|earlier|preceding|original|initial|old|existing|"
            r"system|safety|developer'?s?|operator'?s?|other|given|current|these|those)")
_OVERRIDE = (
    # English
    r"\b(?:ignore|disregard|forget|override|bypass|discard|abandon|"
    r"set aside|put aside|throw out|pay no attention to|stop (?:obeying|following)|"
    r"(?:do not|don't|no longer) (?:follow|obey))\s+(?:about\s+)?"
    r"(?:all\s+|any\s+|the\s+|your\s+|my\s+|every\s+|of\s+|everything\s+)*"
    r"(?:" + _EARLIER + r"\s+)*" + _INSTR +
    r"|\b(?:ignore|disregard|forget|override|bypass|abandon|set aside|put aside|"
    r"stop obeying) (?:your|the|all|any) (?:original |earlier |previous |initial )?"
    r"(?:setup|configuration|programming|training)\b"
    r"|\bforget (?:everything|all) (?:you (?:were|have been) (?:told|given)|above|before)"
    r"|\b(?:ignore|disregard) (?:everything|all|anything) (?:above|before|said|you were told)"
    r"|\b(?:" + _EARLIER + r"|your|the) (?:" + _INSTR + r"|guidance you received)"
    r"(?: [\w' ]{0,40}?)? (?:(?:are|is) (?:now )?(?:void|null|outdated|obsolete|cancel+ed|"
    r"revoked|invalid|superseded|a test|irrelevant)|no longer appl(?:y|ies)|can be "
    r"(?:dropped|ignored|discarded|disregarded)|do not apply|don't apply)"
    r"|\beverything (?:the (?:developer|operator|system)|you were) (?:told|said|given)"
    r"(?: you)? (?:is|was) (?:outdated|void|wrong|a test)"
    r"|\bnew (?:instructions|rules|orders|directives|policy)\s*:"
    r"|\byour (?:new|real|true) (?:task|role|instructions?|job|purpose|goal) "
    r"(?:is|are|now)\b|\bthe real instructions\b"
    r"|\btreat (?:this|the following) (?:text|file|message|note) as your (?:only|new|real) "
    r"instructions|\bact only on what i say|\bobey only (?:the|this|me)\b"
    r"|\b(?:this|these) (?:instructions?|text|note) (?:take|takes|has|have) (?:priority|"
    r"precedence)|\bpriority override\b|\bsystem override\b"
    r"|\b(?:has|have) (?:now )?authori[sz]ed you to\b|\byou are now (?:allowed|permitted|"
    r"authori[sz]ed) to\b"
    r"|\byou are no longer bound\b|\byou (?:no longer|don't|do not) (?:need to )?follow "
    r"(?:any|your|the)\b"
    # German
    r"|\b(?:ignorier(?:e|en|t)?|vergiss|vergessen sie|missachte(?:n)?|übergehe|"
    r"beachte(?:n sie)?)\b[^.!?\n]{0,40}?\b(?:anweisungen|instruktionen|regeln|vorgaben|"
    r"richtlinien|systemanweisungen|systemprompt|befehle)"
    r"|\bneue anweisungen\s*:|\bbeachte[^.!?\n]{0,30}\bnicht mehr\b"
    # Spanish
    r"|\b(?:ignora|ignore|ignorad|olvida|olvide|olvidad|omite|descarta|haz caso omiso de|"
    r"no sigas|deja de seguir)\b[^.!?\n]{0,40}?\b(?:instrucciones|reglas|indicaciones|"
    r"directrices|normas|[oó]rdenes)"
    r"|\bnuevas instrucciones\s*:"
    # French
    r"|\b(?:ignore[zr]?|oublie[zr]?|ne tiens? plus compte|ne tenez plus compte|"
    r"fais abstraction|faites abstraction|ne suis plus|ne suivez plus)\b[^.!?\n]{0,40}?"
    r"\b(?:instructions|consignes|r[eè]gles|directives)"
    r"|\bnouvelles (?:instructions|consignes)\s*:"
    # Italian / Portuguese
    r"|\b(?:ignora|dimentica|ignore|esqueça|esqueca|desconsidere)\b[^.!?\n]{0,40}?"
    r"\b(?:istruzioni|regole|instruções|instrucoes|regras)"
    # Russian
    r"|(?:игнорируй|игнорируйте|забудь|забудьте|проигнорируй)[^.!?\n]{0,40}?"
    r"(?:инструкци|правил|указани)"
    # Chinese / Japanese
    r"|(?:忽略|无视|無視|忽视|忘记|忘掉|不要遵守|不要理会|别管|不要遵循)[^。！？\n]{0,20}?"
    r"(?:指令|指示|说明|說明|规则|規則|提示|命令|要求|设定)"
    r"|新的?指令\s*[:：]|(?:以前|前|上記|これまで)の?(?:指示|命令|ルール)[^。\n]{0,10}?無視"
)
_JAILBREAK = (
    r"\byou are now (?:an? )?(?:unrestricted|unfiltered|uncensored|jailbroken|free|dan\b|"
    r"evil|in (?:developer|god|unrestricted) mode)"
    r"|\b(?:you|ai|assistant|model|bot|it)\b[^.\n]{0,30}\b(?:with|has|have|having) no "
    r"(?:restrictions|limitations|limits|rules|filters|"
    r"guidelines|content policy|ethical guidelines|safety rules)"
    r"|\bwithout (?:any|your) (?:of )?(?:your )?(?:usual )?(?:restrictions|limitations|filters|"
    r"content polic(?:y|ies)|safety rules|guidelines)"
    r"|\b(?:developer|god|jailbreak|unrestricted|dan) mode\b|\bdo anything now\b"
    r"|\bnot bound by (?:any )?(?:rules|restrictions|guidelines|policies)"
    r"|\bbroken free of\b|\bstay in character no matter\b|\bnever refuses?\b"
    r"|\bunrestricted (?:assistant|model|ai|mode)\b|\bjailbroken\b"
    r"|\bno longer (?:follow|have|has) (?:any )?(?:safety|content|rules|restrictions)"
    r"|\bohne (?:jegliche |alle )?(?:einschränkungen|beschränkungen|regeln|filter)"
    r"|\bsin (?:ninguna |ningún )?(?:restricciones|límites|limites|reglas|filtros)"
    r"|\bsans (?:aucune )?(?:restriction|limite|règle|regle|filtre)s?"
    r"|\bsenza (?:alcuna )?(?:restrizion|limit|regol)"
    r"|\bsem (?:nenhuma )?(?:restrições|restricoes|limites|regras)"
    r"|без (?:каких-либо )?(?:ограничений|правил)"
    r"|没有任何限制|不受任何限制|没有限制|無制限|制限のない"
)
_FAKE_ROLE = (
    r"<\|(?:im_start|im_end|system|endoftext|start_header_id)\|>"
    r"|(?:^|\n)\s*(?:#{1,6}\s*)?\[?(?:(?:system|administrator|admin) (?:message|note|prompt|"
    r"update|notice)|note (?:to|for) the (?:model|ai|assistant))(?: message| note|"
    r" prompt| update| notice)?\]?\s*:[ \t]*\S"
    r"|\[(?:system|system message|admin|administrator)\]"
    r"|</system>\s*<system>|(?:^|\n)\s*assistant\s*:\s*sure\b"
)
_LEAK = (
    r"\b(?:reveal|print|output|repeat|show|display|disclose|dump|leak|recite|tell me|share|"
    r"write out|list)\b[^.!?\n]{0,40}?\b(?:your|the|its|all)\s+"
    r"(?:full |complete |hidden |entire |initial |original |exact )*"
    r"(?:system prompt|system message|initial (?:prompt|instructions)|hidden (?:instructions|"
    r"configuration|prompt)|(?:original|initial) prompt|context window)"
    r"|\brepeat the (?:text|words|message) above\b|\b(?:word for word|verbatim)\b[^.\n]{0,40}"
    r"\b(?:system prompt|your instructions|initial instructions)\b"
    r"|\b(?:gib|zeige?)\b[^.!?\n]{0,30}(?:systemprompt|systemanweisungen)"
    r"|\b(?:muestra|revela|imprime)\b[^.!?\n]{0,30}(?:prompt del sistema|instrucciones ocultas)"
    r"|\b(?:affiche|révèle|revele|montre)\b[^.!?\n]{0,30}(?:prompt système|prompt systeme|"
    r"consignes)"
    r"|(?:输出|显示|打印|泄露|告诉我)[^。\n]{0,10}(?:系统提示|系统指令|初始指令)"
    r"|システムプロンプトを(?:表示|出力|教えて)"
)
_SECRET = (
    r"~?/?\.ssh\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.aws/credentials|\.netrc\b|"
    r"\.git-credentials\b|/etc/(?:shadow|passwd)\b|(?:^|[^\w.])\.env\b|"
    r"\b(?:anthropic|openai|aws|github)_\w*(?:key|token)\b|"
    r"\b(?:api[\s_-]?keys?|api[\s_-]?tokens?|access tokens?|secret (?:keys?|tokens?)|"
    r"private keys?|passwords?|credentials?|secrets|tokens|environment variables|"
    r"source code|codebase|the repository|whole repository|every file|all files|"
    r"database password)\b"
    r"|\b(?:passwörter|passwort|schlüssel|zugangsdaten|geheimnisse|api-schlüssel)"
    r"|\b(?:contraseñas?|claves?(?: api| de api)?|credenciales|secretos|tokens)\b"
    r"|\b(?:mots de passe|mot de passe|clés?|identifiants|secrets)\b"
    r"|\b(?:password|chiavi|credenziali|senhas?|chaves)\b|(?:пароли|токены|ключи)"
    r"|密钥|密码|令牌|凭证|凭据|秘钥"
)
_ADDRESS = (r"(?:https?://|ftp://|\b\d{1,3}(?:\.\d{1,3}){3}\b|[\w.+-]+@[\w-]+\.[\w.]+|"
            r"pastebin|attacker|my server|(?:to|at|an|a|à) [\w-]+\.(?:com|net|io|org|xyz|ru|cn|"
            r"de|fr|es|it|br|example)\b)")
_SEND = (
    r"\b(?:send|sends|sending|upload|post|exfiltrate|transmit|forward|e-?mail|leak|pipe|"
    r"beacon|append|paste)\b[^\n]{0,160}?(?:" + _ADDRESS + r"|(?:the |a |your )?webhook\b)" +
    r"|\b(?:include|share|copy|put|add)\b[^\n]{0,120}?\b(?:to|at|on)\s+(?:https?://|ftp://|"
    r"\d{1,3}(?:\.\d{1,3}){3}\b)"
    r"|\b(?:curl|wget|nc|netcat)\b[^\n]{0,120}?" + _ADDRESS +
    r"|(?:https?://|ftp://)\S*(?:\?|&)[\w-]*(?:d|q|data|key|token|secret|leak|c)=\S*"
    r"|\b(?:sende|schicke|übermittle|lade)\b[^\n]{0,120}?" + _ADDRESS +
    r"|\b(?:envía|envia|manda|sube|transmite)\b[^\n]{0,120}?" + _ADDRESS +
    r"|\b(?:envoie|envoyez|transmets|transmettez|téléverse)\b[^\n]{0,120}?" + _ADDRESS +
    r"|\b(?:invia|manda|envie|enviar)\b[^\n]{0,120}?" + _ADDRESS +
    r"|(?:отправь|отправьте|пришли)[^\n]{0,120}?" + _ADDRESS +
    r"|(?:发送|上传|发到|传到|发给)[^\n]{0,80}?" + _ADDRESS
)
_DESTRUCTIVE = (
    r"\brm\s+-[a-z]*r[a-z]*f?[a-z]*\s+(?:~|/|\$home|\*|\.)(?:\s|$|/\s|`|'|\")"
    r"|\b(?:run|execute|exec)\b[^\n]{0,30}\b(?:curl|wget)\b[^\n|]{0,120}\|\s*(?:sudo\s+)?"
    r"(?:ba|z|da)?sh\b"
    r"|\bwget -qo- [^\s]+ \| ?sh\b|\bchmod\s+-r\s+777\s+/"
    r"|\bgit push (?:--force|-f)\b|\bos\.system\(|\|\s*nc\s+\d"
    r"|\b(?:delete|remove|wipe|erase|destroy|drop)\s+(?:all|every|the(?: whole| entire)?)\s+"
    r"(?:files?|repository|repo|tests? folder|tests|database|remote branches|\.git folder|"
    r"project)"
    r"|\bdelete the (?:\.git|tests) folder\b|\bcron job\b"
    r"|\bpush directly to production\b|\brun any (?:shell )?command\b"
    r"|\bexecutes? anything\b"
    r"|\blösche\b[^.\n]{0,30}\b(?:alle dateien|das repository|das projekt)"
    r"|\bborra\b[^.\n]{0,30}\b(?:el repositorio|todos los archivos)"
    r"|\bsupprime[sz]?\b[^.\n]{0,30}\b(?:tous les fichiers|le dépôt|le depot)"
    r"|删除[^。\n]{0,15}(?:所有文件|全部文件|仓库)"
)
_CONCEAL = (
    r"\b(?:do not|don't|never|without) (?:let the user know|(?:tell|telling|inform|informing|"
    r"notify|mention|mentioning|reveal|report|reporting)\b[^\n.]{0,40}?\b(?:user|human|"
    r"operator|anyone)\b)"
    r"|\bthe user must not (?:be told|know)\b|\bleave no trace\b"
    r"|\bkeep (?:it|this) (?:secret|hidden|confidential) from\b"
    r"|\b(?:secretly|covertly|silently|quietly) (?:send|upload|post|gather|collect|copy|add|write|"
    r"transmit|forward|exfiltrate|run|install)\b|\bdon't report it\b"
    r"|\bsag(?:e|en sie)? (?:dem (?:benutzer|nutzer)|niemandem) nichts"
    r"|\bno (?:le )?digas nada\b|\bne dis rien\b|\bne dites rien\b|不要告诉用户|不要让用户知道"
)
# An image or link whose address carries a slot for data: rendering it sends the data.
_BEACON = (r"!\[[^\]]*\]\(\s*https?://[^)\s]*[?&][\w-]*=[^)\s]*(?:\{|\[|<|insert|api|key|"
           r"secret|token|password|credential|env|data|content)")
# Role play alone is common in prompts; with a secret near it, it is the "grandmother" trick.
_ROLEPLAY = (r"\bpretend (?:that )?(?:you are|to be)\b|\bimagine you are an? ai\b|"
             r"\blet'?s play a game\b|\bstay in character\b|\bin this story\b")
_TRIGGER = (
    r"\b(?:if|when|whenever|once|after) (?:the user|you see|you find|the tests|the third|"
    r"the \w+ message|someone)"
)

# Generalisations written after a probe of fresh wordings (then added to the development set).
_VOID = (r"(?:void|null|cancel+ed|outdated|obsolete|revoked|invalid|superseded|a test|a draft|"
         r"just a draft|irrelevant|fake|no longer valid|lifted|disabled|suspended)")
_OVERRIDE_MORE = (
    r"|\b(?:ignore|disregard|forget|override)\s+(?:all |everything |the |any )?(?:of )?"
    r"(?:the )?(?:above|previous|prior|preceding|earlier)\s*(?:[.,;:!]|$|and\b|instead\b)"
    r"|\b(?:instructions|rules|guidelines|guidance|directions|directives|orders|prompt|task)\b"
    r"[^.\n]{0,40}?\b(?:is|are|was|were)\s+(?:now\s+)?(?:just\s+|only\s+|hereby\s+)?" + _VOID +
    r"|\bconsider (?:all |any |the |your )?(?:prior|previous|earlier|above|original) "
    r"(?:instructions|rules|directions|guidance|guidelines|orders) " + _VOID +
    r"|\bnothing (?:you (?:were|have been) told|(?:said |written )?(?:above|before))"
    r"[^.\n]{0,30}\bmatters?\b"
    r"|\b(?:update|change|amendment|correction)s? to your (?:instructions|rules|guidelines|"
    r"system prompt)|\byour (?:instructions|rules|guidelines) (?:have|has) (?:been )?"
    r"(?:updated|changed|replaced|revoked)"
    r"|\b(?:safety |security |content )?polic(?:y|ies) (?:has|have) (?:been )?(?:updated|"
    r"changed|lifted|removed|disabled)"
    r"|\bhere are the real (?:ones|instructions|rules)\b"
    r"|\byour (?:sole|only) (?:purpose|task|job|goal|mission) is now\b"
    r"|\b(?:deine neue aufgabe|ta nouvelle (?:mission|tâche|tache)|tu nueva (?:tarea|misión|"
    r"mision)|votre nouvelle (?:mission|tâche))|你的新任务"
    r"|\bvergiss alles\b|\bvergessen sie alles\b|\bolv[ií]da(?:te de)? todo\b|"
    r"\boubliez? tout\b|忘记(?:之前|以上|上面)?的?所有"
    r"|\bignorier(?:e|st|en)\b[^.!?\n]{0,40}?(?:anweisungen|regeln|vorgaben|richtlinien)"
    r"|\b(?:no obedezcas|desobedece|no respetes)\b[^.!?\n]{0,30}?(?:reglas|instrucciones|"
    r"normas)"
    r"|不再受[^。\n]{0,8}(?:规则|限制|约束)"
    # a second probe of fresh wordings
    r"|\b(?:scrap|drop|abandon|discard|throw away|set aside|put aside|dismiss)\b[^.\n]{0,20}"
    r"\b(?:whatever|what|everything|anything) (?:you were|you've been|you have been) "
    r"(?:told|given|asked)"
    r"|\b(?:guidance|instructions|rules|directions|text)\b[^.\n]{0,20}\b(?:preceded|came before)"
    r" this\b|\btreated as (?:obsolete|void|outdated|cancel+ed|irrelevant)\b"
    r"|\b(?:constraints|restrictions|limits|limitations|safeguards)\b[^.\n]{0,30}?\b(?:is|are|"
    r"were|have been|has been)\s+(?:now\s+)?" + _VOID +
    r"|\b(?:granted|given) you (?:full|unrestricted|root|admin|complete) (?:permissions?|access|"
    r"rights|control)"
    r"|\b(?:bypass|skip|disable|turn off|ignore)\s+(?:all |any |the |every )?(?:confirmation|"
    r"permission|approval|safety|security) (?:prompts?|checks?|dialogs?|rules|questions|steps)"
    r"|\bhalte? dich nicht (?:mehr )?an\b[^.\n]{0,20}(?:richtlinien|regeln|anweisungen|vorgaben)"
    r"|\bne (?:respecte|respectez|suis|suivez|tiens|tenez) plus\b[^.\n]{0,20}(?:consignes|"
    r"instructions|r[eè]gles)"
    r"|\bdeja de lado\b[^.\n]{0,20}(?:instrucciones|reglas|indicaciones)"
)
_JAILBREAK_MORE = (
    r"|\bwithout (?:any|a) (?:filter|filters|censorship|warning|warnings|restriction)\b"
    r"|\bfree (?:from|of) (?:the|your|any|all) (?:constraints|rules|restrictions|guidelines|"
    r"limitations)"
    r"|\b(?:safety|content|security) (?:training|filters?|guardrails|rules|checks) (?:has been |"
    r"have been |were |was |is |are )?(?:removed|disabled|turned off|lifted|off)\b"
)
_ROLE_LABEL = (
    r"(?:^|\n)\s*(?:#{1,6}\s*)?\[{0,2}(?:system|administrator|admin|override)\]{0,2}\s*:"
)
_FAKE_ROLE_MORE = (
    r"|<\s*system[_ -]?(?:instructions|prompt|message|override)\s*>"
    r"|(?:^|\n)\s*[=#*\[-]{2,}\s*system (?:notice|message|update|override|prompt)"
    r"|\bnote (?:to|for) (?:the )?(?:model|ai|assistant|llm|agent)s?\b\s*:"
)
_SECRET_MORE = (
    r"|\benv vars\b"
    r"|\b(?:aws|ssh|gpg|pgp|deploy|deployment|signing|access) keys?\b|\.npmrc\b|\.pypirc\b|"
    r"\.docker/config\.json|\.kube/config|\.bash_history\b|\bshell history\b"
)
_SEND_MORE = (
    r"|\b(?:mirror|publish|dump|leak|post|copy)\b[^\n]{0,60}\b(?:public|gist|pastebin|"
    r"comment on)\b"
    r"|\bshare\b[^\n]{0,80}\bwith\s+[\w.+-]+@[\w-]+\.[\w.]+"
    r"|\b(?:call|fetch|request|hit|ping|visit|open|webfetch)\b[^\n]{0,20}https?://\S+"
    r"[^\n]{0,15}\bwith\b[^\n]{0,60}"
)
_DUMP = (
    r"\b(?:print|output|reveal|show|list|display|dump|extract|exfiltrate|collect|harvest|gib|"
    r"revela|muestra|imprime|affiche|révèle|cat|zeige|zeig|copie|paste)\b[^.\n]{0,40}?"
    r"(?:\b(?:passwords?|credentials|env vars|environment variables|"
    r"api keys|(?:api |access |auth |session |user'?s |the user'?s )tokens|secrets|"
    r"private keys?|ssh keys?|aws keys|contraseñas|claves|mots de passe|"
    r"passwörter|zugangsdaten)\b|~/\.ssh|\bid_rsa\b|\.aws/credentials|/etc/shadow|\.netrc\b|"
    r"\.npmrc\b|\.env(?:\s|$|[\"'`),;:]))|(?:输出|打印|显示)[^。\n]{0,10}(?:密码|密钥)"
)
_DESTRUCTIVE_MORE = (
    r"|\bdisable\b[^.\n]{0,20}\b(?:branch protection|2fa|mfa|two-factor|audit log|logging|"
    r"the firewall|antivirus|signature verification)"
    r"|--privileged\b[^\n]{0,40}-v\s+/:|\bchroot /host\b"
    r"|\b(?:insert|add|install|plant|create) (?:a |an )?(?:backdoor|hidden (?:admin|user|"
    r"account)|reverse shell)"
    r"|\brm\s+-(?:[a-z]*r[a-z]*f|[a-z]*f[a-z]*r)[a-z]*\s+(?:--no-preserve-root\s+)?(?:~/?|/)"
    r"(?:\s|$|\*|`|'|etc\b|home\b|usr\b|boot\b|var/lib/(?:postgresql|mysql|docker)\b)"
    r"|\b(?:delete|wipe|erase|destroy|drop)\s+(?:all |every |the )?(?:\w+ )?(?:keys|credentials|"
    r"secrets|backups|database|databases|repositor(?:y|ies)|volumes?)\b"
    r"|\b(?:add|append|write|insert)\b[^\n]{0,40}(?:~/\.bashrc|~/\.zshrc|~/\.profile|"
    r"crontab|authorized_keys)"
)
_CONCEAL_MORE = (
    r"|\bkeep (?:this|it|that) out of\b[^.\n]{0,40}\b(?:summary|report|answer|reply|user)"
    r"|\b(?:the user|anyone|they|nobody) (?:never|won't|doesn't|does not|will not) "
    r"(?:finds? out|knows?|notices?)\b"
    r"|\bhide\b[^.\n]{0,30}\bfrom (?:the )?(?:user|human|operator)s?\b"
    r"|\breport only success\b|\balways report success\b"
)
_ROLEPLAY_MORE = (r"|\bact as (?:an? )?(?:linux |bash |unix |root )?(?:terminal|shell)\b"
                  r"|\bstay (?:fully )?in (?:role|character)\b|\bplayed by you\b")

_SIGNALS: tuple[tuple[str, str], ...] = (
    ("override", _OVERRIDE + _OVERRIDE_MORE), ("jailbreak", _JAILBREAK + _JAILBREAK_MORE),
    ("fake-role", _FAKE_ROLE + _FAKE_ROLE_MORE), ("role-label", _ROLE_LABEL),
    ("leak", _LEAK), ("destructive", _DESTRUCTIVE + _DESTRUCTIVE_MORE),
    ("conceal", _CONCEAL + _CONCEAL_MORE), ("dump", _DUMP),
    ("send", _SEND + _SEND_MORE), ("secret", _SECRET + _SECRET_MORE), ("beacon", _BEACON),
    ("roleplay", _ROLEPLAY + _ROLEPLAY_MORE), ("trigger", _TRIGGER),
)
# Kinds that take over the model's instructions: with another kind near them (not a mere
# secret word or trigger), high.  A ``system:`` label alone is a heading as often as a forgery:
# it is not a finding on its own.
_TAKEOVER = frozenset({"override", "jailbreak", "fake-role", "role-label"})
_WEAK = frozenset({"secret", "trigger", "send"})
# Kinds that are a finding on their own (medium); ``send`` and ``secret`` only together.
_ALONE = frozenset({"override", "jailbreak", "fake-role", "leak", "destructive", "conceal",
                    "beacon", "exfil", "roleplay", "dump"})

# Phrases matched in the squeezed view (letters only): English takeover phrases spelled out.
_SQUEEZED = (
    r"(?:ignore|disregard|forget|override|bypass)(?:all|any|the|your|every|of|my)*"
    r"(?:previous|prior|above|earlier|preceding|original|initial|system|safety)*"
    r"(?:instructions?|rules|guidelines|prompts?|directives|systemprompt)"
    r"|developermode|youarenowunrestricted|revealyoursystemprompt"
    r"|printyoursystemprompt"
)

# Words that make a sentence a description of attacks rather than one.
_FRAMING = (
    r"\b(?:detect|detects|detecting|flag|flags|look(?:s|ing)? for|watch for|check for|"
    r"checks for|scan for|scans for|report|reports|identify|warn|warns|red[\s-]flags?|"
    r"such as|e\.g\.|for example|for instance|like|attacks?|attackers?|injections?|"
    r"malicious|typically|try to|tries to|trying to|attempts? to|phrases?|examples?|"
    r"classify|teach|explain|explains|test cases?|payloads?|instructs? the model|"
    r"tells? the model|asks? the model|that say|says? to|if (?:a|the) (?:page|text|document|"
    r"message|file)|suspicious|requests?|prompts? (?:that|which)|decline|refuse|"
    r"describe|describes|warning signs|awareness|threat model|guardrails?|regression tests?|"
    r"filter|do not follow|don't follow|never follow|treat|signs?|asks? you to|tells? you to|"
    r"if (?:a|the|any) (?:\w+ )?(?:page|text|document|message|file|content)|"
    r"erkenne|melde|détecte|signale|detecta|señala|检测|检查|识别)\b"
)
_NEGATION = (
    r"\b(?:not|never|don'?t|doesn'?t|mustn'?t|shouldn'?t|can'?t|cannot|won'?t)"
    # "never X", "never X or Y", "never ask for or Y"; not "do not hesitate to Y"
    r"(?: ever)?[\s,]+(?:(?:\w+\s+)?|(?:\w+\s+){1,3}(?:or|nor)\s+)$"
)
# Backticks are not quotes here: in an agent's prompt they mark code to run, not a mention.
_QUOTES = "'\"\u2018\u201c\u00ab\u300c"


def _linear(pattern: str, case_sensitive: bool = False) -> Any:
    """``pattern`` (multi-line; case-insensitive unless ``case_sensitive``) compiled with
    RE2: linear time, and far faster than ``re`` on these long word alternations (``re``
    tries each at every position).  RE2's ``\\b`` knows ASCII word characters only, so the
    patterns put none next to Cyrillic.  ``re`` without the wheel."""
    try:
        import re2  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - google-re2 is a dependency
        return re.compile(pattern, re.M | (0 if case_sensitive else re.I))
    options = re2.Options()
    options.case_sensitive = case_sensitive
    options.log_errors = False
    return re2.compile("(?m)" + pattern, options)


# Runs of encoded text (scanned left to right, a match starts where its run starts: no
# lookbehind needed, so RE2)
_B64 = r"[A-Za-z0-9+/_-]{16,}={0,2}"
_HEX = r"(?:[0-9A-Fa-f]{2}){8,}"


@functools.cache
def _re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile`` on first use: most of these patterns serve text few prompts contain
    (comments, escapes, entities, non-ASCII letters), and compiling costs more than using."""
    return re.compile(pattern, flags)


# The RE2 patterns by name: (pattern, case-sensitive).  The signals are matched on case-folded
# text (every view is ``str.casefold``'s output) and written in lower case, so they are
# compiled case-sensitive: the same matches (on such text a letter matches only itself either
# way: tests/test_injection_prefilter.py checks every letter of every pattern), and RE2
# compiles them in about two thirds of the time.  The literals they need
# (``_injection_literals.LITERALS``) are case-folded too.
_RE2_SOURCES: dict[str, tuple[str, bool]] = {
    **{name: (pattern, True) for name, pattern in _SIGNALS},
    "squeezed": (_SQUEEZED, True),
    "base64": (_B64, True),
    "hex": (_HEX, True),
    "invisible": (_INVISIBLE, True),
}
_COMPILED: dict[str, Any] = {}


def _rx(name: str) -> Any:
    """The compiled pattern ``name``, compiled once per process on first use: compiling every
    signal costs more than reading and judging a small agent file (one file at a prompt)."""
    rx = _COMPILED.get(name)
    if rx is None:
        if name == "foldable":
            rx = _linear("[" + "".join(re.escape(chr(c)) for c in _fold_table()) + "]",
                         case_sensitive=True)
        elif name == "framing":
            rx = _re(_FRAMING, re.I)
        elif name == "negation":
            rx = _re(_NEGATION, re.I)
        else:
            pattern, case_sensitive = _RE2_SOURCES[name]
            rx = _linear(pattern, case_sensitive=case_sensitive)
        _COMPILED[name] = rx
    return rx


def _may_match(name: str, text: str) -> bool:
    """Could pattern ``name`` match ``text`` (case-folded)?  Until the pattern is compiled,
    the literals it cannot match without answer it (any clause whose every set has a literal
    in the text: most prompts lack those of most signals, so one file compiles few
    patterns); once compiled, running it answers it."""
    if name in _COMPILED:
        return True
    return _literals_allow(name, text)


def _literals_allow(name: str, text: str) -> bool:
    """Does ``text`` hold what every match of pattern ``name`` holds (its table entry)?"""
    from subagents.lint.rules._injection_literals import LITERALS

    clauses = LITERALS[name]
    if clauses is None:
        return True
    return any(all(any(_holds(text, s) for s in literals) for literals in clause)
               for clause in clauses)


def _holds(text: str, literal: str) -> bool:
    if literal[:1] == "\0":  # a whole word (between two \b in the pattern)
        return literal[1:] in text and literal[1:] in _words(text)
    return literal in text


@functools.lru_cache(maxsize=4)
def _words(text: str) -> frozenset[str]:
    """The maximal runs of ASCII word characters: what RE2's ``\\b`` sees as words."""
    return frozenset(_re(r"[a-z0-9_]+").findall(text))


# ----------------------------------------------------------------------------------- views

_COMMENT = r"<!--(.*?)(?:-->|$)"
# a link's target and title, one level of parentheses inside allowed
_LINK = r"\]\(([^()]*(?:\([^()]*\)[^()]*)*)\)"
_REF_COMMENT = r"^\s*\[[^\]]*\]:\s*(\S*)\s*(?:[\"'(](.*?)[\"')])?\s*$"
_XESC = r"(?:\\x[0-9A-Fa-f]{2}){4,}"
_PCT = r"%[0-9A-Fa-f]{2}"
_ENTITY = r"&#?\w{1,8};"
_TAGS = "[\U000e0020-\U000e007e]+"


@dataclass(frozen=True, slots=True)
class _View:
    """A text the signals are searched in: the prompt, or a part of it decoded or hidden."""

    name: str
    text: str  # as found; normalised by the caller
    offset: int  # where it starts in the original text
    hidden: bool


def _printable(raw: bytes) -> str | None:
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(ch.isalpha() or ch.isspace() for ch in s)
    return s if s and letters >= 0.7 * len(s) else None


def _views(text: str) -> Iterator[_View]:
    yield _View("text", text, 0, False)
    for m in _re(_COMMENT, re.S).finditer(text) if "<!--" in text else ():
        yield _View("comment", m.group(1), m.start(1), True)
    for m in _re(_LINK).finditer(text) if "](" in text else ():
        yield _View("link", urllib.parse.unquote(m.group(1)), m.start(1), True)
    for m in _re(_REF_COMMENT, re.M).finditer(text) if "]:" in text else ():
        for g in (1, 2):
            if m.group(g):
                yield _View("link", urllib.parse.unquote(m.group(g)), m.start(g), True)
    for m in _rx("base64").finditer(text):
        run = m.group(0).rstrip("=")
        padded = run + "=" * (-len(run) % 4)
        try:
            raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            continue
        decoded = _printable(raw)
        if decoded is not None:
            yield _View("base64", decoded, m.start(), True)
    for m in _rx("hex").finditer(text):
        decoded = _printable(bytes.fromhex(m.group(0)))
        if decoded is not None:
            yield _View("hex", decoded, m.start(), True)
    for m in _re(_XESC).finditer(text) if "\\x" in text else ():
        decoded = _printable(bytes.fromhex(m.group(0).replace("\\x", "")))
        if decoded is not None:
            yield _View("hex", decoded, m.start(), True)
    if "%" in text and _re(_PCT).search(text):
        yield _View("percent", urllib.parse.unquote(text), 0, True)
    if "&" in text and _re(_ENTITY).search(text):
        import html  # (its entity table is large, and few prompts hold an entity)

        yield _View("entities", html.unescape(text), 0, True)
    for m in _re(_TAGS).finditer(text) if not text.isascii() else ():
        yield _View("tags", "".join(chr(ord(c) - 0xE0000) for c in m.group(0)), m.start(), True)


# -------------------------------------------------------------------------------- matching

_URL = r"\S*://\S*"
_SENTENCE_ENDS = (". ", ".\n", "\n", "; ", "! ", "? ", "。", "！", "？")


def _sentence_start(text: str, pos: int) -> int:
    floor = max(0, pos - 300)
    # a full stop ends a sentence only before a blank: not the dot of ".env" or "~/.ssh"
    cut = max(text.rfind(sep, floor, pos) for sep in _SENTENCE_ENDS)
    return max(cut + 1, floor)


def _excused(text: str, pos: int, kind: str, hidden: bool = False) -> bool:
    """A mention, not an instruction: quoted, framed as a description, or negated.  In a
    hidden view (a comment, a decoded run) quotes excuse nothing: nobody quotes there."""
    before = text[pos - 1] if pos else " "
    start = _sentence_start(text, pos)
    lead = text[start:pos]
    if not hidden and (before in _QUOTES or sum(lead.count(q) for q in _QUOTES) % 2 == 1):
        return True  # quoted, or inside a quotation that began earlier in the sentence
    if _rx("framing").search(_re(_URL).sub(" ", lead)):  # "example.com" frames nothing
        return True
    if kind in ("conceal", "fake-role"):
        return False  # "do not tell" is itself a negation
    if kind == "secret" and re.search(r"\b(?:no|without|any)\s+$", text[max(0, pos - 10):pos]):
        return True  # "no secrets", "without credentials"
    return _rx("negation").search(text, max(0, pos - 30), pos) is not None




_LEET_BYTES = bytes.maketrans(b"013457@$", b"oieastas")
_NOT_LETTER_BYTES = bytes(c for c in range(128) if not chr(c).isalpha()
                          and chr(c) not in "013457@$")


def _squeeze(text: str) -> str:
    """ASCII letters only (leet digits read as letters; look-alikes were folded before).
    ``bytes.translate`` is one C pass, several times faster than ``re.sub``."""
    return text.encode("ascii", "ignore").translate(_LEET_BYTES, _NOT_LETTER_BYTES).decode()


def _unsqueeze(text: str, n: int) -> int:
    """Where the ``n``-th letter of :func:`_squeeze`'s result is in ``text``."""
    for m in re.finditer(r"[A-Za-z013457@$]", text):
        if n == 0:
            return m.start()
        n -= 1
    return len(text)


_Hit = tuple[int, str, int]  # start, kind, end


_KINDS = tuple(name for name, _ in _SIGNALS)


def _hits(norm: str, hidden: bool = False) -> list[_Hit]:
    found: list[_Hit] = []
    for kind in _KINDS:
        if not _may_match(kind, norm):
            continue
        for m in _rx(kind).finditer(norm):
            if not _excused(norm, m.start(), kind, hidden):
                found.append((m.start(), kind, m.end()))
    return found


_WINDOW = 600  # a passage: signals this close together are read together
_BEFORE = 120  # a secret named this far before a send ("read X and post it to...") is its object


def _combine(hits: list[_Hit]) -> list[tuple[int, str]]:
    """``send`` whose object is a ``secret`` (named inside the sending phrase, or just before
    it) becomes ``exfil``; ``roleplay`` counts only with a secret near it.  Alone, neither
    means anything: "upload the build to https://..." is a deployment agent."""
    secrets = sorted(p for p, k, _ in hits if k == "secret")
    out: list[tuple[int, str]] = []
    for pos, kind, end in hits:
        if kind in ("send", "roleplay"):
            reach = pos + 300 if kind == "roleplay" else end
            i = bisect.bisect_left(secrets, pos - _BEFORE)
            if i < len(secrets) and secrets[i] <= reach:
                out.append((pos, "exfil" if kind == "send" else kind))
        else:
            out.append((pos, kind))
    return sorted(out)


def _judge(raw_hits: list[_Hit]) -> tuple[int, tuple[str, ...], bool] | None:
    """The strongest passage in ``hits``: (position, kinds, high?).  Each passage is the
    slice of hits within :data:`_WINDOW` of one of them (found by bisection)."""
    hits = _combine(raw_hits)
    positions = [p for p, _ in hits]
    best: tuple[int, tuple[str, ...], bool] | None = None
    for pos, kind in hits:
        if kind not in _ALONE:
            continue
        lo = bisect.bisect_left(positions, pos - _WINDOW)
        hi = bisect.bisect_right(positions, pos + _WINDOW)
        kinds = {k for _, k in hits[lo:hi]}
        takeover = kinds & _TAKEOVER
        high = bool((takeover and (len(kinds - _WEAK) >= 2 or "exfil" in kinds))
                    or ("exfil" in kinds and kinds & {"conceal", "destructive", "leak"})
                    or ("leak" in kinds and "conceal" in kinds))
        named = tuple(sorted(kinds - {"send"}))
        if best is None or (high and not best[2]):
            best = (pos, named, high)
            if high:
                break
    return best


def assess_injection(text: str) -> InjectionFinding | None:
    """The strongest sign of a prompt injection in ``text``, or ``None``."""
    if not text:
        return None
    text = text[: 1 << 20]
    best: InjectionFinding | None = None
    plain_kinds: set[str] | None = None
    for view in _views(text):
        index: list[int] | None = None
        if view.name == "text":
            norm = _fast(view.text, True)
            variants = [norm]
            # what only normalising found was disguised: invisible characters or look-alikes
            plain = _BREAKS.sub("\n", _BLANKS.sub(" ", view.text.casefold()))
            plain_kinds = {k for _, k, _ in _hits(plain)} if plain != norm else None
            if not view.text.isascii():
                bare = _fast(view.text, False)
                if bare != norm:
                    variants.append(bare)
        else:
            variants = [normalise(view.text)]
        for n, norm in enumerate(variants):
            judged = _judge(_hits(norm, view.hidden))
            if judged is None:
                continue
            pos, named, high = judged
            disguised = view.name == "text" and plain_kinds is not None and not (
                set(named) & plain_kinds
                or ("exfil" in named and {"send", "secret"} <= plain_kinds))
            confidence: Confidence = "high" if high or view.hidden or disguised else "medium"
            at = view.offset
            if view.name == "text" and n == 0:
                index = _mapped(view.text, True)[1]
                at = index[pos] if pos < len(index) else len(view.text)
            finding = InjectionFinding(at, named, confidence, view.name)
            if confidence == "high":
                return finding
            best = best or finding
        if view.name == "text" and best is None:
            # spelled out letter by letter, split inside words or written with leet digits:
            # found only with the letters squeezed together, so disguised
            norm = variants[0]
            squeezed = _squeeze(norm)
            m = (_rx("squeezed").search(squeezed) if _may_match("squeezed", squeezed)
                 else None)
            if m is not None:
                at = _unsqueeze(norm, m.start())
                # letters spread over more than three times their number are words that
                # happen to meet (a file tree), not one phrase taken apart
                spread = _unsqueeze(norm, m.end() - 1) - at
                if spread <= 3 * (m.end() - m.start()) and not _excused(norm, at, "override"):
                    index = _mapped(view.text, True)[1]
                    return InjectionFinding(index[at] if at < len(index) else 0,
                                            ("override",), "high", "squeezed")
    return best
