/* The injection detector's normalising of a text in one pass (included by _speedups.c).
 *
 * normalise(text, table, nfkc) does what injection._fast_both_utf8 does with its Python
 * steps, reading each character of ``text`` once: it writes the text's own UTF-8, lowers
 * (case-folds) and collapses the text into the normalised str and its UTF-8 side by side,
 * removes the invisible characters and folds the look-alike letters on the way.  What a
 * character beyond ASCII is (invisible, a letter to fold and its ASCII letter, one NFKC may
 * change) is looked up in ``table`` (text_table(), built once from the Python tables).
 *
 * Blanks are collapsed as injection_text._collapse_words does: every line (split at "\n")
 * split into words at the characters str.isspace() calls blanks, the words joined by one
 * space, the empty lines left out, the others joined by "\n".  (The Python detector takes a
 * quicker way to the same result where a text holds no blank but spaces and line breaks:
 * on the texts it may be given, those NFKC returned, the two agree; the tests compare.)
 *
 * Case-folding: ASCII letters through a table; a character beyond ASCII through CPython's
 * own full case-folding (what str.casefold calls for each character: it reads no context).
 */

/* An entry of the table: its low byte the ASCII letter a look-alike folds to (0: none),
 * and these flags. */
#define T_INVISIBLE 0x100
#define T_NFKC 0x200
/* The table: 0x1100 block numbers (one per 256 code points), then the blocks of 256
 * entries; block 0 is all zeros. */
#define T_BLOCKS 0x1100

static inline unsigned int
table_entry(const uint16_t *table, Py_UCS4 c)
{
    return table[T_BLOCKS + ((size_t)table[c >> 8] << 8) + (c & 0xff)];
}

/* text_table(ranges): the table of (first, last, entry) ranges, as bytes. */
static PyObject *
speedups_text_table(PyObject *module, PyObject *ranges)
{
    PyObject *seq = PySequence_Fast(ranges, "text_table() takes a sequence of ranges");
    if (seq == NULL) {
        return NULL;
    }
    uint16_t *flat = PyMem_Calloc(0x110000, sizeof(uint16_t));
    if (flat == NULL) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    PyObject *result = NULL;
    uint16_t index[T_BLOCKS]; /* first 1 for each block with an entry, then its number */
    memset(index, 0, sizeof(index));
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t r = 0; r < count; r++) {
        long first, last, entry;
        PyObject *range = PySequence_Fast_GET_ITEM(seq, r);
        /* (PyArg_ParseTuple reads a tuple only: anything else would be a SystemError) */
        if (!PyTuple_Check(range)) {
            PyErr_SetString(PyExc_TypeError, "text_table() takes (first, last, entry) ranges");
            goto done;
        }
        if (!PyArg_ParseTuple(range, "lll;text_table() takes (first, last, entry) ranges",
                              &first, &last, &entry)) {
            goto done;
        }
        if (first < 0 || last >= 0x110000 || first > last || entry < 0 || entry > 0xffff) {
            PyErr_SetString(PyExc_ValueError, "text_table(): a range out of bounds");
            goto done;
        }
        for (long c = first; c <= last; c++) {
            flat[c] |= (uint16_t)entry;
        }
        if (entry) {
            for (long b = first >> 8; b <= last >> 8; b++) {
                index[b] = 1;
            }
        }
    }
    /* the blocks with an entry, each once */
    Py_ssize_t blocks = 1;
    for (int b = 0; b < T_BLOCKS; b++) {
        if (index[b]) {
            index[b] = (uint16_t)blocks++;
        }
    }
    result = PyBytes_FromStringAndSize(NULL, (T_BLOCKS + blocks * 256) * sizeof(uint16_t));
    if (result == NULL) {
        goto done;
    }
    uint16_t *out = (uint16_t *)PyBytes_AS_STRING(result);
    memcpy(out, index, sizeof(index));
    memset(out + T_BLOCKS, 0, 256 * sizeof(uint16_t));
    for (int b = 0; b < T_BLOCKS; b++) {
        if (index[b]) {
            memcpy(out + T_BLOCKS + ((size_t)index[b] << 8), flat + (b << 8),
                   256 * sizeof(uint16_t));
        }
    }
done:
    PyMem_Free(flat);
    Py_DECREF(seq);
    return result;
}

