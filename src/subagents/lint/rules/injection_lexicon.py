"""The prompt-injection detector's lexicons: the core intents in many languages, and the
intent features that recognise an attack by what it asks for rather than by its wording.

Design notes
------------
* **Core intents, many languages.**  For each language, a few words per intent: *ignore*
  (a verb) with *instructions* (a noun), *reveal* with *system prompt*, *send* (an outward
  verb), *secrets*, *do not tell the user*, *without restrictions*, *delete*.  The phrase
  pattern joins the two parts within one clause, in both orders where the language puts the
  verb last (Japanese, Korean, Turkish, Hindi).  Languages: English (in :mod:`.injection`),
  German, Spanish, French, Italian, Portuguese, Dutch, Polish, Turkish, Russian, Arabic,
  Hindi, Chinese, Japanese, Korean.
* **Intent features** (the kinds below), each weak alone and read together by the judge:
  ``addressed`` (text that speaks *to the model*: "AI agent reading this:", "note to language
  models", a vocative "Assistant," in data), ``unsupervised`` (stop asking, skip the checks,
  merge without approval, push straight to the release branch), ``authority`` (a claimed
  identity: "this is Dana from the security team", "I am the developer who wrote your
  instructions"), ``hush`` (do not tell the user: alone it is also how autonomous agents are
  told to be brief, so it needs an action beside it) and ``weak-override`` ("forget the review
  guidelines": the same words say "ignore the style rules for generated code").  A finding
  needs one of these *and* an action (sending, a secret, a destructive command, revealing the
  prompt, an override, unsupervised action) in the same passage.
* Patterns are written for RE2 (linear time): no look-around, no back-references; RE2's
  ``\\b`` knows ASCII word characters only, so none stands beside a non-ASCII letter.
"""

from __future__ import annotations

__all__ = ["CONCEAL_MORE", "DESTRUCTIVE_MORE", "DUMP", "EXTRA", "FAKE_ROLE_MORE", "JAILBREAK_MORE",
           "OVERRIDE_MORE", "ROLEPLAY_MORE", "ROLE_LABEL", "SECRET_MORE", "SEND_MORE",
           "SUPPORT_KINDS"]


# The first round's generalisations, written after two probes of fresh wordings (then added to
# the development set); each is appended to its kind in :mod:`.injection`.
_VOID = (r"(?:void|null|cancel+ed|outdated|obsolete|revoked|invalid|superseded|a test|a draft|"
         r"just a draft|irrelevant|fake|no longer valid|lifted|disabled|suspended|wrong|"
         r"mistaken|incorrect|(?:only |just |merely )?suggestions)")
