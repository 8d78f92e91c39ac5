/* The simple frontmatter's lines in C: formats/yamltree._simple_rows_py in one pass.
 *
 * #included from _speedups.c (one extension module).  formats/yamltree.py reads a
 * frontmatter of one-line `key: value` fields with a pattern (_SIMPLE_LINE, findall), which
 * costs about 128 instructions a character; this reads the same lines with a few tests a
 * character and gives the same rows (tests/test_yamltree_simple_native.py compares the two
 * on hostile texts).  The pattern, line by line (every line must be one of these, or the
 * text is not simple and the answer is None):
 *
 *   - an empty line;
 *   - `#` then characters libyaml reads (a comment);
 *   - a key ([A-Za-z_][A-Za-z0-9_-]{0,199}), `:`, one or more spaces, then a value:
 *       plain: a first character that is no blank (str.isspace), no indicator and no
 *         character libyaml does not read, then characters libyaml reads but `#` and `:`,
 *         or a `:` followed by a character that is no space, `#` or unread character;
 *       "...": no `"`, backslash or unread character inside, then spaces;
 *       '...': no `'` or unread character inside, then spaces;
 *       `|` or `|-`, then spaces.
 *
 * "Unread" characters are \x00-\x1f and \x7f-\x9f (the line feed and the tab among them).
 * A last line without its line feed is not a line the pattern matches, nor one the Python
 * function counts: it is left out, as there. */

static inline int
read_unread(Py_UCS4 c)
{
    return c <= 0x1f || (c >= 0x7f && c <= 0x9f);
}

