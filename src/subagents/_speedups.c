/* subagents._speedups: the injection detector's blank collapsing in one pass, in C, and
 * (_speedups_text.c, included below) its whole normalising of a text in one pass.
 *
 * Optional: setup.py builds it as an optional extension, and a failed build leaves a
 * working install; subagents/lint/rules/injection_text.py then uses its Python functions,
 * which give exactly the same results (tests/test_injection_collapse_native.py compares
 * the two on hostile texts).  SUBAGENTS_NO_EXTENSION=1 makes it take the Python functions
 * even when this module is built.
 *
 * Why: the Python functions split a text into lines, strip, filter and join them; each of
 * the ~300k lines of a run over 2,000 files became a Python object.  Here every character
 * is read once and written once into the result, with no object per line.
 *
 * Two ways of collapsing, as in the Python functions:
 * - WORDS (_collapse_words): every line (split at "\n" only) split into words at any
 *   character str.isspace() calls a blank, the words joined by one space, the empty lines
 *   left out, the others joined by "\n".
 * - PLAIN (_collapse_plain, _collapse_utf8): every line stripped of its blanks at either end
 *   (str.strip, or bytes.strip for bytes), the empty ones left out, then each run of
 *   spaces inside a line written as one space; other blanks inside a line are kept as
 *   they are.  Taken only where the Python function takes it (the same checks); on ASCII
 *   text it gives what WORDS gives (tests check), so ASCII text always takes WORDS.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Is ``c`` one of the blanks whose presence sends a text the Python way to the words
 * version: the ASCII blanks other than a space, a line break and a CR (checked apart: a CR
 * counts only when no line break follows it), and those beyond ASCII NFKC leaves as they
 * are (injection_text._OTHER_NFKC_BLANKS). */
static inline int
other_blank(Py_UCS4 c)
{
    return c == '\t' || c == 0x0b || c == 0x0c || (c >= 0x1c && c <= 0x1f) || c == 0x85
           || c == 0x1680 || c == 0x2028 || c == 0x2029;
}

/* ASCII lower case, and a character class per byte for the ASCII words loop:
 * 0 a word character, 1 a blank (str.isspace) other than "\n", 2 "\n". */
static unsigned char lower_table[256];
static unsigned char ascii_class[256];