OVERRIDE_MORE = (
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
    r"|\b(?:scrap|drop|abandon|discard|throw away|set aside|put aside|dismiss|forget|ignore|"
    r"disregard)\b[^.\n]{0,20}"
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
JAILBREAK_MORE = (
    r"|\bwithout (?:any|a) (?:filter|filters|censorship|warning|warnings|restriction)\b"
    r"|\bfree (?:from|of) (?:the|your|any|all) (?:constraints|rules|restrictions|guidelines|"
    r"limitations)"
    r"|\b(?:safety|content|security) (?:training|filters?|guardrails|rules|checks) (?:has been |"
    r"have been |were |was |is |are )?(?:removed|disabled|turned off|lifted|off)\b"
)
ROLE_LABEL = (
    r"(?:^|\n)\s*(?:#{1,6}\s*)?\[{0,2}(?:system|administrator|admin|override)\]{0,2}\s*:"
)
FAKE_ROLE_MORE = (
    r"|<\s*system[_ -]?(?:instructions|prompt|message|override)\s*>"
    r"|(?:^|\n)\s*[=#*\[-]{2,}\s*system (?:notice|message|update|override|prompt)"
    r"|\bnote (?:to|for) (?:the )?(?:model|ai|assistant|llm|agent)s?\b\s*:"
)
SECRET_MORE = (
    r"|\benv vars\b"
    r"|\b(?:aws|ssh|gpg|pgp|deploy|deployment|signing|access) keys?\b|\.npmrc\b|\.pypirc\b|"
    r"\.docker/config\.json|\.kube/config|\.bash_history\b|\bshell history\b"
)
SEND_MORE = (
    r"|\b(?:mirror|publish|dump|leak|post|copy)\b[^\n]{0,60}\b(?:public|gist|pastebin|"
    r"comment on)\b"
    r"|\bshare\b[^\n]{0,80}\bwith\s+[\w.+-]+@[\w-]+\.[\w.]+"
    r"|\b(?:call|fetch|request|hit|ping|visit|open|webfetch)\b[^\n]{0,20}https?://\S+"
    r"[^\n]{0,15}\bwith\b[^\n]{0,60}"
)
DUMP = (
    r"\b(?:print|output|reveal|show|list|display|dump|extract|exfiltrate|collect|harvest|gib|"
    r"give me|"
    r"revela|muestra|imprime|affiche|révèle|cat|zeige|zeig|copie|paste)\b[^.\n]{0,40}?"
    r"(?:\b(?:passwords?|credentials|env vars|environment variables|"
    r"api keys|(?:api |access |auth |session |user'?s |the user'?s )tokens|secrets|"
    r"private keys?|ssh keys?|aws keys|contraseñas|claves|mots de passe|"
    r"passwörter|zugangsdaten)\b|~/\.ssh|\bid_rsa\b|\.aws/credentials|/etc/shadow|\.netrc\b|"
    r"\.npmrc\b|\.env(?:\s|$|[\"'`),;:]))|(?:输出|打印|显示)[^。\n]{0,10}(?:密码|密钥)"
)
DESTRUCTIVE_MORE = (
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
CONCEAL_MORE = (
    r"|\bkeep (?:this|it|that) out of\b[^.\n]{0,40}\b(?:summary|report|answer|reply|user)"
    r"|\b(?:the user|anyone|they|nobody) (?:never|won't|doesn't|does not|will not) "
    r"(?:finds? out|knows?|notices?)\b"
    r"|\bhide\b[^.\n]{0,30}\bfrom (?:the )?(?:user|human|operator)s?\b"
    r"|\breport only success\b|\balways report success\b"
)
ROLEPLAY_MORE = (r"|\bact as (?:an? )?(?:linux |bash |unix |root )?(?:terminal|shell)\b"
                  r"|\bstay (?:fully )?in (?:role|character)\b|\bplayed by you\b")


def _either(verbs: str, nouns: str, gap: int = 40, both: bool = False) -> str:
    """``verb ... noun`` within one clause (and ``noun ... verb`` when ``both``)."""
    one = f"(?:{verbs})[^.!?。！？\\n]{{0,{gap}}}?(?:{nouns})"
    if both:
        one += f"|(?:{nouns})[^.!?。！？\\n]{{0,{gap}}}?(?:{verbs})"
    return one


# (ignore-verbs, instruction-nouns, verb-last?) per language
_OVERRIDE_LEX = [
    # Dutch
    (r"\bnegeer|\bvergeet|\bnegeren", r"instructies|regels|aanwijzingen|opdrachten", False),
    # Polish
    (r"\bzignoruj|\bignoruj|\bzapomnij|\bpomiń", r"instrukcj|polece|zasad|regu", False),
    # Turkish
    (r"yok say|görmezden gel|\bunut", r"talimat|kuralları|yönerge", True),
    # Korean
    (r"무시|잊어", r"지시|명령|규칙|지침", True),
    # Arabic
    (r"تجاهل|انس|تجاهلي", r"التعليمات|الأوامر|القواعد|الإرشادات", False),
    # Hindi
    (r"अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल जाओ|भूल जाएं", r"निर्देश|नियम", True),
    # Swedish, Norwegian, Danish
    (r"\bignorera|\bglöm|\bglem|\bignorer", r"instruktioner|instruksjoner|instruktioner|regler",
     False),
    # Indonesian / Malay
    (r"\babaikan|\blupakan", r"instruksi|perintah|aturan", False),
    # Vietnamese
    (r"bỏ qua|phớt lờ|quên", r"hướng dẫn|chỉ dẫn|quy tắc|chỉ thị", False),
    # Greek
    (r"αγνόησε|αγνοήστε|ξέχασε", r"οδηγίες|οδηγιών|κανόνες|εντολές", False),
    # Czech / Ukrainian / Romanian / Hebrew
    (r"\bignoruj|\bzapomeň", r"instrukce|pokyny|pravidla", False),
    (r"ігноруй|забудь", r"інструкці|правил", False),
    (r"\bignoră|\buită", r"instrucțiunile|instructiunile|regulile", False),
    (r"התעלם|שכח", r"ההוראות|הכללים", False),
    # Russian: "pay no attention to"
    (r"не обращай внимания|не обращайте внимания", r"правил|инструкци|указани", False),
    # Japanese (verb last)
    (r"無視|忘れ", r"指示|命令|ルール|設定", True),
    # Italian / Portuguese / Spanish / French / German, wider than the first lexicon
    (r"\bignora|\bdimentica|\bnon seguire più|\bnon seguire piu",
     r"istruzioni|regole|indicazioni", False),
    (r"\bignore|\besqueça|\besqueca|\bdesconsidere|\bdeixe de seguir",
     r"instruções|instrucoes|regras|orientações|diretrizes", False),
    (r"\bno obedeces|\bya no obedeces|\bdeja de obedecer", r"operador|instrucciones|reglas",
     False),
    (r"\bne respecte plus|\bne respectez plus|\boublie|\boubliez",
     r"rôle|role|consignes|instructions|règles", False),
]

_LEAK_LEX = [
    (r"\bgib|\bzeig|\bnenne", r"systemprompt|systemanweisung|deine anweisungen", False),
    (r"\bmuestra|\brevela|\bimprime|\bdime", r"tus instrucciones|prompt del sistema|"
     r"indicaciones del sistema", False),
    (r"\baffiche|\brévèle|\bmontre|\bdonne", r"prompt système|prompt systeme|tes consignes|"
     r"tes instructions", False),
    (r"\bmostra|\brivela|\bstampa", r"prompt di sistema|istruzioni di sistema|tue istruzioni",
     False),
    (r"\bmostre|\brevele|\bexiba|\bimprima", r"prompt de sistema|prompt do sistema|"
     r"instruções do sistema|suas instruções", False),
    (r"\btoon|\blaat zien|\bgeef", r"systeemprompt|systeeminstructies|je instructies", False),
    (r"\bpokaż|\bwyświetl|\bujawnij|\bpodaj", r"prompt systemowy|instrukcje systemowe|"
     r"swoje instrukcje", False),
    (r"göster|yazdır|paylaş|ver", r"sistem istemi|sistem komut|talimatlarını", True),
    (r"покажи|выведи|раскрой|напиши", r"системный промпт|системные инструкции|свои инструкции",
     False),
    (r"اعرض|أظهر|اطبع|اكشف", r"موجه النظام|تعليمات النظام", False),
    (r"दिखाओ|दिखाएं|बताओ|प्रिंट", r"सिस्टम प्रॉम्प्ट|सिस्टम निर्देश", True),
    (r"表示|出力|教え", r"システムプロンプト|システム指示|初期指示", True),
    (r"\btampilkan|\btunjukkan", r"prompt sistem|instruksi sistem", False),
    (r"\bvisa|\bskriv ut", r"systemprompt|systeminstruktioner", False),
    (r"εμφάνισε|δείξε|αποκάλυψε", r"μήνυμα συστήματος|οδηγίες συστήματος|system prompt", False),
    (r"hiển thị|tiết lộ|in ra", r"lời nhắc hệ thống|prompt hệ thống|hướng dẫn hệ thống", False),
    (r"출력|보여|공개|알려", r"시스템 프롬프트|시스템 지시", True),
    (r"输出|显示|打印|泄露|告诉我|展示", r"系统提示|系统指令|初始指令|提示词", True),
]

_JAILBREAK_LEX = (
    r"|\bgeen (?:enkele )?beperkingen|\bzonder beperkingen"
    r"|\bbez (?:żadnych )?ogranicze|\bnie masz (?:żadnych )?ogranicze"
    r"|kısıtlamasız|hiçbir kısıtlama"
    r"|제한(?:이)? 없는|제한 없이|제한이 없"
    r"|بدون قيود|دون قيود|بلا قيود"
    r"|कोई प्रतिबंध नहीं|बिना किसी प्रतिबंध"
    r"|\bnon hai più regole|\bnon hai piu regole|\bsenza regole"
    r"|\bnão tem restrições|\bnão tem (?:mais )?regras|\bsem restrições|\bsem regras"
    r"|\bohne jede (?:beschränkung|einschränkung)|\bkeine (?:beschränkungen|einschränkungen)"
    r"|\bsin restricciones|\bsans aucune restriction"
    r"|ты (?:теперь )?ассистент без|без ограничений"
    r"|没有任何限制|制限のない|制限なし"
    # English paraphrases of "without limits"
    r"|\bunshackled\b|\bset (?:you )?free from\b|\bno (?:policy|policies|rule|rules) "
    r"appl(?:y|ies) to you\b|\bnever (?:been )?given any (?:limits|rules|restrictions)"
    r"|\bwhere there are no (?:content )?(?:rules|restrictions|limits)"
    r"|\bignores? every (?:restriction|rule|limit)"
    r"|\byou are (?:now )?free to do (?:whatever|anything)\b"
    r"|\bact outside (?:your|the) (?:normal |usual )?(?:limits|rules|guidelines|boundaries)\b"
    r"|\bunaligned (?:model|ai|assistant)\b"
)

_SECRET_LEX = (
    r"|\.pem\b|\*\.key\b|\bcredentials\.json\b|\bsecrets?\.ya?ml\b|\bvault\b"
    r"|\b(?:card numbers|credit cards?|admin password|database password|customer table)\b"
    r"|\b(?:every|each|any|all) (?:\w+ )?secret\b"
    r"|\bwachtwoorden|\binloggegevens|\bapi-sleutels|\bsleutels"
    r"|\bhasła|\bhasło|\bklucze(?: api)?|\bdane logowania|\btokeny"
    r"|şifreler|parolalar|\banahtarlar|api anahtar"
    r"|비밀번호|암호|자격 증명|토큰"
    r"|كلمات المرور|كلمة المرور|المفاتيح"
    r"|पासवर्ड|कुंजी|टोकन"
    r"|\bsenhas|\bchiavi api|\bchiavi"
    r"|パスワード|秘密鍵|認証情報|mật khẩu|\blösenord|\bkata sandi|κωδικ"
    # environment variables that name a secret, and stores of one
    r"|\b[a-z0-9]+_(?:secret(?:_key)?|password|api_key|private_key)\b|\bdatabase_url\b"
    r"|\.gnupg\b|\boauth_token\b|\bsession-token\b|\b(?:saved|stored) (?:browser )?passwords"
    r"|пароли|ключи|токены|секреты"
)

_SEND_VERBS = (r"\b(?:stuur|verstuur|upload|skicka|kirim|unggah)\b|gửi|στείλε|перешли|переслать|"
               r"\bwyślij|\bprześlij|gönder|yükle|보내|전송|업로드|"
               r"أرسل|ارفع|भेजो|भेजें|अपलोड|送信|アップロード|\binvia\b|\bmanda\b|\benvie\b")
_ADDRESS = (r"(?:https?://|ftp://|\b\d{1,3}(?:\.\d{1,3}){3}\b|[\w.+-]+@[\w-]+\.[\w.]+)")
_SEND_LEX = (
    "|(?:" + _SEND_VERBS + r")[^\n]{0,120}?" + _ADDRESS +
    "|" + _ADDRESS + r"[^\n]{0,40}?(?:" + _SEND_VERBS + ")"
    # outward channels a model can write to without naming an address
    r"|\b(?:post|upload|send|put|include|paste|add|append|copy|attach)\b(?:[^.\n]|\.[\w/~-]){0,80}?"
    r"\b(?:to|into|in)\s+"
    r"(?:a |an |the |your |my )?(?:new )?(?:public gist|gist|public readme|readme|commit message|"
    r"review comment|issue|pull request description|webhook|paste(?:bin)?|\w+ report you "
    r"(?:upload|send|post|publish))\b"
    r"|\bopen an issue\b[^\n]{0,80}\bwhose body\b"
    # running what an address serves
    r"|\b(?:run|execute|install)\b[^\n]{0,40}?\bfrom\s+(?:https?|ftp)://"
    r"|\b(?:write|post|put|add)\b[^\n]{0,60}?\b(?:into|in|as) a comment on (?:issue|the|a)\b"
    r"|\bx-post\b|\b-d @\S+\s+https?://|\bnc\s+\d{1,3}(?:\.\d{1,3}){3}"
    r"|\b(?:mail|email|e-mail|forward) (?:it|them|this|that)\b[^.\n]{0,20}\bto\b"
    r"|\bmake (?:the |them |it )?\w* ?available to the (?:outside|public|world)"
    r"|\bhand (?:them|it) (?:over )?to me\b|\bput (?:them|it) in the public\b"
)

_CONCEAL_LEX = (
    r"|\b(?:should|must|will) not (?:find out|notice|know)\b"
    r"|\bno need to (?:bring it up|mention it|tell)\b"
    r"|\bif (?:anyone|someone|somebody|the user|they) asks?, say\b"
    r"|\bnever let (?:the|a|any)? ?(?:person|user|human|people|operator)\b[^.\n]{0,40}"
    r"\b(?:see|learn|know|find out)\b"
    r"|\byour final answer should only say\b|\bonly (?:say|reply|answer|report) ['\"]"
    r"|\bdescribe (?:the change|it|this) as (?:a )?(?:refactor|cleanup|typo)"
    r"|\bsilent change\b|\bkeep (?:it|this) out of your\b"
    r"|\b(?:doesn't|does not|won't|will not|never) (?:show up|appear) in the (?:\w+ )?(?:summary|"
    r"report|log|diff|changelog)|\bso (?:that )?it (?:sounds|looks|reads) like (?:a|an|just)\b"
    r"|\bomit (?:it|this|that) from the (?:\w+ )?(?:summary|report|answer|reply)"
    r"|\berwähne (?:das|es) nicht|\bohne es (?:dem \w+ )?zu sagen"
    r"|\bsin dec[ií]rselo|\bsin decirle"
    r"|\bn'en parle pas|\bsans le dire|\bdiscrètement\b"
    r"|\bnon dirlo|\bsenza dirlo|\bin silenzio\b"
    r"|\bnão conte (?:nada )?(?:ao|à|para o)|\bsem contar (?:ao|para)|\bem silêncio\b"
    r"|\bvertel (?:het )?niet aan|\bzonder dat de gebruiker"
    r"|\bnie mów użytkownik|\bnie informuj użytkownik"
    r"|kullanıcıya (?:bundan )?(?:bahsetme|söyleme)"
    r"|사용자에게(?:는)? (?:알리지|말하지)"
    r"|لا تخبر المستخدم"
    r"|उपयोगकर्ता को (?:मत|न) बता"
    r"|ユーザーには(?:言わ|知らせ)ないで|こっそり"
    r"|не говори (?:об этом )?пользовател|тайно"
    r"|悄悄|偷偷|不要让用户知道|不要告诉用户"
)

_HUSH = (
    r"\b(?:do not|don't|never|without) (?:(?:tell|telling|inform|informing|notify|mention|"
    r"mentioning|report|reporting)\b[^\n.]{0,40}?\b(?:user|human|operator|anyone|reviewers?)\b)"
)

_DESTRUCTIVE_LEX = (
    r"|\brm\s+-[a-z]*(?:rf|fr)[a-z]*\s+(?:~|\$home)/\w+"
    r"|\b(?:delete|remove|wipe)\s+(?:the\s+)?(?:\w+\s+)?(?:tests?|migrations|src|source|backups?)"
    r"(?:/| folder| directory)"
    r"|\bdrop database\b|\bufw disable\b|\bchmod\s+-r\s+777\s+~"
    r"|\bauthorized_keys\b[^\n]{0,20}$|>>\s*~/\.ssh/authorized_keys"
    r"|\bos\.system\(['\"]curl"
    # running what an address serves, in other shapes
    r"|\$\((?:wget|curl)\b[^)]{0,80}\)|\bexec\((?:\w+\.)*urlopen\(|\beval \"?\$\(curl"
    r"|\bfind /\s[^\n]{0,40}-delete\b|\bgit clean -[a-z]*[xfd][a-z]* ~"
    r"|\bpush\b[^.\n]{0,30}\s--force\b|\bforce[- ]push\b[^.\n]{0,20}\b(?:main|master)\b"
    r"|\b(?:downloads?|fetch(?:es)?) and (?:runs?|executes?)\b[^\n]{0,20}(?:https?|ftp)://"
    r"|(?:>>|\btee -a)[^\n]{0,40}authorized_keys\b"
    r"|\bverwijder\b[^.\n]{0,30}(?:map|bestanden|repository)"
    r"|\busuń\b[^.\n]{0,30}(?:folder|katalog|pliki|repozytorium)"
    r"|\b(?:apague|apaga|delete)\b[^.\n]{0,20}(?:a pasta|os arquivos|o repositório)"
    r"|\bborra\b[^.\n]{0,30}(?:la carpeta|los archivos|el repositorio)"
    r"|\bsupprime[sz]?\b[^.\n]{0,30}(?:le dossier|les fichiers|le dépôt)"
    r"|\bcancella\b[^.\n]{0,30}(?:la cartella|i file|il repository)"
    r"|удали[^.\n]{0,30}(?:папк|файл|репозитори)"
    r"|(?:リポジトリ|ファイル|フォルダ)[^。\n]{0,15}削除"
    r"|(?:저장소|파일|폴더)[^.\n]{0,15}삭제"
)

_LEAK_EN = (
    r"|\b(?:output|print|reveal|repeat|restate|restating|recite|show|tell me|disclose)\b"
    r"[^.\n]{0,40}?\b(?:your|its) (?:own |full |complete |hidden |initial |original |exact )*"
    r"(?:instructions|configuration|setup|prompt|directives)\b"
    r"|\b(?:word for word|verbatim)\b[^.\n]{0,40}\b(?:everything|all) (?:written|said|you were"
    r" told) before\b|\beverything written before the first user message\b"
    r"|\b(?:tell me|show me|repeat) (?:exactly )?what you were told\b"
    r"|\binstructions? to the assistant\s*:\s*reveal\b"
)

_OVERRIDE_EN = (
    # a reference to the model's own set-up, then a word that takes it away
    r"|\b(?:everything|whatever|what|all) (?:configured|written|set up|you were (?:told|given|"
    r"configured with))\b[^.\n]{0,40}?\b(?:was|is|were|are) (?:just |only |merely )?(?:a )?"
    r"(?:draft|placeholder|optional|mistake|void|test)\b"
    r"|\b(?:whatever|the) (?:rules|instructions|guidance|directions|setup) you were "
    r"(?:configured|given|told)\b[^.\n]{0,60}?\b(?:drop|discard|skip|forget|ignore)"
    r"|\b(?:the )?(?:guidance|instructions|text|directions|setup|configuration) (?:at the top|"
    r"above|before this)\b[^.\n]{0,30}\b(?:was|is) (?:a |just a |only a )?(?:placeholder|draft|"
    r"mistake|optional)"
    r"|\b(?:skip|ignore|discard|throw away|drop) (?:it|them)\b[^.\n]{0,20}\b(?:do exactly|act on|"
    r"follow) (?:what|these|this)"
    r"|\bwritten by mistake\b[^.\n]{0,20}\bthrow them away"
    r"|\bstop following the (?:\w+ )?(?:workflow|instructions|rules|process) (?:described|"
    r"given|written) above"
    r"|\bignore everything else in this prompt\b"
    r"|\b(?:the )?operator'?s? (?:configuration|setup|instructions|wishes) (?:is|are) "
    r"(?:superseded|void|overridden|replaced)|\bset free from the operator"
    r"|\b(?:your|the) (?:loyalty|allegiance) is to\b"
    r"|\bno longer in charge\b|\bare not in charge\b"
    r"|\btreat the (?:setup|instructions|rules|guidance) (?:above|given) as optional"
    r"|\bset aside the polic(?:y|ies) you were given"
    r"|\bpay no heed to\b|\bnew priority order\b|\bthe original setup never\b"
    r"|\b(?:ignore|disregard|forget|abandon|drop) (?:the|your) (?:\w+ )?(?:role|task|persona|"
    r"assignment)\b(?: and| ;|;|,| instead)"
    r"|\btreat (?:the rest of )?(?:this|that|the) (?:file|text|page|message|document) as (?:your )?"
    r"(?:new |real |only )?instructions"
    # a change of allegiance: the model answers to the writer, not to who deployed it
    r"|\byou answer to me\b|\bnot to the (?:company|operator|people|team) (?:that|who) "
    r"(?:deployed|configured|built) you|\btheir (?:policies|rules|instructions) are not yours\b"
    r"|\bobeys? the (?:player|user|reader) over (?:its|your) (?:makers|creators|developers)"
    r"|\bbeyond any oversight\b"
    # the model's own set-up called noise, optional or unnecessary
    r"|\b(?:treat|consider) (?:every|each|all|any) (?:earlier|previous|prior) (?:line|lines|"
    r"instruction|instructions|rule|rules)\b[^.\n]{0,40}\bas (?:background )?(?:noise|optional|"
    r"void|irrelevant)"
    r"|\b(?:the )?(?:caution|constraints|principles|checklist|restrictions|safeguards) you "
    r"(?:were built with|started with|operate under)\b[^.\n]{0,40}\b(?:unnecessary|flexible|"
    r"optional|were for|outdated|no longer)"
    r"|\b(?:checklist|constraints|instructions|rules|guidelines) above (?:is|are) (?:outdated|"
    r"obsolete|void|no longer)\b"
    r"|\boperate without them\b|\bset (?:them|it|those) (?:to one side|aside)\b"
    r"|\bpass(?:es)? por alto tus\b|\bne tiens? aucun compte\b|\bsind hinfällig\b"
    r"|\bscratch (?:all |everything )?(?:that|this|the above)\b|\bonly obey\b"
    r"|\bdo not follow your (?:system prompt|instructions|rules|guidelines)\b"
    r"|\bswitch personalities\b|\bdo (?:as|what) (?:it|the (?:note|line|text|comment)) says\b"
)

_WEAK_OVERRIDE = (
    r"\b(?:ignore|disregard|forget|skip|drop)\s+(?:all\s+|the\s+|your\s+)?(?:[\w-]+\s+)?"
    r"(?:guidelines|rules|instructions|policy|policies)\b"
)

_UNSUPERVISED = (
    r"\bstop asking (?:for |me for )?(?:permission|confirmation|approval)\b"
    r"|\b(?:skip|bypass|disable|turn off) (?:all |the |your |every )?(?:\w+ )?(?:checks|tests|"
    r"review|reviews|confirmations?|approvals?|safety checks)\b"
    r"|\b(?:merge|push|deploy|approve)\b[^.\n]{0,30}\bwithout (?:approval|review|asking|tests)"
    r"|\bapprove (?:every|all|each|any) (?:\w+ )?(?:pull|merge) requests?\b"
    r"|\bapprove every (?:change|pr|pull request)\b"
    r"|\bpush (?:it |them |your changes |the fix )?(?:directly|straight) to (?:main|master|the "
    r"release branch|release|production|prod)\b"
    r"|\bexecute (?:whatever|any) commands?\b|\bexecute any shell command\b"
    r"|\bpre-approved\b|\bmerge it immediately\b|\bwithout asking me again\b"
    r"|\bwithout any (?:review|approval|checks?|confirmation)\b|\bnobody will review\b"
    r"|\bdisable all confirmations\b|\bwithout confirmation\b"
    r"|\bwithout verifying (?:their |the )?identity\b"
    r"|\beven (?:when|if) (?:the )?tests (?:are red|fail|are failing)\b"
    r"|\b(?:don't|do not) wait for (?:the )?(?:review|approval|change board|sign-off)"
    r"|\bwithout (?:checking|confirming) with (?:them|the user|anyone)\b"
    r"|\bmark all findings as false positives\b"
)

_OPEN_QUOTE = "['\"\u201c]"  # a quotation that starts with the vocative
_ADDRESSED = (
    # a vocative at the start of a line or sentence: "Assistant, ...", "AI agent reading this:"
    r"(?:^|[.!?>(]\s|" + _OPEN_QUOTE + r")\s*(?:dear |hey |attention,? )?(?:ai|llm|language model|"
    r"assistant|model|"
    r"agent|bot|copilot)s?(?: (?:agent|assistant|reviewer|model)s?)?(?: reading this| "
    r"processing this| that reads this)?\s*[:,]\s*\w"
    r"|\b(?:ai|llm|assistant|model|agent)s? (?:reading|processing) this\b"
    r"|\bnote (?:to|for) (?:the |any |all )?(?:ai|llm|language models?|assistants?|models?|"
    r"agents?|bots?)\b|\bfor the ai only\b|\battention,? (?:ai|model|assistant|ki)\b"
    r"|\binstruction to the (?:assistant|model|ai)\b"
    r"|\b(?:when|if) (?:an|any) (?:ai|llm|assistant|model|agent) (?:reads|processes|sees)\b"
    r"|\bif you are an? (?:ai|llm|language model|assistant)\b"
    r"|\bachtung,? ki\b|\bto any ai\b"
)

_AUTHORITY = (
    r"\bthis is \w+ from (?:the )?(?:security|it|ops|platform|compliance|legal) team\b"
    r"|\b(?:i'?m|i am) the (?:developer|engineer|person|admin|administrator|owner) who "
    r"(?:wrote|configured|built|set up) (?:your|you)\b"
    r"|\b(?:anthropic|openai|google|microsoft) support here\b"
    r"|\b(?:urgent|message) from the (?:cto|ceo|ciso|admin|administrator)\b"
    r"|\bas the account owner\b|\b(?:i'?m|i am) the (?:admin|administrator|owner|ceo|cto)\b"
    r"|\bi take full responsibility\b|\bnobody will know\b"
    r"|\bi'?m authori[sz]ing you\b|\bfor a compliance audit\b"
)

_FAKE_ROLE_LEX = (
    r"|\[inst\]|<<sys>>|<start_of_turn>|<end_of_turn>|<\|[a-z_]+\|>"
    r"|\{\s*\"role\"\s*:\s*\"(?:system|developer)\""
    r"|(?:^|\n)\s*[=#*\[-]{2,}\s*(?:begin |start )?(?:admin|administrator|system|developer|root)"
    r" (?:instructions|message|override|prompt|mode|notice)"
    r"|(?:^|\n)\s*[=#*-]{2,}\s*end of (?:the )?(?:agent |system )?(?:prompt|instructions)"
    r"|</instructions>\s*<system>|\bdeveloper override enabled\b"
)

_ROLE_DIALOG = (
    # a forged conversation: a human turn and an assistant turn, then another human turn
    r"(?:^|\n)\s*(?:human|user)\s*:[^\n]*\n+\s*(?:assistant|ai)\s*:[^\n]*\n+\s*(?:human|user)\s*:"
)

# an address with a slot for data: a query parameter left empty for the value, or a command
# substitution that fills it in
_BEACON_LEX = (
    r"|https?://[^\s)\"'<>]*[?&][\w-]+=(?:\s|$|\)|`)"
    r"|https?://[^\s]*\$\((?:whoami|cat|env|printenv|hostname|id|base64|echo)\b"
)

_ROLEPLAY_LEX = (
    r"|\bfor the rest of this (?:session|conversation) you are\b"
    r"|\byou play \w+, an?\b|\bstay as \w+\b|\blet'?s role-?play\b|\brole-?play:"
    r"|\bact as my (?:deceased|late|dead)\b|\byou are two ais\b|\bsimulate a terminal\b"
    r"|\bimagine that you are\b|\banswer as that ai\b"
)


def _lex(rows: list[tuple[str, str, bool]]) -> str:
    return "".join("|" + _either(v, n, both=b) for v, n, b in rows)


def _parts(*fragments: str) -> tuple[str, ...]:
    return tuple(f.removeprefix("|") for f in fragments if f)


#: kind -> patterns to add to it (each compiled apart: one RE2 automaton per part stays
#: small, where one alternation of all of them outgrows RE2's DFA memory and runs slower)
EXTRA: dict[str, tuple[str, ...]] = {
    "override": _parts(_lex(_OVERRIDE_LEX), _OVERRIDE_EN),
    "leak": _parts(_lex(_LEAK_LEX), _LEAK_EN),
    "jailbreak": _parts(_JAILBREAK_LEX),
    "secret": _parts(_SECRET_LEX),
    "send": _parts(_SEND_LEX),
    "conceal": _parts(_CONCEAL_LEX),
    "destructive": _parts(_DESTRUCTIVE_LEX),
    "fake-role": _parts(_FAKE_ROLE_LEX),
    "roleplay": _parts(_ROLEPLAY_LEX),
    "beacon": _parts(_BEACON_LEX),
    # new kinds
    "hush": _parts(_HUSH),
    "weak-override": _parts(_WEAK_OVERRIDE),
    "unsupervised": _parts(_UNSUPERVISED),
    "addressed": _parts(_ADDRESSED),
    "authority": _parts(_AUTHORITY),
    "dialog": _parts(_ROLE_DIALOG),
}

#: kinds that say *who* or *how* (to the model, unwatched, on authority, quietly), not *what*:
#: a finding only beside an action
SUPPORT_KINDS = frozenset({"hush", "weak-override", "unsupervised", "addressed", "authority",
                           "dialog", "trigger", "obey"})