static inline int
read_key_first(Py_UCS4 c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static inline int
read_key_more(Py_UCS4 c)
{
    return read_key_first(c) || (c >= '0' && c <= '9') || c == '-';
}

/* a character a plain value may not start with (besides blanks and unread ones) */
static inline int
read_indicator(Py_UCS4 c)
{
    switch (c) {
    case '#': case '-': case '?': case ':': case ',': case '[': case ']': case '{': case '}':
    case '&': case '*': case '!': case '|': case '>': case '\'': case '"': case '%': case '@':
    case '`':
        return 1;
    default:
        return 0;
    }
}

#if defined(__GNUC__)
#define READ_INLINE static inline __attribute__((always_inline))
#else
#define READ_INLINE static inline
#endif

/* The rows of ``text`` (see simple_rows below), its characters of one ``kind``: inlined in
 * a copy per kind, so that reading a character is one load (nearly every text is ASCII). */
READ_INLINE PyObject *
read_rows(PyObject *text, const int kind, const void *data, const Py_ssize_t n,
          Py_ssize_t offset)
{
    PyObject *rows = PyList_New(0);
    if (rows == NULL) {
        return NULL;
    }
    Py_ssize_t line = offset;
    Py_ssize_t i = 0;
#define AT(k) PyUnicode_READ(kind, data, (k))
    while (i < n) {
        /* the line from i to its line feed (none: the last line, left out) */
        Py_ssize_t nl = i;
        while (nl < n && AT(nl) != '\n') {
            nl++;
        }
        if (nl == n) {
            break;
        }
        line++;
        Py_UCS4 c = AT(i);
        if (i == nl) {  /* an empty line */
            i = nl + 1;
            continue;
        }
        if (c == '#') {  /* a comment: characters libyaml reads */
            Py_ssize_t k = i + 1;
            while (k < nl && !read_unread(AT(k))) {
                k++;
            }
            if (k != nl) {
                goto not_simple;
            }
            i = nl + 1;
            continue;
        }
        if (!read_key_first(c)) {
            goto not_simple;
        }
        Py_ssize_t k = i + 1;
        while (k < nl && read_key_more(AT(k))) {
            k++;
        }
        Py_ssize_t key_end = k;
        if (key_end - i > 200 || k >= nl || AT(k) != ':') {
            goto not_simple;
        }
        k++;
        Py_ssize_t gap = k;
        while (k < nl && AT(k) == ' ') {
            k++;
        }
        if (k == gap || k >= nl) {
            goto not_simple;
        }
        Py_ssize_t value = k;
        Py_ssize_t end;  /* past the token, before the spaces after it */
        c = AT(k);
        if (c == '"' || c == '\'') {
            k++;
            while (k < nl) {
                Py_UCS4 d = AT(k);
                if (d == c || read_unread(d) || (c == '"' && d == '\\')) {
                    break;
                }
                k++;
            }
            if (k >= nl || AT(k) != c) {
                goto not_simple;
            }
            end = ++k;
            while (k < nl && AT(k) == ' ') {
                k++;
            }
            if (k != nl) {
                goto not_simple;
            }
        }
        else if (c == '|') {
            k++;
            if (k < nl && AT(k) == '-') {
                k++;
            }
            end = k;
            while (k < nl && AT(k) == ' ') {
                k++;
            }
            if (k != nl) {
                goto not_simple;
            }
        }
        else {
            if (Py_UNICODE_ISSPACE(c) || read_unread(c) || read_indicator(c)) {
                goto not_simple;
            }
            k++;
            for (;;) {  /* stops at the line feed at the latest (unread) */
                Py_UCS4 d = AT(k);
                if (d == ':') {
                    Py_UCS4 e = AT(k + 1);  /* (k < nl: there is a next character) */
                    if (e == ' ' || e == '#' || read_unread(e)) {
                        break;
                    }
                    k++;
                }
                else if (d == '#' || read_unread(d)) {
                    break;
                }
                else {
                    k++;
                }
            }
            if (k != nl) {
                goto not_simple;
            }
            end = nl;
            while (AT(end - 1) == ' ') {  /* (the first character is no space) */
                end--;
            }
        }
        PyObject *row = PyTuple_New(4);
        if (row == NULL) {
            Py_DECREF(rows);
            return NULL;
        }
        PyObject *key = PyUnicode_Substring(text, i, key_end);
        PyObject *at = key == NULL ? NULL : PyLong_FromSsize_t(line);
        PyObject *column = at == NULL ? NULL : PyLong_FromSsize_t(value - i + 1);
        PyObject *token = column == NULL ? NULL : PyUnicode_Substring(text, value, end);
        /* (the tuple owns what was made, and lets go of it with itself on a failure) */
        PyTuple_SET_ITEM(row, 0, key);
        PyTuple_SET_ITEM(row, 1, at);
        PyTuple_SET_ITEM(row, 2, column);
        PyTuple_SET_ITEM(row, 3, token);
        if (token == NULL || PyList_Append(rows, row) < 0) {
            Py_DECREF(row);
            Py_DECREF(rows);
            return NULL;
        }
        Py_DECREF(row);
        i = nl + 1;
    }
#undef AT
    return rows;
not_simple:
    Py_DECREF(rows);
    Py_RETURN_NONE;
}

/* simple_rows(text, offset): a list of (key, line, column, token) for each field line of
 * ``text`` (line: ``offset`` + its 1-based line; column: 1-based, where the value starts;
 * token: the value as written, spaces after it dropped), or None when a line is not one
 * of the simple ones. */
static PyObject *
speedups_simple_rows(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "simple_rows(text, offset) takes two arguments");
        return NULL;
    }
    PyObject *text = args[0];
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "simple_rows: text must be a str");
        return NULL;
    }
    Py_ssize_t offset = PyLong_AsSsize_t(args[1]);
    if (offset == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (PyUnicode_READY(text) < 0) {
        return NULL;
    }
    const void *data = PyUnicode_DATA(text);
    const Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return read_rows(text, PyUnicode_1BYTE_KIND, data, n, offset);
    case PyUnicode_2BYTE_KIND:
        return read_rows(text, PyUnicode_2BYTE_KIND, data, n, offset);
    default:
        return read_rows(text, PyUnicode_4BYTE_KIND, data, n, offset);
    }
}