static void
init_tables(void)
{
    for (int c = 0; c < 256; c++) {
        lower_table[c] = (unsigned char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
        ascii_class[c] = (c < 128 && Py_UNICODE_ISSPACE(c)) ? 1 : 0;
    }
    ascii_class['\n'] = 2;
}

/* Eight bytes at a time (SWAR): the high bit of each byte below 0x21 (every ASCII blank
 * and line break is, with some control characters: all are left to the byte loop), of each
 * space, and the bytes with their ASCII capitals lowered.  Bytes from 0x80 up are none of
 * these and are left as they are: no sum below carries into the next byte. */
#define ONES 0x0101010101010101ULL
#define HIGH 0x8080808080808080ULL
#define LOW7 0x7f7f7f7f7f7f7f7fULL

static inline uint64_t
below21(uint64_t x)
{
    return ~(((x & LOW7) + ONES * (0x80 - 0x21)) | x) & HIGH;
}

static inline uint64_t
spaces(uint64_t x)
{
    uint64_t t = x ^ (ONES * 0x20);
    return ~(((t & LOW7) + LOW7) | t) & HIGH;
}

static inline uint64_t
lower8(uint64_t x)
{
    uint64_t h = x & LOW7;
    uint64_t from_a = h + ONES * (0x80 - 'A');
    uint64_t past_z = h + ONES * (0x80 - 'Z' - 1);
    return x | ((from_a & ~past_z & ~x & HIGH) >> 2);
}

/* The first byte (0-7) whose high bit is set in ``mask`` (not 0), in memory order. */
static inline int
first_byte(uint64_t mask)
{
#if defined(__GNUC__) || defined(__clang__)
#if PY_LITTLE_ENDIAN
    return __builtin_ctzll(mask) >> 3;
#else
    return __builtin_clzll(mask) >> 3;
#endif
#else
    unsigned char bytes[8];
    memcpy(bytes, &mask, 8);
    int k = 0;
    while (!(bytes[k] & 0x80)) {
        k++;
    }
    return k;
#endif
}

enum { WORDS_ASCII, PLAIN_BYTES };

/* WORDS over an ASCII str's characters (one byte each; ``mode`` WORDS_ASCII), or PLAIN over
 * UTF-8 bytes as _collapse_utf8 does it (PLAIN_BYTES: -1 when the bytes hold an ASCII blank
 * other than a space and a line break, or a CR not followed by a line break; bytes.strip's
 * other blanks are then only spaces and CRs before a line break), lowering ASCII capitals
 * when ``lower``, into ``out`` and, when not NULL, ``out2`` too.  Returns the length written
 * to ``out`` (room for ``n`` bytes: every
 * separator written stands for a blank or line break read, and a block is written at most
 * at ``o <= i`` with ``i + 9 <= n``).
 *
 * After a word character (or a space between two), the text is read eight bytes at a time:
 * a block with no byte below 0x21 but single spaces between other bytes is written as it is
 * (most of a prompt); from the first other byte, one byte at a time until the next word
 * character. */
static inline Py_ssize_t
collapse_bytes_loop(const unsigned char *in, Py_ssize_t n, unsigned char *out, int mode,
                    int lower, unsigned char *out2)
{
    Py_ssize_t o = 0, i = 0;
    int in_line = 0; /* a word of this line was written */
    int gap = 0;     /* a blank was read after it */
    while (i < n) {
        if (in_line && !gap) {
            while (i + 9 <= n) {
                uint64_t x, y;
                memcpy(&x, in + i, 8);
                memcpy(&y, in + i + 1, 8);
                uint64_t low = below21(x);
                uint64_t stop = (low & ~spaces(x)) | (low & below21(y));
                if (lower) {
                    x = lower8(x);
                }
                memcpy(out + o, &x, 8); /* the bytes before ``stop`` are kept */
                if (out2) {
                    memcpy(out2 + o, &x, 8);
                }
                if (stop) {
                    int k = first_byte(stop);
                    i += k;
                    o += k;
                    break;
                }
                i += 8;
                o += 8;
            }
            if (i >= n) {
                break;
            }
        }
        unsigned char c = in[i];
        unsigned char k = ascii_class[c];
        if (k == 2) {
            in_line = 0;
            gap = 0;
        }
        else if (k == 1) {
            if (mode == PLAIN_BYTES && c != ' '
                && (c != '\r' || i + 1 == n || in[i + 1] != '\n')) {
                return -1;
            }
            gap = in_line;
        }
        else {
            if (!in_line) {
                if (o) {
                    if (out2) {
                        out2[o] = '\n';
                    }
                    out[o++] = '\n';
                }
                in_line = 1;
            }
            else if (gap) {
                if (out2) {
                    out2[o] = ' ';
                }
                out[o++] = ' ';
            }
            gap = 0;
            if (out2) {
                out2[o] = lower ? lower_table[c] : c;
            }
            out[o++] = lower ? lower_table[c] : c;
        }
        i++;
    }
    return o;
}

/* WORDS and PLAIN over the characters of a str of any kind (T: Py_UCS1, Py_UCS2 or
 * Py_UCS4).  PLAIN returns -1 when the text holds a blank that sends the Python way to
 * WORDS (see other_blank), or a CR not followed by a line break. */
#define DEFINE_COLLAPSE(NAME, T)                                                          \
    static Py_ssize_t NAME(const T *in, Py_ssize_t n, T *out, int plain)                 \
    {                                                                                     \
        Py_ssize_t o = 0;                                                                 \
        int in_line = 0;                                                                  \
        Py_ssize_t pending = -1; /* where the blanks after this line's last word start */ \
        for (Py_ssize_t i = 0; i < n; i++) {                                              \
            Py_UCS4 c = in[i];                                                            \
            if (c == '\n') {                                                              \
                in_line = 0;                                                              \
                pending = -1;                                                             \
                continue;                                                                 \
            }                                                                             \
            if (Py_UNICODE_ISSPACE(c)) {                                                  \
                if (plain && (other_blank(c) || (c == '\r' && (i + 1 == n || in[i + 1] != '\n')))) \
                    return -1;                                                            \
                if (in_line && pending < 0)                                               \
                    pending = i;                                                          \
                continue;                                                                 \
            }                                                                             \
            if (!in_line) {                                                               \
                if (o)                                                                    \
                    out[o++] = '\n';                                                      \
                in_line = 1;                                                              \
            }                                                                             \
            else if (pending >= 0) {                                                      \
                if (!plain) {                                                             \
                    out[o++] = ' ';                                                       \
                }                                                                         \
                else {                                                                    \
                    int space = 0; /* the last character written was a space */          \
                    for (Py_ssize_t m = pending; m < i; m++) {                            \
                        if (in[m] == ' ') {                                               \
                            if (!space)                                                   \
                                out[o++] = ' ';                                           \
                            space = 1;                                                    \
                        }                                                                 \
                        else {                                                            \
                            out[o++] = in[m];                                             \
                            space = 0;                                                    \
                        }                                                                 \
                    }                                                                     \
                }                                                                         \
            }                                                                             \
            pending = -1;                                                                 \
            out[o++] = in[i];                                                             \
        }                                                                                 \
        return o;                                                                         \
    }

DEFINE_COLLAPSE(collapse_ucs1, Py_UCS1)
DEFINE_COLLAPSE(collapse_ucs2, Py_UCS2)
DEFINE_COLLAPSE(collapse_ucs4, Py_UCS4)

/* The collapse of str ``text``: WORDS, or PLAIN first when ``plain`` (then WORDS if PLAIN
 * refuses it); ``lower``: its letters lowered too (ASCII text only). */
/* A str's characters are read in place: before Python 3.12 a str made by the legacy API may
 * not have them yet (PyUnicode_READY makes them; a no-op since). */
static inline int
ready(PyObject *text)
{
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_READY(text);
#else
    (void)text;
    return 0;
#endif
}

static PyObject *
collapse_str(PyObject *text, int plain, int lower)
{
    if (ready(text) < 0) {
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    if (n == 0) {
        return PyUnicode_New(0, 0);
    }
    if (PyUnicode_IS_ASCII(text)) {
        PyObject *result = PyUnicode_New(n, 127);
        if (result == NULL) {
            return NULL;
        }
        unsigned char *out = (unsigned char *)PyUnicode_DATA(result);
        Py_ssize_t o = lower ? collapse_bytes_loop((const unsigned char *)data, n, out,
                                                   WORDS_ASCII, 1, NULL)
                             : collapse_bytes_loop((const unsigned char *)data, n, out,
                                                   WORDS_ASCII, 0, NULL);
        if (o != n && PyUnicode_Resize(&result, o) < 0) {
            Py_XDECREF(result); /* (left as it was on failure: ours to release) */
            return NULL;
        }
        return result;
    }
    void *out = PyMem_Malloc((size_t)n * (size_t)kind);
    if (out == NULL) {
        return PyErr_NoMemory();
    }
    Py_ssize_t o = -1;
    for (int p = plain; o < 0 && p >= 0; p--) {
        switch (kind) {
        case PyUnicode_1BYTE_KIND:
            o = collapse_ucs1((const Py_UCS1 *)data, n, (Py_UCS1 *)out, p);
            break;
        case PyUnicode_2BYTE_KIND:
            o = collapse_ucs2((const Py_UCS2 *)data, n, (Py_UCS2 *)out, p);
            break;
        default:
            o = collapse_ucs4((const Py_UCS4 *)data, n, (Py_UCS4 *)out, p);
            break;
        }
    }
    /* narrowed to the smallest kind that holds what is left, as every str must be */
    PyObject *result = PyUnicode_FromKindAndData(kind, out, o);
    PyMem_Free(out);
    return result;
}

/* collapse(text, nfkc=False): injection_text._collapse */
static PyObject *
speedups_collapse(PyObject *module, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static const char *const names[] = {"text", "nfkc"};
    PyObject *given[2] = {NULL, NULL};
    if (nargs > 2) {
        PyErr_Format(PyExc_TypeError, "collapse() takes at most 2 arguments (%zd given)",
                     nargs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        given[i] = args[i];
    }
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *name = PyTuple_GET_ITEM(kwnames, k);
        int slot = -1;
        for (int s = 0; s < 2; s++) {
            if (PyUnicode_CompareWithASCIIString(name, names[s]) == 0) {
                slot = s;
            }
        }
        if (slot < 0 || given[slot] != NULL) {
            PyErr_Format(PyExc_TypeError, "collapse() got an unexpected or repeated argument %R",
                         name);
            return NULL;
        }
        given[slot] = args[nargs + k];
    }
    if (given[0] == NULL) {
        PyErr_SetString(PyExc_TypeError, "collapse() missing required argument 'text'");
        return NULL;
    }
    if (!PyUnicode_Check(given[0])) {
        PyErr_Format(PyExc_TypeError, "collapse() argument 'text' must be str, not %.50s",
                     Py_TYPE(given[0])->tp_name);
        return NULL;
    }
    int nfkc = 0;
    if (given[1] != NULL && (nfkc = PyObject_IsTrue(given[1])) < 0) {
        return NULL;
    }
    /* as the Python function: ASCII text or NFKC's output take PLAIN where they may; any
     * other text WORDS (ASCII text always takes WORDS here: the same result) */
    return collapse_str(given[0], nfkc, 0);
}

/* lower_collapse(text): injection_text._lower_collapse, _collapse(text.lower()) */
static PyObject *
speedups_lower_collapse(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "lower_collapse() argument must be str, not %.50s",
                     Py_TYPE(text)->tp_name);
        return NULL;
    }
    if (ready(text) < 0) {
        return NULL;
    }
    if (PyUnicode_IS_ASCII(text)) {
        return collapse_str(text, 0, 1);
    }
    PyObject *lowered = PyObject_CallMethod(text, "lower", NULL);
    if (lowered == NULL) {
        return NULL;
    }
    PyObject *result = collapse_str(lowered, 0, 0);
    Py_DECREF(lowered);
    return result;
}