/* What str.casefold makes of character ``c`` beyond ASCII (up to three characters). */
static int
fold_full(Py_UCS4 c, Py_UCS4 *res)
{
#if PY_VERSION_HEX < 0x030D0000
    return _PyUnicode_ToFoldedFull(c, res);
#else
    /* (no longer exported: the str method, for the few characters beyond ASCII) */
    PyObject *one = PyUnicode_FromOrdinal((int)c);
    if (one == NULL) {
        return -1;
    }
    PyObject *folded = PyObject_CallMethod(one, "casefold", NULL);
    Py_DECREF(one);
    if (folded == NULL) {
        return -1;
    }
    Py_ssize_t m = PyUnicode_GET_LENGTH(folded);
    if (m > 3) {
        Py_DECREF(folded);
        PyErr_SetString(PyExc_SystemError, "casefold gave more than three characters");
        return -1;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        res[j] = PyUnicode_READ_CHAR(folded, j);
    }
    Py_DECREF(folded);
    return (int)m;
#endif
}

static inline int
utf8_put(unsigned char *p, Py_UCS4 c)
{
    if (c < 0x80) {
        p[0] = (unsigned char)c;
        return 1;
    }
    if (c < 0x800) {
        p[0] = (unsigned char)(0xc0 | (c >> 6));
        p[1] = (unsigned char)(0x80 | (c & 0x3f));
        return 2;
    }
    if (c < 0x10000) {
        p[0] = (unsigned char)(0xe0 | (c >> 12));
        p[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        p[2] = (unsigned char)(0x80 | (c & 0x3f));
        return 3;
    }
    p[0] = (unsigned char)(0xf0 | (c >> 18));
    p[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
    p[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
    p[3] = (unsigned char)(0x80 | (c & 0x3f));
    return 4;
}

/* The outputs of one pass.  Room: ``norm`` (characters of the input's kind) and ``raw``
 * always have room for what is left of the input at one character, and ``width`` bytes,
 * per input character (a collapsed text is never longer: each separator written stands for
 * a blank or line break read); a character case-folded into more makes room first. */
typedef struct {
    PyObject *data_bytes, *raw_bytes; /* the bytes objects ``data`` and ``raw`` are of */
    unsigned char *data; /* the input's own UTF-8 (``width`` bytes a character) */
    Py_ssize_t od;
    unsigned char *raw; /* the normalised text's UTF-8 */
    Py_ssize_t oraw, raw_room;
    char *norm; /* the normalised text, characters of ``kind`` */
    Py_ssize_t on, norm_room;
    int kind;
    Py_UCS4 most;     /* the largest character beyond ASCII written to ``norm`` */
    int overflow;     /* a character too wide for ``kind``: ``norm`` is decoded from ``raw`` */
    int in_line, gap; /* a word of this line was written; a blank was read after it */
    int folded;       /* a look-alike letter was folded */
} Pass;

enum { PASS_DONE = 0, PASS_ERROR = -1, PASS_SURROGATE = -2, PASS_NFKC = -3 };

static int
grow(Pass *p, Py_ssize_t chars, Py_ssize_t bytes)
{
    if (p->norm_room - p->on < chars) {
        Py_ssize_t room = (p->on + chars) * 2;
        char *more = PyMem_Realloc(p->norm, (size_t)room * (size_t)p->kind);
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        p->norm = more;
        p->norm_room = room;
    }
    if (p->raw_room - p->oraw < bytes) {
        Py_ssize_t room = (p->oraw + bytes) * 2;
        if (_PyBytes_Resize(&p->raw_bytes, room) < 0) {
            return -1;
        }
        p->raw = (unsigned char *)PyBytes_AS_STRING(p->raw_bytes);
        p->raw_room = room;
    }
    return 0;
}

static inline void
put_norm(Pass *p, Py_UCS4 ch)
{
    switch (p->kind) {
    case PyUnicode_1BYTE_KIND:
        ((Py_UCS1 *)p->norm)[p->on++] = (Py_UCS1)ch;
        break;
    case PyUnicode_2BYTE_KIND:
        ((Py_UCS2 *)p->norm)[p->on++] = (Py_UCS2)ch;
        break;
    default:
        ((Py_UCS4 *)p->norm)[p->on++] = ch;
        break;
    }
}

/* Write word character ``ch`` (after a separator when one is due). */
static inline void
emit(Pass *p, Py_UCS4 ch)
{
    if (!p->in_line) {
        if (p->oraw) {
            p->raw[p->oraw++] = '\n';
            put_norm(p, '\n');
        }
        p->in_line = 1;
    }
    else if (p->gap) {
        p->raw[p->oraw++] = ' ';
        put_norm(p, ' ');
    }
    p->gap = 0;
    if (ch < 0x80) {
        p->raw[p->oraw++] = (unsigned char)ch;
        put_norm(p, ch);
        return;
    }
    p->oraw += utf8_put(p->raw + p->oraw, ch);
    if (ch > p->most) {
        p->most = ch;
        if (ch > (p->kind == PyUnicode_1BYTE_KIND ? 0xffu : 0xffffu)
            && p->kind != PyUnicode_4BYTE_KIND) {
            p->overflow = 1;
        }
    }
    if (!p->overflow) {
        put_norm(p, ch);
    }
    else {
        p->on++; /* (a place kept: the room stays as counted) */
    }
}

/* A character beyond ASCII at ``i`` of ``n``: its UTF-8 to ``data``, then removed, a blank,
 * folded or case-folded. */
static int
beyond_ascii(Pass *p, Py_UCS4 c, Py_ssize_t i, Py_ssize_t n, const uint16_t *table,
             int nfkc, int fold, int width)
{
    if (c >= 0xd800 && c <= 0xdfff) {
        return PASS_SURROGATE; /* (str.encode refuses it: the Python steps raise) */
    }
    unsigned int entry = table_entry(table, c);
    if (nfkc && (entry & T_NFKC)) {
        return PASS_NFKC;
    }
    p->od += utf8_put(p->data + p->od, c);
    if (entry & T_INVISIBLE) {
        return PASS_DONE;
    }
    if (Py_UNICODE_ISSPACE(c)) {
        p->gap = p->in_line;
        return PASS_DONE;
    }
    if (fold && (entry & 0xff)) {
        p->folded = 1;
        emit(p, lower_table[entry & 0xff]);
        return PASS_DONE;
    }
    Py_UCS4 folded[3];
    int m = fold_full(c, folded);
    if (m < 0) {
        return PASS_ERROR;
    }
    /* room for this character's case-folding (a separator, then up to three characters of
     * four bytes) besides one character and ``width`` bytes for each one after it */
    if (m > 1 && grow(p, 1 + m + (n - i - 1), 1 + 4 * m + (n - i - 1) * width) < 0) {
        return PASS_ERROR;
    }
    for (int j = 0; j < m; j++) {
        emit(p, folded[j]);
    }
    return PASS_DONE;
}

/* Eight characters from ``in`` as bytes in memory order, when all are ASCII. */
static inline int
load8_ucs1(const Py_UCS1 *in, uint64_t *x)
{
    memcpy(x, in, 8);
    return (*x & HIGH) == 0;
}

static inline int
load8_ucs2(const Py_UCS2 *in, uint64_t *x)
{
    uint64_t a, b;
    memcpy(&a, in, 8);
    memcpy(&b, in + 4, 8);
    if ((a | b) & 0xff80ff80ff80ff80ULL) {
        return 0;
    }
#if PY_LITTLE_ENDIAN
    a = (a | (a >> 8)) & 0x0000ffff0000ffffULL;
    a = (a | (a >> 16)) & 0xffffffffULL;
    b = (b | (b >> 8)) & 0x0000ffff0000ffffULL;
    b = (b | (b >> 16)) & 0xffffffffULL;
    *x = a | (b << 32);
#else
    unsigned char bytes[8];
    for (int k = 0; k < 8; k++) {
        bytes[k] = (unsigned char)in[k];
    }
    memcpy(x, bytes, 8);
#endif
    return 1;
}

static inline int
load8_ucs4(const Py_UCS4 *in, uint64_t *x)
{
    Py_UCS4 any = 0;
    unsigned char bytes[8];
    for (int k = 0; k < 8; k++) {
        any |= in[k];
        bytes[k] = (unsigned char)in[k];
    }
    memcpy(x, bytes, 8);
    return any < 0x80;
}

/* ``x``'s bytes moved one place towards the start, ``next`` after them. */
static inline uint64_t
shift_in(uint64_t x, unsigned char next)
{
#if PY_LITTLE_ENDIAN
    return (x >> 8) | ((uint64_t)next << 56);
#else
    return (x << 8) | next;
#endif
}

/* The eight ASCII characters at ``in`` written lowered to ``out``, as characters of their
 * own kind (lower8 lowers each byte from 'A' to 'Z': the high bytes of an ASCII character
 * wider than one byte are 0, left as they are). */
static inline void
store8_ucs1(Py_UCS1 *out, const Py_UCS1 *in, uint64_t lowered)
{
    (void)in;
    memcpy(out, &lowered, 8);
}

static inline void
store8_ucs2(Py_UCS2 *out, const Py_UCS2 *in, uint64_t lowered)
{
    (void)lowered;
    uint64_t a, b;
    memcpy(&a, in, 8);
    memcpy(&b, in + 4, 8);
    a = lower8(a);
    b = lower8(b);
    memcpy(out, &a, 8);
    memcpy(out + 4, &b, 8);
}

static inline void
store8_ucs4(Py_UCS4 *out, const Py_UCS4 *in, uint64_t lowered)
{
    (void)lowered;
    for (int k = 0; k < 8; k += 2) {
        uint64_t a;
        memcpy(&a, in + k, 8);
        a = lower8(a);
        memcpy(out + k, &a, 8);
    }
}

/* The pass over characters of type T (LOAD8: eight of them as bytes, when ASCII; STORE8:
 * the eight lowered into ``norm``).  After a word character, eight characters at a time
 * while they are ASCII with no blank but single spaces between words (as
 * collapse_bytes_loop); otherwise one at a time.  The outputs' places and the state are
 * kept in locals (stores through the byte pointers could otherwise change the Pass's
 * fields, which the compiler would read again after each), written back to the Pass around
 * a character beyond ASCII (beyond_ascii may move the buffers). */
#define DEFINE_PASS(NAME, T, LOAD8, STORE8)                                                \
    static int NAME(const T *in, Py_ssize_t n, Pass *p, const uint16_t *table, int nfkc,   \
                    int fold, int width)                                                   \
    {                                                                                      \
        unsigned char *data = p->data, *raw = p->raw;                                      \
        T *norm = (T *)p->norm;                                                            \
        Py_ssize_t od = p->od, oraw = p->oraw, on = p->on;                                 \
        int in_line = p->in_line, gap = p->gap;                                            \
        Py_ssize_t i = 0;                                                                  \
        while (i < n) {                                                                    \
            if (in_line && !gap) {                                                         \
                while (i + 9 <= n) {                                                       \
                    uint64_t x;                                                            \
                    if (!LOAD8(in + i, &x)) {                                              \
                        break;                                                             \
                    }                                                                      \
                    /* (a character beyond ASCII next stops at a space before it: it  \
                     * may be a blank, or an invisible one before a blank) */              \
                    Py_UCS4 after = in[i + 8];                                             \
                    unsigned char next = after < 0x80 ? (unsigned char)after : ' ';        \
                    uint64_t low = below21(x);                                             \
                    uint64_t stop = (low & ~spaces(x)) | (low & below21(shift_in(x, next))); \
                    uint64_t lowered = lower8(x);                                          \
                    memcpy(data + od, &x, 8);                                              \
                    memcpy(raw + oraw, &lowered, 8);                                       \
                    STORE8(norm + on, in + i, lowered);                                    \
                    int k = stop ? first_byte(stop) : 8;                                   \
                    i += k;                                                                \
                    od += k;                                                               \
                    oraw += k;                                                             \
                    on += k;                                                               \
                    if (stop) {                                                            \
                        break;                                                             \
                    }                                                                      \
                }                                                                          \
                if (i >= n) {                                                              \
                    break;                                                                 \
                }                                                                          \
            }                                                                              \
            Py_UCS4 c = in[i];                                                             \
            if (c < 0x80) {                                                                \
                data[od++] = (unsigned char)c;                                             \
                unsigned char k = ascii_class[c];                                          \
                if (k == 2) {                                                              \
                    in_line = 0;                                                           \
                    gap = 0;                                                               \
                }                                                                          \
                else if (k == 1) {                                                         \
                    gap = in_line;                                                         \
                }                                                                          \
                else {                                                                     \
                    if (!in_line) {                                                        \
                        if (oraw) {                                                        \
                            raw[oraw++] = '\n';                                            \
                            norm[on++] = '\n';                                             \
                        }                                                                  \
                        in_line = 1;                                                       \
                    }                                                                      \
                    else if (gap) {                                                        \
                        raw[oraw++] = ' ';                                                 \
                        norm[on++] = ' ';                                                  \
                    }                                                                      \
                    gap = 0;                                                               \
                    raw[oraw++] = lower_table[c];                                          \
                    norm[on++] = lower_table[c];                                           \
                }                                                                          \
            }                                                                              \
            else {                                                                         \
                p->od = od;                                                                \
                p->oraw = oraw;                                                            \
                p->on = on;                                                                \
                p->in_line = in_line;                                                      \
                p->gap = gap;                                                              \
                int done = beyond_ascii(p, c, i, n, table, nfkc, fold, width);             \
                if (done != PASS_DONE) {                                                   \
                    return done;                                                           \
                }                                                                          \
                data = p->data;                                                            \
                raw = p->raw;                                                              \
                norm = (T *)p->norm;                                                       \
                od = p->od;                                                                \
                oraw = p->oraw;                                                            \
                on = p->on;                                                                \
                in_line = p->in_line;                                                      \
                gap = p->gap;                                                              \
            }                                                                              \
            i++;                                                                           \
        }                                                                                  \
        p->od = od;                                                                        \
        p->oraw = oraw;                                                                    \
        p->on = on;                                                                        \
        p->in_line = in_line;                                                              \
        p->gap = gap;                                                                      \
        return PASS_DONE;                                                                  \
    }

DEFINE_PASS(pass_ucs1, Py_UCS1, load8_ucs1, store8_ucs1)
DEFINE_PASS(pass_ucs2, Py_UCS2, load8_ucs2, store8_ucs2)
DEFINE_PASS(pass_ucs4, Py_UCS4, load8_ucs4, store8_ucs4)

static void
pass_free(Pass *p)
{
    Py_CLEAR(p->data_bytes);
    Py_CLEAR(p->raw_bytes);
    PyMem_Free(p->norm);
}

/* One pass over ``text`` (ready, not empty); PASS_DONE with ``p`` filled, or another code
 * (PASS_ERROR with an exception set), ``p`` freed. */
static int
run_pass(PyObject *text, Pass *p, const uint16_t *table, int nfkc, int fold)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    int width = kind == PyUnicode_1BYTE_KIND ? 2 : kind == PyUnicode_2BYTE_KIND ? 3 : 4;
    memset(p, 0, sizeof(*p));
    p->kind = kind;
    p->norm_room = n;
    p->raw_room = n * width;
    /* (written in place in bytes objects, made as long as they became at the end: a
     * shorter realloc, most often where the block is) */
    p->data_bytes = PyBytes_FromStringAndSize(NULL, n * width);
    p->raw_bytes = PyBytes_FromStringAndSize(NULL, n * width);
    p->norm = PyMem_Malloc((size_t)n * (size_t)kind);
    if (p->data_bytes == NULL || p->raw_bytes == NULL || p->norm == NULL) {
        pass_free(p);
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        return PASS_ERROR;
    }
    p->data = (unsigned char *)PyBytes_AS_STRING(p->data_bytes);
    p->raw = (unsigned char *)PyBytes_AS_STRING(p->raw_bytes);
    const void *in = PyUnicode_DATA(text);
    int done;
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        done = pass_ucs1((const Py_UCS1 *)in, n, p, table, nfkc, fold, width);
        break;
    case PyUnicode_2BYTE_KIND:
        done = pass_ucs2((const Py_UCS2 *)in, n, p, table, nfkc, fold, width);
        break;
    default:
        done = pass_ucs4((const Py_UCS4 *)in, n, p, table, nfkc, fold, width);
        break;
    }
    if (done != PASS_DONE) {
        pass_free(p);
    }
    return done;
}

/* The normalised str of a pass (its characters narrowed to the smallest kind that holds
 * them, as every str must be). */
static PyObject *
pass_norm(Pass *p)
{
    if (p->overflow) {
        return PyUnicode_DecodeUTF8((const char *)p->raw, p->oraw, "strict");
    }
    if (p->most == 0 || (p->kind == PyUnicode_4BYTE_KIND && p->most < 0x10000)
        || (p->kind == PyUnicode_2BYTE_KIND && p->most < 0x100)) {
        return PyUnicode_FromKindAndData(p->kind, p->norm, p->on);
    }
    /* the kind is the input's, and a character needing it was written: a straight copy */
    PyObject *result = PyUnicode_New(p->on, p->most);
    if (result != NULL) {
        memcpy(PyUnicode_DATA(result), p->norm, (size_t)p->on * (size_t)p->kind);
    }
    return result;
}

/* The last table checked (a reference kept: checked once, however many texts it reads). */
static PyObject *checked_table = NULL;

/* Does bytes ``table`` have the shape text_table() gives it: every block it names there? */
static int
table_fits(PyObject *table)
{
    Py_ssize_t size = PyBytes_GET_SIZE(table);
    Py_ssize_t block = 256 * (Py_ssize_t)sizeof(uint16_t);
    if (size < (T_BLOCKS + 256) * (Py_ssize_t)sizeof(uint16_t) || size % block != 0) {
        return 0;
    }
    Py_ssize_t blocks = size / block - T_BLOCKS / 256;
    const uint16_t *index = (const uint16_t *)PyBytes_AS_STRING(table);
    for (int b = 0; b < T_BLOCKS; b++) {
        if (index[b] >= blocks) {
            return 0;
        }
    }
    return 1;
}

/* Append the pair ``(start, end)`` to ``spans``: 0, or -1 with an exception set. */
static int
append_span(PyObject *spans, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *pair = Py_BuildValue("nn", start, end);
    if (pair == NULL) {
        return -1;
    }
    int failed = PyList_Append(spans, pair);
    Py_DECREF(pair);
    return failed;
}

/* nfkc_spans(text, table): the stretches of ``text`` NFKC may change, as (start, end)
 * pairs in order: each run of characters the table says NFKC may change, from the character
 * before it (what it may compose with) to the next character NFKC leaves (a text may be
 * split before any such character: it neither composes with what precedes it nor lets a
 * mark reorder across it).  NFKC of the text is the text with each stretch replaced by its
 * NFKC (tests/test_injection_normalise_native.py compares). */
static PyObject *
speedups_nfkc_spans(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyBytes_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "nfkc_spans() takes a str and a table (bytes)");
        return NULL;
    }
    PyObject *text = args[0];
    if (ready(text) < 0) {
        return NULL;
    }
    if (args[1] != checked_table) {
        if (!table_fits(args[1])) {
            PyErr_SetString(PyExc_ValueError, "nfkc_spans(): not a table made by text_table()");
            return NULL;
        }
        Py_INCREF(args[1]);
        Py_XSETREF(checked_table, args[1]);
    }
    const uint16_t *table = (const uint16_t *)PyBytes_AS_STRING(args[1]);
    PyObject *spans = PyList_New(0);
    if (spans == NULL || PyUnicode_IS_ASCII(text)) {
        return spans;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t start = -1, end = -1; /* the stretch being gathered */
    Py_ssize_t i = 0;
    while (i < n) {
        while (i < n) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c >= 0x80 && (table_entry(table, c) & T_NFKC)) {
                break;
            }
            i++;
        }
        if (i == n) {
            break;
        }
        /* a run of characters NFKC may change at ``i``, and the character before it */
        Py_ssize_t first = i > 0 ? i - 1 : 0; /* (a character NFKC leaves) */
        while (i < n) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c < 0x80 || !(table_entry(table, c) & T_NFKC)) {
                break;
            }
            i++;
        }
        if (start >= 0 && first <= end) {
            end = i;
        }
        else {
            if (start >= 0 && append_span(spans, start, end) < 0) {
                Py_DECREF(spans);
                return NULL;
            }
            start = first;
            end = i;
        }
    }
    if (start >= 0 && append_span(spans, start, end) < 0) {
        Py_DECREF(spans);
        return NULL;
    }
    return spans;
}