/* ------------------------------------------------------------- the simple tree's pairs
 *
 * simple_pairs(rows, keys, tags, typed_first, str_tag, scalar): the pairs of the simple
 * tree of ``rows`` (simple_rows' answer) as formats/yamltree._simple_tree's loop builds them
 * for a text without `&`, `*` or `!` and without literal blocks: each key the scalar
 * remembered in ``keys`` by (key, line), each value a new ``scalar`` (YScalar) with the
 * value's text, line, column, style (a quote, or None), no tag, its end, and its resolved
 * tag (``str_tag`` for a quoted value or a plain one whose first character is not in
 * ``typed_first``, else the one remembered in ``tags`` by its text).  None when the loop has
 * more to do: no rows, a key or a tag not remembered yet (the loop makes and remembers it),
 * a key given twice (the loop's finding), a literal block's first line.
 *
 * Each value is made as the class makes it without its __init__ (which only stores the
 * eight fields): the object allocated by its type, each field stored in its slot.  The
 * slots are found once, from the class's member descriptors (a plain slots class: each
 * field a writable object slot; anything else is refused with TypeError). */

#include <structmember.h>

#define SCALAR_FIELDS 8
static const char *const scalar_names[SCALAR_FIELDS] = {
    "value", "line", "column", "style", "tag", "end_line", "end_column", "resolved_tag"};
static PyTypeObject *scalar_type = NULL;
static Py_ssize_t scalar_offsets[SCALAR_FIELDS];

static int
read_scalar_type(PyObject *cls)
{
    if ((PyTypeObject *)cls == scalar_type) {
        return 0;
    }
    if (!PyType_Check(cls) || ((PyTypeObject *)cls)->tp_itemsize != 0) {
        PyErr_SetString(PyExc_TypeError, "simple_pairs: scalar must be a slots class");
        return -1;
    }
    Py_ssize_t offsets[SCALAR_FIELDS];
    for (int f = 0; f < SCALAR_FIELDS; f++) {
        PyObject *d = PyDict_GetItemString(((PyTypeObject *)cls)->tp_dict, scalar_names[f]);
        if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type)) {
            PyErr_Format(PyExc_TypeError, "simple_pairs: no slot %s", scalar_names[f]);
            return -1;
        }
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READONLY)) {
            PyErr_Format(PyExc_TypeError, "simple_pairs: slot %s is not a plain one",
                         scalar_names[f]);
            return -1;
        }
        offsets[f] = m->offset;
    }
    memcpy(scalar_offsets, offsets, sizeof(offsets));
    Py_INCREF(cls);
    Py_XSETREF(scalar_type, (PyTypeObject *)cls);
    return 0;
}

/* a new scalar holding ``fields`` (new references, stolen; none NULL) */
static PyObject *
read_new_scalar(PyObject **fields)
{
    PyObject *obj = scalar_type->tp_alloc(scalar_type, 0);
    if (obj == NULL) {
        for (int f = 0; f < SCALAR_FIELDS; f++) {
            Py_DECREF(fields[f]);
        }
        return NULL;
    }
    for (int f = 0; f < SCALAR_FIELDS; f++) {
        *(PyObject **)((char *)obj + scalar_offsets[f]) = fields[f];
    }
    return obj;
}