/* Does str ``text`` hold a blank beyond ASCII that NFKC leaves (U+0085, U+1680, U+2028,
 * U+2029)? */
static int
str_refused(PyObject *text)
{
    if (PyUnicode_IS_ASCII(text)) {
        return 0;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    if (kind == PyUnicode_1BYTE_KIND) {
        return memchr(data, 0x85, (size_t)n) != NULL;
    }
    /* no early exit: the compiler may do several characters at once */
    int found = 0;
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *u = (const Py_UCS2 *)data;
        for (Py_ssize_t i = 0; i < n; i++) {
            found |= (u[i] == 0x85) | (u[i] == 0x1680) | ((u[i] | 1) == 0x2029);
        }
    }
    else {
        const Py_UCS4 *u = (const Py_UCS4 *)data;
        for (Py_ssize_t i = 0; i < n; i++) {
            found |= (u[i] == 0x85) | (u[i] == 0x1680) | ((u[i] | 1) == 0x2029);
        }
    }
    return found;
}

static PyObject *
collapse_bytes(PyObject *const *args, Py_ssize_t nargs, const char *name, int lower)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly 2 arguments (%zd given)", name, nargs);
        return NULL;
    }
    if (!PyBytes_Check(args[0]) || !PyUnicode_Check(args[1])) {
        PyErr_Format(PyExc_TypeError, "%s() takes bytes and str", name);
        return NULL;
    }
    if (ready(args[1]) < 0) {
        return NULL;
    }
    const unsigned char *in = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t n = PyBytes_GET_SIZE(args[0]);
    if (str_refused(args[1])) {
        Py_RETURN_NONE;
    }
    PyObject *result = PyBytes_FromStringAndSize(NULL, n);
    if (result == NULL) {
        return NULL;
    }
    unsigned char *out = (unsigned char *)PyBytes_AS_STRING(result);
    Py_ssize_t o = lower ? collapse_bytes_loop(in, n, out, PLAIN_BYTES, 1, NULL)
                         : collapse_bytes_loop(in, n, out, PLAIN_BYTES, 0, NULL);
    if (o < 0) {
        Py_DECREF(result);
        Py_RETURN_NONE;
    }
    if (o != n && _PyBytes_Resize(&result, o) < 0) {
        return NULL;
    }
    return result;
}

