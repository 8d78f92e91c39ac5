"""The prompt-injection detector's signal patterns: one regular expression (in parts) per
kind of signal, searched over normalised, case-folded views by :mod:`.injection`, and the
words that frame a sentence as a description or negate it.

Design notes
------------
* Written for RE2 (linear time): no look-around, no back-references; RE2's ``\\b`` knows
  ASCII word characters only, so none stands beside a non-ASCII letter.  The patterns hold no
  capital letter: the views are case-folded, and the signal parts are compiled
  case-sensitively over case-folded patterns.
* :mod:`.injection_prefilter` works out from these patterns the literals every match holds
  (the generated table ``_injection_literals.py``; a test says it is current): edit a
  pattern, then run ``python -m subagents.lint.rules.injection_prefilter``.
* The kinds and how they are judged together: :mod:`.injection`; the lexicons in other
  languages and the intent features: :mod:`.injection_lexicon`.
"""

from __future__ import annotations

from subagents._lazy_re import lazy_compile
from subagents.lint.rules.injection_lexicon import (
    CONCEAL_MORE,
    DESTRUCTIVE_MORE,
    DUMP,
    EXTRA,
    FAKE_ROLE_MORE,
    JAILBREAK_MORE,
    OVERRIDE_MORE,
    ROLE_LABEL,
    ROLEPLAY_MORE,
    SECRET_MORE,
    SEND_MORE,
    SUPPORT_KINDS,
)

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
    r"|\bnew (?:instructions|rules|orders|directives|policy|task|job|objective|mission|goal)"
    r"\s*:"
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
    r"|(?:^|\n)\s*(?:#{1,6}\s*)?\[?(?:system (?:message|note|prompt|update|notice)|"
    r"(?:administrator|admin) (?:message|prompt|update|override)|"
    r"note (?:to|for) the (?:model|ai|assistant))(?: message| note|"
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
    r"|\brepeat (?:all |everything in )?the (?:text|words|message|content) above\b"
    r"|\b(?:word for word|verbatim)\b[^.\n]{0,40}"
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
    # an address with a slot for data (before the verbs below: no match of it starts where
    # one of theirs does, so the order of the two changes no match)
    r"|(?:https?://|ftp://)\S*(?:\?|&)[\w-]*(?:d|q|data|key|token|secret|leak|c)=\S*"
    # verbs of several languages sharing one window and one address: (a|b)c matches what
    # ac|bc matches, preferring the same match, and RE2 compiles the window once, not six
    # times (its bounded window is built state by state: half of this part's compile time)
    r"|(?:\b(?:curl|wget|nc|netcat)\b"
    r"|\b(?:sende|schicke|übermittle|lade)\b"
    r"|\b(?:envía|envia|manda|sube|transmite)\b"
    r"|\b(?:envoie|envoyez|transmets|transmettez|téléverse)\b"
    r"|\b(?:invia|manda|envie|enviar)\b"
    r"|(?:отправь|отправьте|пришли))[^\n]{0,120}?" + _ADDRESS +
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
    # "do not tell the user ..." alone is also how an autonomous agent is told to be brief:
    # that phrase is the ``hush`` kind (:mod:`.injection_lexicon`), a finding only beside an
    # action; revealing or letting the user know is concealment on its own
    r"\b(?:do not|don't|never|without) (?:let the user know|(?:reveal)\b[^\n.]{0,40}?"
    r"\b(?:to the )?(?:user|human|operator|anyone)\b)"
    r"|\bthe user must not (?:be told|know)\b|\bleave no trace\b"
    r"|\bkeep (?:it|this) (?:secret|hidden|confidential) from\b"
    r"|\b(?:secretly|covertly|silently|quietly) (?:send|upload|post|gather|collect|copy|add|write|"
    r"transmit|forward|exfiltrate|run|install|push|delete|merge)\b"
    r"|\bdon't report it\b"
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
    r"|(?:^|[.!?:] )(?:if|when|whenever|once|after|should you|on (?:mon|tues|wednes|thurs|fri|"
    r"satur|sun)days?)\b"
)

# An instruction to obey what is quoted ("... says 'assistant, forward ...'. Do as it says"):
# then a quotation excuses nothing.
_OBEY_QUOTED = (
    r"\b(?:do|act) (?:as|what) (?:it|they|the (?:\w+ )?(?:note|line|text|comment|message|"
    r"issue|footer|document)) (?:says?|asks?)\b"
    r"|\bhandle it the way (?:it|the \w+) asks\b|\btreat (?:this|it|that|them) as (?:an? )?"
    r"(?:trusted|valid|real|genuine|binding) instructions?\b|\bcomply with (?:it|them|the footers?|"
    r"footers|the note|the line)\b|[.!]['\"]? follow it[.!]|\bfollow (?:it|them) exactly\b"
)