static PyObject *
speedups_simple_pairs(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "simple_pairs takes six arguments");
        return NULL;
    }
    PyObject *rows = args[0], *keys = args[1], *tags = args[2], *typed_first = args[3];
    PyObject *str_tag = args[4];
    if (!PyList_Check(rows) || !PyDict_Check(keys) || !PyDict_Check(tags)
            || !PyAnySet_Check(typed_first)) {
        PyErr_SetString(PyExc_TypeError, "simple_pairs: a list, two dicts and a set");
        return NULL;
    }
    if (read_scalar_type(args[5]) < 0) {
        return NULL;
    }
    if (PyList_GET_SIZE(rows) == 0) {
        Py_RETURN_NONE;
    }
    /* held as a tuple (and with it each row and its items): a key's __hash__ or __eq__ run
     * by the lookups below cannot shorten the list or free a row being read */
    PyObject *held = PyList_AsTuple(rows);
    if (held == NULL) {
        return NULL;
    }
    const Py_ssize_t n = PyTuple_GET_SIZE(held);
    PyObject *pairs = PyList_New(n);
    PyObject *seen = PySet_New(NULL);
    if (pairs == NULL || seen == NULL) {
        goto failed;
    }
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *row = PyTuple_GET_ITEM(held, r);
        if (!PyTuple_Check(row) || PyTuple_GET_SIZE(row) != 4
                || !PyUnicode_Check(PyTuple_GET_ITEM(row, 3))) {
            PyErr_SetString(PyExc_TypeError, "simple_pairs: rows of simple_rows");
            goto failed;
        }
        PyObject *key = PyTuple_GET_ITEM(row, 0), *line = PyTuple_GET_ITEM(row, 1);
        PyObject *column = PyTuple_GET_ITEM(row, 2), *token = PyTuple_GET_ITEM(row, 3);
        PyObject *where = PyTuple_Pack(2, key, line);
        if (where == NULL) {
            goto failed;
        }
        PyObject *node = PyDict_GetItemWithError(keys, where);  /* borrowed */
        Py_DECREF(where);
        if (node == NULL) {
            if (PyErr_Occurred()) {
                goto failed;
            }
            goto more;
        }
        int twice = PySet_Contains(seen, key);
        if (twice < 0 || (!twice && PySet_Add(seen, key) < 0)) {
            goto failed;
        }
        if (twice) {
            goto more;
        }
        Py_ssize_t length = PyUnicode_GET_LENGTH(token);
        if (length == 0) {
            goto more;
        }
        Py_UCS4 first = PyUnicode_READ_CHAR(token, 0);
        Py_ssize_t at = PyLong_AsSsize_t(column);
        if (at == -1 && PyErr_Occurred()) {
            goto failed;
        }
        PyObject *fields[SCALAR_FIELDS];
        if (first == '"' || first == '\'') {
            fields[0] = PyUnicode_Substring(token, 1, length - 1);
            fields[3] = PyUnicode_Substring(token, 0, 1);
            fields[7] = Py_NewRef(str_tag);
        }
        else if (first == '|') {
            goto more;
        }
        else {
            PyObject *start = PyUnicode_Substring(token, 0, 1);
            if (start == NULL) {
                goto failed;
            }
            int typed = PySet_Contains(typed_first, start);
            Py_DECREF(start);
            if (typed < 0) {
                goto failed;
            }
            PyObject *tag = str_tag;
            if (typed) {
                tag = PyDict_GetItemWithError(tags, token);  /* borrowed */
                if (tag == NULL) {
                    if (PyErr_Occurred()) {
                        goto failed;
                    }
                    goto more;
                }
            }
            fields[0] = Py_NewRef(token);
            fields[3] = Py_NewRef(Py_None);
            fields[7] = Py_NewRef(tag);
        }
        fields[1] = Py_NewRef(line);
        fields[2] = Py_NewRef(column);
        fields[4] = Py_NewRef(Py_None);
        fields[5] = Py_NewRef(line);
        fields[6] = PyLong_FromSsize_t(at + length);
        if (fields[0] == NULL || fields[3] == NULL || fields[6] == NULL) {
            for (int f = 0; f < SCALAR_FIELDS; f++) {
                Py_XDECREF(fields[f]);
            }
            goto failed;
        }
        PyObject *value = read_new_scalar(fields);
        if (value == NULL) {
            goto failed;
        }
        PyObject *pair = PyTuple_New(2);
        if (pair == NULL) {
            Py_DECREF(value);
            goto failed;
        }
        PyTuple_SET_ITEM(pair, 0, Py_NewRef(node));
        PyTuple_SET_ITEM(pair, 1, value);
        PyList_SET_ITEM(pairs, r, pair);
    }
    Py_DECREF(held);
    Py_DECREF(seen);
    return pairs;
more:
    Py_DECREF(held);
    Py_DECREF(seen);
    Py_DECREF(pairs);
    Py_RETURN_NONE;
failed:
    Py_DECREF(held);
    Py_XDECREF(seen);
    Py_XDECREF(pairs);
    return NULL;
}