/* collapse_utf8(data, text): injection_text._collapse_utf8 */
static PyObject *
speedups_collapse_utf8(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return collapse_bytes(args, nargs, "collapse_utf8", 0);
}

/* lower_collapse_utf8(data, text): injection_text._lower_collapse_utf8,
 * _collapse_utf8(data.lower(), text) */
static PyObject *
speedups_lower_collapse_utf8(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return collapse_bytes(args, nargs, "lower_collapse_utf8", 1);
}

/* normalise() and text_table(): the detector's normalising in one pass */
#include "_speedups_text.c"
/* similar_*(): the similar-description rule's loops */
#include "_speedups_similar.c"

/* simple_rows() and simple_pairs(): the simple frontmatter's lines and pairs */
#include "_speedups_read.c"

static PyMethodDef speedups_methods[] = {
    {"normalise", (PyCFunction)(void (*)(void))speedups_normalise, METH_FASTCALL,
     "normalise(text, table, nfkc): injection._fast_both_utf8's steps in one pass."},
    {"nfkc_spans", (PyCFunction)(void (*)(void))speedups_nfkc_spans, METH_FASTCALL,
     "nfkc_spans(text, table): the stretches of text NFKC may change."},
    {"text_table", speedups_text_table, METH_O,
     "text_table(ranges): the table of characters normalise() reads."},
    {"collapse", (PyCFunction)(void (*)(void))speedups_collapse, METH_FASTCALL | METH_KEYWORDS,
     "collapse(text, nfkc=False): injection_text._collapse in C."},
    {"lower_collapse", speedups_lower_collapse, METH_O,
     "lower_collapse(text): _collapse(text.lower()) in C, in one pass for ASCII text."},
    {"collapse_utf8", (PyCFunction)(void (*)(void))speedups_collapse_utf8, METH_FASTCALL,
     "collapse_utf8(data, text): injection_text._collapse_utf8 in C."},
    {"lower_collapse_utf8", (PyCFunction)(void (*)(void))speedups_lower_collapse_utf8,
     METH_FASTCALL,
     "lower_collapse_utf8(data, text): _collapse_utf8(data.lower(), text) in C, one pass."},
    {"similar_unit", (PyCFunction)(void (*)(void))speedups_similar_unit, METH_FASTCALL,
     "similar_unit(docs, once, df, idf_of, tf): similarity._weigh's unit vectors in C."},
    {"similar_candidates", (PyCFunction)(void (*)(void))speedups_similar_candidates,
     METH_FASTCALL,
     "similar_candidates(vectors, df, reach, cut): the pairs similarity._pairs scores."},
    {"similar_counts", (PyCFunction)(void (*)(void))speedups_similar_counts, METH_FASTCALL,
     "similar_counts(low, memo, stopwords, memo_max): a description's term counts in C."},
    {"similar_stem", speedups_similar_stem, METH_O, "similar_stem(part): similarity._stem in C."},
    {"similar_find", (PyCFunction)(void (*)(void))speedups_similar_find, METH_FASTCALL,
     "similar_find(docs, once, df, idf_of, tf, reach, cut): the pairs to score and their "
     "vectors."},
    {"similar_docs", (PyCFunction)(void (*)(void))speedups_similar_docs, METH_FASTCALL,
     "similar_docs(texts, memo, count): similarity._weigh's counts and frequencies in C."},
    {"simple_rows", (PyCFunction)(void (*)(void))speedups_simple_rows, METH_FASTCALL,
     "simple_rows(text, offset): formats.yamltree._simple_rows_py in C."},
    {"simple_pairs", (PyCFunction)(void (*)(void))speedups_simple_pairs, METH_FASTCALL,
     "simple_pairs(rows, keys, tags, typed_first, str_tag, scalar): yamltree's pairs in C."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    "subagents._speedups",
    "The injection detector's blank collapsing in C (optional; see injection_text).",
    -1,
    speedups_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    init_tables();
    return PyModule_Create(&speedups_module);
}