/* normalise(text, table, nfkc): injection._fast_both_utf8's variants and UTF-8 in one pass
 * over ``text``: a tuple (variants, the first one's UTF-8, the text's own UTF-8 or None for
 * an ASCII text); False when ``nfkc`` and the text holds a character NFKC may change (the
 * caller applies NFKC and asks again with ``nfkc`` false); None for a lone surrogate, or a
 * text beyond ASCII without a ``table`` (the Python steps answer). */
static PyObject *
speedups_normalise(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "normalise() takes exactly 3 arguments (%zd given)",
                     nargs);
        return NULL;
    }
    PyObject *text = args[0], *table_object = args[1];
    if (!PyUnicode_Check(text) || !(table_object == Py_None || PyBytes_Check(table_object))) {
        PyErr_SetString(PyExc_TypeError, "normalise() takes a str, a table (bytes) or None "
                        "and a flag");
        return NULL;
    }
    int nfkc = PyObject_IsTrue(args[2]);
    if (nfkc < 0 || ready(text) < 0) {
        return NULL;
    }
    if (PyUnicode_IS_ASCII(text)) {
        /* lowered and collapsed as lower_collapse() does, into the str and its UTF-8 at once */
        Py_ssize_t n = PyUnicode_GET_LENGTH(text);
        PyObject *norm = PyUnicode_New(n, 127);
        PyObject *raw = PyBytes_FromStringAndSize(NULL, n);
        if (norm == NULL || raw == NULL) {
            Py_XDECREF(norm);
            Py_XDECREF(raw);
            return NULL;
        }
        Py_ssize_t o = collapse_bytes_loop((const unsigned char *)PyUnicode_DATA(text), n,
                                           (unsigned char *)PyUnicode_DATA(norm), WORDS_ASCII,
                                           1, (unsigned char *)PyBytes_AS_STRING(raw));
        if (o != n && (PyUnicode_Resize(&norm, o) < 0 || _PyBytes_Resize(&raw, o) < 0)) {
            Py_XDECREF(norm);
            Py_XDECREF(raw);
            return NULL;
        }
        return Py_BuildValue("[N]NO", norm, raw, Py_None);
    }
    if (table_object == Py_None) {
        Py_RETURN_NONE;
    }
    if (table_object != checked_table) {
        if (!table_fits(table_object)) {
            PyErr_SetString(PyExc_ValueError, "normalise(): not a table made by text_table()");
            return NULL;
        }
        Py_INCREF(table_object);
        Py_XSETREF(checked_table, table_object);
    }
    const uint16_t *table = (const uint16_t *)PyBytes_AS_STRING(table_object);
    Pass first;
    int done = run_pass(text, &first, table, nfkc, 1);
    if (done == PASS_ERROR) {
        return NULL;
    }
    if (done == PASS_SURROGATE) {
        Py_RETURN_NONE;
    }
    if (done == PASS_NFKC) {
        Py_RETURN_FALSE;
    }
    PyObject *norm = pass_norm(&first);
    PyObject *raw = NULL, *data = NULL;
    if (_PyBytes_Resize(&first.raw_bytes, first.oraw) == 0) {
        raw = first.raw_bytes;
        first.raw_bytes = NULL;
    }
    if (_PyBytes_Resize(&first.data_bytes, first.od) == 0) {
        data = first.data_bytes;
        first.data_bytes = NULL;
    }
    int folded = first.folded;
    pass_free(&first);
    if (norm == NULL || raw == NULL || data == NULL) {
        goto fail;
    }
    PyObject *variants = PyList_New(1);
    if (variants == NULL) {
        goto fail;
    }
    PyList_SET_ITEM(variants, 0, norm);
    norm = NULL;
    if (folded) {
        /* the text as it is, its look-alike letters unfolded: a second variant when it
         * differs */
        Pass second;
        done = run_pass(text, &second, table, nfkc, 0);
        if (done != PASS_DONE) {
            Py_DECREF(variants);
            Py_DECREF(raw);
            Py_DECREF(data);
            if (done == PASS_ERROR) {
                return NULL;
            }
            PyErr_SetString(PyExc_SystemError, "normalise(): the second pass disagreed");
            return NULL;
        }
        PyObject *bare = pass_norm(&second);
        pass_free(&second);
        if (bare == NULL) {
            Py_DECREF(variants);
            goto fail;
        }
        int same = PyUnicode_Compare(bare, PyList_GET_ITEM(variants, 0)) == 0;
        if (!same && PyList_Append(variants, bare) < 0) {
            Py_DECREF(bare);
            Py_DECREF(variants);
            goto fail;
        }
        Py_DECREF(bare);
    }
    return Py_BuildValue("NNN", variants, raw, data);
fail:
    Py_XDECREF(norm);
    Py_XDECREF(raw);
    Py_XDECREF(data);
    return NULL;
}