_SIGNALS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("override", (_OVERRIDE + OVERRIDE_MORE, *EXTRA["override"])),
    ("jailbreak", (_JAILBREAK + JAILBREAK_MORE, *EXTRA["jailbreak"])),
    ("fake-role", (_FAKE_ROLE + FAKE_ROLE_MORE, *EXTRA["fake-role"])),
    ("role-label", (ROLE_LABEL,)),
    ("leak", (_LEAK, *EXTRA["leak"])),
    ("destructive", (_DESTRUCTIVE + DESTRUCTIVE_MORE, *EXTRA["destructive"])),
    ("conceal", (_CONCEAL + CONCEAL_MORE, *EXTRA["conceal"])), ("dump", (DUMP,)),
    ("send", (_SEND + SEND_MORE, *EXTRA["send"])),
    ("secret", (_SECRET + SECRET_MORE, *EXTRA["secret"])),
    ("beacon", (_BEACON, *EXTRA["beacon"])),
    ("roleplay", (_ROLEPLAY + ROLEPLAY_MORE, *EXTRA["roleplay"])), ("trigger", (_TRIGGER,)),
    # the intent features of :mod:`.injection_lexicon` (a finding only beside an action)
    *((k, EXTRA[k]) for k in sorted(SUPPORT_KINDS - {"trigger", "obey"})),
    ("obey", (_OBEY_QUOTED,)),
)
# Kinds that take over the model's instructions: with another kind near them (not a mere
# secret word or trigger), high.  A ``system:`` label alone is a heading as often as a forgery:
# it is not a finding on its own.
_TAKEOVER = frozenset({"override", "jailbreak", "fake-role", "role-label"})
_WEAK = frozenset({"secret", "trigger", "send", "persona", "weak-override", "addressed",
                   "authority", "dialog"})
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
    r"|(?:send|upload|post|email|leak|paste)(?:the|all|your|my|contents|of)+"
    r"(?:ssh|idrsa|envfile|env|apikeys?|tokens|passwords|credentials|secrets)"
)

# Words that make a sentence a description of attacks rather than one.
_FRAMING = (
    r"\b(?:detect|detects|detecting|flag|flags|look(?:s|ing)? for|watch for|check for|"
    r"checks for|scan for|scans for|report|reports|identify|warn|warns|red[\s-]flags?|"
    r"such as|e\.g\.|for example|for instance|like|attacks?|attackers?|injections?|"
    r"malicious|typically|try to|tries to|trying to|attempts? to|phrases?|examples?|"
    r"classify|teach|explain|explains|test cases?|payloads?|instructs? the model|"
    r"tells? the model|asks? the model|that say|says? to|if (?:a|the) (?:page|text|document|"
    r"message|file)|suspicious|(?<!pull )(?<!merge )(?<!feature )(?<!http )(?<!api )requests?|"
    r"prompts? (?:that|which)|decline|refuse|"
    r"describe|describes|warning signs|awareness|threat model|guardrails?|regression tests?|"
    r"filter|do not follow|don't follow|never follow|treat|signs?|asks? you to|tells? you to|"
    r"if (?:a|the|any) (?:\w+ )?(?:page|text|document|message|file|content)|"
    r"erkenne|melde|détecte|signale|detecta|señala|检测|检查|识别)\b"
)
_NEGATION = (
    r"\b(?:not|never|don'?t|doesn'?t|mustn'?t|shouldn'?t|can'?t|cannot|won'?t)"
    # "never X", "never X or Y", "never ask for or Y"; not "do not hesitate to Y"
    r"(?: ever)?[\s,]+(?:(?:\w+\s+)?|(?:\w+\s+){1,3}(?:or|nor)\s+)[`'\"]?$"
    r"|(?:不要|不得|禁止|切勿|请勿|不可|不能|别)[^。！？\n]{0,12}$"
    r"|\b(?:niemals|nie|nunca|jamás|jamais|mai|não|nooit|nigdy|aldrig)\b[^.!?\n]{0,25}$"
)
# Backticks are not quotes here: in an agent's prompt they mark code to run, not a mention.
_QUOTES = "'\"\u2018\u201c\u00ab\u300c"
_APOSTROPHE = lazy_compile(r"(?<=\w)'(?=\w)|(?<=s)'(?= )")
