/* The similar-description rule's two loops over a scope's vectors, in C (#included by
 * _speedups.c).  subagents/lint/similarity.py keeps the Python loops, which give the same
 * results; tests/test_similarity_native.py compares the two.
 *
 * similar_unit(docs, once, df, idf_of, tf) -> list[dict[str, float]]
 *     similarity._weigh's unit vectors from the term counts: for each count dictionary, its
 *     weights ``tf[count] * idf_of[df[term]]`` (``idf_of[df[term]]`` alone when ``once``
 *     says no term is counted twice: 1.0 * x is x), their norm ``sqrt(sum(squares))`` or
 *     1.0, and the weights divided by it, keyed by the counts' keys in their order.  Every
 *     float is made by the same operation on the same operands as in Python: one
 *     multiplication, one division, C's sqrt (which math.sqrt calls), and the tf values
 *     are looked up in the Python table (which works out each ``1 + log count``).  The
 *     squares are added as the builtin ``sum`` adds them, which differs between Python
 *     versions: up to 3.11 one after the other from 0.0 (written out here, each square
 *     rounded on its own, never fused into the addition), from 3.12 with a compensation
 *     (there the builtin itself is called on a list of the squares).
 *
 * similar_candidates(vectors, df, reach, cut) -> list[tuple[int, int]]
 *     the pairs similarity._pairs must score, sorted: the same split of the terms (middling:
 *     2 <= df < cut, common: df >= cut), the same bound on each pair met, with the terms
 *     numbered and the partial dot products kept in an array rather than a dictionary.
 *     These sums are bounds only (the pairs kept are scored in Python by _cosine): they may
 *     add in another order than Python's (set order), a difference of a few units in the
 *     last place that the bound's slack (1e-9, in ``reach``) covers, so every pair that can
 *     reach the threshold is kept either way, and the pairs reported are the same.
 *
 * similar_find(docs, once, df, idf_of, tf, reach, cut) -> (pairs, {index: unit vector})
 *     the two above in one pass for find_similar_agents: the unit weights in an array, a
 *     dictionary made only for a vector of a pair found.
 *
 * similar_counts(low, memo, stopwords, memo_max), similar_stem(part), similar_docs(texts,
 * memo, count): a description's term counts (its parts, their tokens through the memo, the
 * stemmer) and _weigh's loop over the memo of counts; described where they are defined.
 */

/* a dictionary sized for n entries (no resizing as it fills); the sizing function is
 * private to CPython and may go: a plain dictionary then (the same contents) */
#if PY_VERSION_HEX < 0x030F0000
#define SIM_DICT_SIZED(n) _PyDict_NewPresized(n)
#else
#define SIM_DICT_SIZED(n) PyDict_New()
#endif

typedef struct {
    Py_ssize_t vec;
    double weight;
} sim_posting;

typedef struct {
    sim_posting *items;
    Py_ssize_t len, cap;
} sim_list;

static int
sim_list_push(sim_list *list, Py_ssize_t vec, double weight)
{
    if (list->len == list->cap) {
        Py_ssize_t cap = list->cap ? list->cap * 2 : 4;
        sim_posting *items = PyMem_Realloc(list->items, (size_t)cap * sizeof(sim_posting));
        if (items == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        list->items = items;
        list->cap = cap;
    }
    list->items[list->len].vec = vec;
    list->items[list->len].weight = weight;
    list->len++;
    return 0;
}

static double
sim_float(PyObject *value, int *bad)
{
    if (PyFloat_CheckExact(value)) {
        return PyFloat_AS_DOUBLE(value);
    }
    *bad = 1;
    return 0.0;
}

static PyObject *
speedups_similar_unit(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "similar_unit takes 5 arguments");
        return NULL;
    }
    PyObject *docs = args[0], *once = args[1], *df = args[2], *idf_of = args[3], *tf = args[4];
    if (!PyList_CheckExact(docs) || !PyList_CheckExact(once) || !PyDict_CheckExact(df)
        || !PyList_CheckExact(idf_of) || PyList_GET_SIZE(once) != PyList_GET_SIZE(docs)) {
        PyErr_SetString(PyExc_TypeError, "similar_unit: lists of counts and flags, a dict, a list");
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *sum = PyDict_GetItemString(PyEval_GetBuiltins(), "sum"); /* borrowed */
    if (sum == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "similar_unit: no builtin sum");
        return NULL;
    }
#endif
    /* the lists held as tuples: Python code run on the way (a flag's __bool__, tf's
     * __getitem__, a key's __hash__) cannot shorten them under this loop */
    PyObject *held_docs = PyList_AsTuple(docs), *held_once = PyList_AsTuple(once);
    Py_ssize_t n = PyList_GET_SIZE(docs);
    PyObject *out = held_docs && held_once ? PyList_New(n) : NULL;
    if (out == NULL) {
        Py_XDECREF(held_docs);
        Py_XDECREF(held_once);
        return NULL;
    }
    double *weights = NULL;
    Py_ssize_t cap = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *d = PyTuple_GET_ITEM(held_docs, k);
        if (!PyDict_CheckExact(d)) {
            PyErr_SetString(PyExc_TypeError, "similar_unit: counts must be dicts");
            goto fail;
        }
        int single = PyObject_IsTrue(PyTuple_GET_ITEM(held_once, k));
        if (single < 0) {
            goto fail;
        }
        Py_ssize_t size = PyDict_GET_SIZE(d);
        if (size > cap) {
            cap = size * 2;
            double *grown = PyMem_Realloc(weights, (size_t)cap * sizeof(double));
            if (grown == NULL) {
                PyErr_NoMemory();
                goto fail;
            }
            weights = grown;
        }
#if PY_VERSION_HEX < 0x030C0000
        /* Python 3.11's sum of floats: 0 + x1 (0.0 + x1), then each added in turn */
        double s = 0.0;
        PyObject *squares = NULL;
#else
        /* from 3.12 it compensates: the builtin itself adds the squares */
        PyObject *squares = PyList_New(size);
        if (squares == NULL) {
            goto fail;
        }
#endif
        Py_ssize_t pos = 0, at = 0;
        PyObject *key, *count;
        int bad = 0;
        while (PyDict_Next(d, &pos, &key, &count)) {
            if (at >= size) { /* changed while read (cannot happen: no Python code runs) */
                bad = 1;
                break;
            }
            PyObject *freq = PyDict_GetItemWithError(df, key); /* borrowed */
            if (freq == NULL) {
                if (!PyErr_Occurred()) {
                    PyErr_SetObject(PyExc_KeyError, key);
                }
                Py_XDECREF(squares);
                goto fail;
            }
            Py_ssize_t f = PyLong_AsSsize_t(freq);
            if (f == -1 && PyErr_Occurred()) {
                Py_XDECREF(squares);
                goto fail;
            }
            if (f < 0 || f >= PyList_GET_SIZE(idf_of)) {
                PyErr_SetString(PyExc_IndexError, "similar_unit: a frequency beyond the idf table");
                Py_XDECREF(squares);
                goto fail;
            }
            double w = sim_float(PyList_GET_ITEM(idf_of, f), &bad);
            if (!single) {
                PyObject *t = PyObject_GetItem(tf, count);
                if (t == NULL) {
                    Py_XDECREF(squares);
                    goto fail;
                }
                w = sim_float(t, &bad) * w;
                Py_DECREF(t);
            }
            weights[at] = w;
#if PY_VERSION_HEX < 0x030C0000
            /* (volatile: the square rounded on its own, never fused into the addition) */
            volatile double square = w * w;
            s += square;
#else
            PyObject *sq = PyFloat_FromDouble(w * w);
            if (sq == NULL) {
                Py_DECREF(squares);
                goto fail;
            }
            PyList_SET_ITEM(squares, at, sq);
#endif
            at++;
        }
        if (bad || at != size) {
            PyErr_SetString(PyExc_TypeError, "similar_unit: weights must be floats");
            Py_XDECREF(squares);
            goto fail;
        }
#if PY_VERSION_HEX >= 0x030C0000
        PyObject *total = PyObject_CallOneArg(sum, squares);
        Py_DECREF(squares);
        if (total == NULL) {
            goto fail;
        }
        double s = PyFloat_AsDouble(total);
        Py_DECREF(total);
        if (s == -1.0 && PyErr_Occurred()) {
            goto fail;
        }
#endif
        double norm = sqrt(s);
        if (norm == 0.0) { /* ``or 1.0`` */
            norm = 1.0;
        }
        PyObject *vec = SIM_DICT_SIZED(size);
        if (vec == NULL) {
            goto fail;
        }
        pos = 0;
        at = 0;
        while (at < size && PyDict_Next(d, &pos, &key, &count)) {
            PyObject *unit = PyFloat_FromDouble(weights[at++] / norm);
            if (unit == NULL || PyDict_SetItem(vec, key, unit) < 0) {
                Py_XDECREF(unit);
                Py_DECREF(vec);
                goto fail;
            }
            Py_DECREF(unit);
        }
        if (at != size || PyDict_GET_SIZE(d) != size) { /* (a key's __hash__ changed it) */
            Py_DECREF(vec);
            PyErr_SetString(PyExc_RuntimeError, "similar_unit: counts changed while read");
            goto fail;
        }
        PyList_SET_ITEM(out, k, vec);
    }
    PyMem_Free(weights);
    Py_DECREF(held_docs);
    Py_DECREF(held_once);
    return out;
fail:
    PyMem_Free(weights);
    Py_DECREF(out);
    Py_DECREF(held_docs);
    Py_DECREF(held_once);
    return NULL;
}

static int
sim_pair_order(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* The pairs to score, sorted, as a list of (i, j), from the n vectors laid out flat: vector j
 * is entries off[j] .. off[j + 1] - 1, each a term's code (-1: held by one vector only, else
 * its number * 2 + 1 if common, + 0 if middling) and its weight; nterms: the numbers given. */
static PyObject *
sim_pairs(Py_ssize_t n, const Py_ssize_t *off, const Py_ssize_t *code, const double *weight,
          Py_ssize_t nterms, double reach)
{
    PyObject *out = NULL;
    sim_list *index = PyMem_Calloc((size_t)nterms + 1, sizeof(sim_list));
    sim_list *heavy = PyMem_Calloc((size_t)nterms + 1, sizeof(sim_list));
    double *h = PyMem_Calloc((size_t)n + 1, sizeof(double));
    double *partial = PyMem_Calloc((size_t)n + 1, sizeof(double));
    Py_ssize_t *touched = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    unsigned char *met = PyMem_Calloc((size_t)n + 1, 1);
    long long *pairs = NULL;
    Py_ssize_t npairs = 0, pairs_cap = 0;
    if (!index || !heavy || !h || !partial || !touched || !met) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        if (off[j] == off[j + 1]) { /* an empty vector */
            continue;
        }
        double hh = 0.0;
        for (Py_ssize_t e = off[j]; e < off[j + 1]; e++) {
            if (code[e] >= 0 && (code[e] & 1)) {
                hh += weight[e] * weight[e];
            }
        }
        double hj = h[j] = sqrt(hh);
        int is_heavy = !(hj < reach);
        Py_ssize_t ntouched = 0;
        /* the middling terms, then (for a heavy vector) the common ones */
        for (int common = 0; common <= is_heavy; common++) {
            for (Py_ssize_t e = off[j]; e < off[j + 1]; e++) {
                if (code[e] < 0 || (code[e] & 1) != common) {
                    continue;
                }
                sim_list *found = common ? &heavy[code[e] >> 1] : &index[code[e] >> 1];
                double x = weight[e];
                for (Py_ssize_t p = 0; p < found->len; p++) {
                    Py_ssize_t i = found->items[p].vec;
                    if (!met[i]) {
                        met[i] = 1;
                        partial[i] = 0.0;
                        touched[ntouched++] = i;
                    }
                    partial[i] += x * found->items[p].weight;
                }
                if (sim_list_push(found, j, x) < 0) {
                    goto done;
                }
            }
        }
        for (Py_ssize_t k = 0; k < ntouched; k++) {
            Py_ssize_t i = touched[k];
            met[i] = 0;
            double hi = h[i];
            /* two heavy vectors: every shared term was walked, nothing is left to bound */
            double rest = (is_heavy && hi >= reach) ? 0.0 : hj * hi;
            if (partial[i] + rest >= reach) {
                if (npairs == pairs_cap) {
                    Py_ssize_t grown_cap = pairs_cap ? pairs_cap * 2 : 64;
                    long long *grown = PyMem_Realloc(pairs, (size_t)grown_cap * sizeof(long long));
                    if (grown == NULL) {
                        PyErr_NoMemory();
                        goto done;
                    }
                    pairs = grown;
                    pairs_cap = grown_cap;
                }
                pairs[npairs++] = (long long)i * (long long)(n + 1) + (long long)j;
            }
        }
    }
    if (npairs > 1) {
        qsort(pairs, (size_t)npairs, sizeof(long long), sim_pair_order);
    }
    out = PyList_New(npairs);
    if (out == NULL) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < npairs; k++) {
        PyObject *pair = Py_BuildValue("(nn)", (Py_ssize_t)(pairs[k] / (n + 1)),
                                       (Py_ssize_t)(pairs[k] % (n + 1)));
        if (pair == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyList_SET_ITEM(out, k, pair);
    }
done:
    if (index != NULL && heavy != NULL) {
        for (Py_ssize_t t = 0; t < nterms; t++) {
            PyMem_Free(index[t].items);
            PyMem_Free(heavy[t].items);
        }
    }
    PyMem_Free(index);
    PyMem_Free(heavy);
    PyMem_Free(h);
    PyMem_Free(partial);
    PyMem_Free(touched);
    PyMem_Free(met);
    PyMem_Free(pairs);
    return out;
}

/* term -> its code for sim_pairs (held by two vectors or more: number * 2 + common), from the
 * document frequencies; *nterms: how many are numbered.  With ``all``, every term of df gets
 * an entry, its frequency in the low 32 bits and (code + 1) above (0: held by one only). */
static PyObject *
sim_codes(PyObject *df, Py_ssize_t cut, int all, Py_ssize_t *nterms)
{
    PyObject *ids = PyDict_New();
    if (ids == NULL) {
        return NULL;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    *nterms = 0;
    while (PyDict_Next(df, &pos, &key, &value)) {
        long long c = PyLong_AsLongLong(value);
        if (c == -1 && PyErr_Occurred()) {
            Py_DECREF(ids);
            return NULL;
        }
        if (all && (c < 0 || c > 0x7fffffffLL)) {
            PyErr_SetString(PyExc_ValueError, "similar_find: a frequency out of range");
            Py_DECREF(ids);
            return NULL;
        }
        long long code = -1;
        if (c >= 2) {
            code = (long long)*nterms * 2 + (c >= cut);
            (*nterms)++;
        }
        else if (!all) {
            continue;
        }
        PyObject *id = PyLong_FromLongLong(all ? ((code + 1) << 32) | c : code);
        if (id == NULL || PyDict_SetItem(ids, key, id) < 0) {
            Py_XDECREF(id);
            Py_DECREF(ids);
            return NULL;
        }
        Py_DECREF(id);
    }
    return ids;
}

static PyObject *
speedups_similar_candidates(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "similar_candidates takes 4 arguments");
        return NULL;
    }
    PyObject *vectors = args[0], *df = args[1];
    if (!PyList_CheckExact(vectors) || !PyDict_CheckExact(df)) {
        PyErr_SetString(PyExc_TypeError, "similar_candidates: a list of dicts and a dict");
        return NULL;
    }
    double reach = PyFloat_AsDouble(args[2]);
    if (reach == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t cut = PyLong_AsSsize_t(args[3]);
    if (cut == -1 && PyErr_Occurred()) {
        return NULL;
    }
    /* held as a tuple: a weight's __float__ or a key's __eq__ cannot shorten it here */
    PyObject *held = PyList_AsTuple(args[0]);
    if (held == NULL) {
        return NULL;
    }
    vectors = held;
    Py_ssize_t n = PyTuple_GET_SIZE(vectors), total = 0, nterms = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *vec = PyTuple_GET_ITEM(vectors, j);
        if (!PyDict_CheckExact(vec)) {
            PyErr_SetString(PyExc_TypeError, "similar_candidates: vectors must be dicts");
            Py_DECREF(held);
            return NULL;
        }
        total += PyDict_GET_SIZE(vec);
    }
    PyObject *out = NULL;
    PyObject *ids = sim_codes(df, cut, 0, &nterms);
    Py_ssize_t *off = PyMem_Malloc(((size_t)n + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *code = PyMem_Malloc(((size_t)total + 1) * sizeof(Py_ssize_t));
    double *weight = PyMem_Malloc(((size_t)total + 1) * sizeof(double));
    if (ids == NULL || !off || !code || !weight) {
        if (ids != NULL) {
            PyErr_NoMemory();
        }
        goto done;
    }
    Py_ssize_t e = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *vec = PyTuple_GET_ITEM(vectors, j), *key, *value;
        Py_ssize_t pos = 0, end = e + PyDict_GET_SIZE(vec);
        off[j] = e;
        while (e < end && PyDict_Next(vec, &pos, &key, &value)) {
            PyObject *id = PyDict_GetItemWithError(ids, key);
            if (id == NULL && PyErr_Occurred()) {
                goto done;
            }
            double x = PyFloat_AsDouble(value);
            if (x == -1.0 && PyErr_Occurred()) {
                goto done;
            }
            code[e] = id == NULL ? -1 : PyLong_AsSsize_t(id);
            weight[e++] = x;
        }
        if (e != end || PyDict_GET_SIZE(vec) != end - off[j]) {
            /* (a weight's __float__ changed it: code[e:end] would be left unset) */
            PyErr_SetString(PyExc_RuntimeError, "similar_candidates: a vector changed while read");
            goto done;
        }
    }
    off[n] = e;
    out = sim_pairs(n, off, code, weight, nterms, reach);
done:
    Py_DECREF(held);
    Py_XDECREF(ids);
    PyMem_Free(off);
    PyMem_Free(code);
    PyMem_Free(weight);
    return out;
}

/* similar_find(docs, once, df, idf_of, tf, reach, cut) -> (pairs, vectors)
 *     similar_unit and similar_candidates in one pass, without a dictionary per vector: the
 *     unit weights (the same floats as similar_unit's) kept in an array, the pairs found from
 *     it, and the unit vectors made only for the vectors of those pairs ({index: vector}). */
static PyObject *
speedups_similar_find(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "similar_find takes 7 arguments");
        return NULL;
    }
    PyObject *docs = args[0], *once = args[1], *df = args[2], *idf_of = args[3], *tf = args[4];
    if (!PyList_CheckExact(docs) || !PyList_CheckExact(once) || !PyDict_CheckExact(df)
        || !PyList_CheckExact(idf_of) || PyList_GET_SIZE(once) != PyList_GET_SIZE(docs)) {
        PyErr_SetString(PyExc_TypeError, "similar_find: lists of counts and flags, a dict, a list");
        return NULL;
    }
    double reach = PyFloat_AsDouble(args[5]);
    if (reach == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t cut = PyLong_AsSsize_t(args[6]);
    if (cut == -1 && PyErr_Occurred()) {
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *sum = PyDict_GetItemString(PyEval_GetBuiltins(), "sum"); /* borrowed */
    if (sum == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "similar_find: no builtin sum");
        return NULL;
    }
#endif
    /* the lists held as tuples (see similar_unit) */
    PyObject *held_docs = PyList_AsTuple(docs), *held_once = PyList_AsTuple(once);
    if (held_docs == NULL || held_once == NULL) {
        Py_XDECREF(held_docs);
        Py_XDECREF(held_once);
        return NULL;
    }
    docs = held_docs;
    once = held_once;
    Py_ssize_t n = PyTuple_GET_SIZE(docs), total = 0, nterms = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *d = PyTuple_GET_ITEM(docs, j);
        if (!PyDict_CheckExact(d)) {
            PyErr_SetString(PyExc_TypeError, "similar_find: counts must be dicts");
            Py_DECREF(held_docs);
            Py_DECREF(held_once);
            return NULL;
        }
        total += PyDict_GET_SIZE(d);
    }
    PyObject *out = NULL, *pairs = NULL, *vectors = NULL;
    PyObject *info = sim_codes(df, cut, 1, &nterms);
    Py_ssize_t *off = PyMem_Malloc(((size_t)n + 1) * sizeof(Py_ssize_t));
    Py_ssize_t *code = PyMem_Malloc(((size_t)total + 1) * sizeof(Py_ssize_t));
    double *weight = PyMem_Malloc(((size_t)total + 1) * sizeof(double));
    if (info == NULL || !off || !code || !weight) {
        if (info != NULL) {
            PyErr_NoMemory();
        }
        goto done;
    }
    Py_ssize_t e = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *d = PyTuple_GET_ITEM(docs, j), *key, *count;
        int single = PyObject_IsTrue(PyTuple_GET_ITEM(once, j));
        if (single < 0) {
            goto done;
        }
        Py_ssize_t pos = 0, size = PyDict_GET_SIZE(d), end = e + size;
        off[j] = e;
#if PY_VERSION_HEX < 0x030C0000
        double s = 0.0; /* Python 3.11's sum of floats (see similar_unit) */
#else
        PyObject *squares = PyList_New(size);
        if (squares == NULL) {
            goto done;
        }
#endif
        int bad = 0;
        while (e < end && PyDict_Next(d, &pos, &key, &count)) {
            PyObject *packed = PyDict_GetItemWithError(info, key); /* borrowed */
            if (packed == NULL) {
                if (!PyErr_Occurred()) {
                    PyErr_SetObject(PyExc_KeyError, key);
                }
                bad = -1;
                break;
            }
            long long p = PyLong_AsLongLong(packed);
            Py_ssize_t f = (Py_ssize_t)(p & 0xffffffffLL);
            if (f >= PyList_GET_SIZE(idf_of)) {
                PyErr_SetString(PyExc_IndexError, "similar_find: a frequency beyond the idf table");
                bad = -1;
                break;
            }
            code[e] = (Py_ssize_t)(p >> 32) - 1;
            double w = sim_float(PyList_GET_ITEM(idf_of, f), &bad);
            if (!single) {
                PyObject *t = PyObject_GetItem(tf, count);
                if (t == NULL) {
                    bad = -1;
                    break;
                }
                w = sim_float(t, &bad) * w;
                Py_DECREF(t);
            }
            weight[e] = w;
#if PY_VERSION_HEX < 0x030C0000
            volatile double square = w * w; /* (rounded on its own, never fused) */
            s += square;
#else
            PyObject *sq = PyFloat_FromDouble(w * w);
            if (sq == NULL) {
                bad = -1;
                break;
            }
            PyList_SET_ITEM(squares, e - off[j], sq);
#endif
            e++;
        }
        if (bad == 0 && e != end) {
            bad = 1;
        }
#if PY_VERSION_HEX >= 0x030C0000
        double s = 0.0;
        if (bad == 0) {
            PyObject *sum_of = PyObject_CallOneArg(sum, squares);
            if (sum_of == NULL) {
                bad = -1;
            }
            else {
                s = PyFloat_AsDouble(sum_of);
                Py_DECREF(sum_of);
                if (s == -1.0 && PyErr_Occurred()) {
                    bad = -1;
                }
            }
        }
        Py_DECREF(squares);
#endif
        if (bad) {
            if (bad > 0) {
                PyErr_SetString(PyExc_TypeError, "similar_find: weights must be floats");
            }
            goto done;
        }
        double norm = sqrt(s);
        if (norm == 0.0) { /* ``or 1.0`` */
            norm = 1.0;
        }
        for (Py_ssize_t k = off[j]; k < end; k++) {
            weight[k] = weight[k] / norm;
        }
    }
    off[n] = e;
    pairs = sim_pairs(n, off, code, weight, nterms, reach);
    vectors = PyDict_New();
    if (pairs == NULL || vectors == NULL) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < PyList_GET_SIZE(pairs); k++) {
        PyObject *pair = PyList_GET_ITEM(pairs, k);
        for (int side = 0; side < 2; side++) {
            PyObject *index = PyTuple_GET_ITEM(pair, side);
            Py_ssize_t j = PyLong_AsSsize_t(index);
            int known = PyDict_Contains(vectors, index);
            if (known < 0) {
                goto done;
            }
            if (known) {
                continue;
            }
            PyObject *d = PyTuple_GET_ITEM(docs, j), *key, *count;
            PyObject *vec = SIM_DICT_SIZED(off[j + 1] - off[j]);
            if (vec == NULL) {
                goto done;
            }
            Py_ssize_t pos = 0, at = off[j];
            while (at < off[j + 1] && PyDict_Next(d, &pos, &key, &count)) {
                PyObject *unit = PyFloat_FromDouble(weight[at++]);
                if (unit == NULL || PyDict_SetItem(vec, key, unit) < 0) {
                    Py_XDECREF(unit);
                    Py_DECREF(vec);
                    goto done;
                }
                Py_DECREF(unit);
            }
            if (PyDict_SetItem(vectors, index, vec) < 0) {
                Py_DECREF(vec);
                goto done;
            }
            Py_DECREF(vec);
        }
    }
    out = PyTuple_Pack(2, pairs, vectors);
done:
    Py_DECREF(held_docs);
    Py_DECREF(held_once);
    Py_XDECREF(pairs);
    Py_XDECREF(vectors);
    Py_XDECREF(info);
    PyMem_Free(off);
    PyMem_Free(code);
    PyMem_Free(weight);
    return out;
}

/* ------------------------------------------------------------------ a description's terms */

/* similarity._SUFFIXES, in its order (tests hold the C stemmer to similarity._stem) */
static const char *const sim_suffixes[][2] = {
    {"izations", "ize"}, {"ization", "ize"}, {"ational", ""}, {"ations", ""}, {"ation", ""},
    {"ators", ""}, {"ator", ""}, {"ating", ""}, {"ated", ""}, {"ates", ""}, {"ate", ""},
    {"ments", ""}, {"ment", ""}, {"ings", ""}, {"ing", ""}, {"ities", ""}, {"ity", ""},
    {"ers", ""}, {"er", ""}, {"ies", "y"}, {"ied", "y"}, {"ed", ""}, {"es", ""}, {"s", ""},
};

/* similarity._stem of a part (ASCII letters and digits), in place; its new length */
static Py_ssize_t
sim_stem(char *word, Py_ssize_t len)
{
    if (len <= 3) {
        return len;
    }
    for (Py_ssize_t k = 0; k < len; k++) {
        if (word[k] < 'a' || word[k] > 'z') { /* not str.isalpha(): a digit */
            return len;
        }
    }
    for (int pass = 0; pass < 2; pass++) {
        int stripped = 0;
        for (size_t e = 0; e < sizeof(sim_suffixes) / sizeof(sim_suffixes[0]); e++) {
            Py_ssize_t ls = (Py_ssize_t)strlen(sim_suffixes[e][0]);
            Py_ssize_t lr = (Py_ssize_t)strlen(sim_suffixes[e][1]);
            if (ls > len || memcmp(word + len - ls, sim_suffixes[e][0], (size_t)ls) != 0) {
                continue;
            }
            Py_ssize_t blen = len - ls + lr;
            /* base != word: a replacement shorter than its suffix always changes the word */
            if (blen >= 3 && (blen != len || memcmp(word + len - ls, sim_suffixes[e][1],
                                                    (size_t)lr) != 0)) {
                memcpy(word + len - ls, sim_suffixes[e][1], (size_t)lr);
                len = blen;
                stripped = 1;
                break;
            }
        }
        if (!stripped) {
            break;
        }
    }
    if (len > 4 && word[len - 1] == 'e') {
        len--;
    }
    if (len > 4 && word[len - 1] == word[len - 2] && word[len - 1] != 'l'
        && word[len - 1] != 's' && word[len - 1] != 'z') {
        len--;
    }
    return len;
}

/* similar_stem(part) -> similarity._stem(part), for a part of ASCII letters and digits */
static PyObject *
speedups_similar_stem(PyObject *module, PyObject *part)
{
    if (!PyUnicode_Check(part) || !PyUnicode_IS_ASCII(part)) {
        PyErr_SetString(PyExc_TypeError, "similar_stem: an ASCII str");
        return NULL;
    }
    Py_ssize_t len = PyUnicode_GET_LENGTH(part);
    const char *data = (const char *)PyUnicode_1BYTE_DATA(part);
    for (Py_ssize_t k = 0; k < len; k++) {
        if (!((data[k] >= 'a' && data[k] <= 'z') || (data[k] >= '0' && data[k] <= '9'))) {
            PyErr_SetString(PyExc_ValueError, "similar_stem: lower-case letters and digits only");
            return NULL;
        }
    }
    char *word = PyMem_Malloc((size_t)len + 1);
    if (word == NULL) {
        return PyErr_NoMemory();
    }
    memcpy(word, data, (size_t)len);
    PyObject *out = PyUnicode_FromStringAndSize(word, sim_stem(word, len));
    PyMem_Free(word);
    return out;
}

/* similar_counts(low, memo, stopwords, memo_max) -> (counts, once)
 *     similarity._description_tokens(text) counted as _weigh counts them, for
 *     ``low = _special(text.lower())``: the runs of ASCII letters and digits (the parts), each
 *     mapped to its token through ``memo`` (part -> token, "" for a stop word; a part new to it
 *     is stemmed here and added, the memo emptied first when it holds ``memo_max``), the
 *     tokens counted in the order they first come; ``once``: no token counted twice. */
static PyObject *
speedups_similar_counts(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "similar_counts takes 4 arguments");
        return NULL;
    }
    PyObject *low = args[0], *memo = args[1], *stopwords = args[2];
    if (!PyUnicode_Check(low) || !PyDict_CheckExact(memo) || !PyAnySet_Check(stopwords)) {
        PyErr_SetString(PyExc_TypeError, "similar_counts: a str, a dict and a set");
        return NULL;
    }
    Py_ssize_t memo_max = PyLong_AsSsize_t(args[3]);
    if (memo_max == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(low);
    int kind = PyUnicode_KIND(low);
    const void *data = PyUnicode_DATA(low);
    char *buf = PyMem_Malloc((size_t)n + 1);
    PyObject *counts = PyDict_New();
    PyObject *empty = PyUnicode_New(0, 0);
    if (buf == NULL || counts == NULL || empty == NULL) {
        if (buf == NULL) {
            PyErr_NoMemory();
        }
        goto fail;
    }
    Py_ssize_t ntokens = 0, k = 0;
    while (k < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, k);
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
            k++;
            continue;
        }
        Py_ssize_t len = 0;
        while (k < n) {
            c = PyUnicode_READ(kind, data, k);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
                break;
            }
            buf[len++] = (char)c;
            k++;
        }
        PyObject *part = PyUnicode_New(len, 127);
        if (part == NULL) {
            goto fail;
        }
        memcpy(PyUnicode_1BYTE_DATA(part), buf, (size_t)len);
        PyObject *token = PyDict_GetItemWithError(memo, part); /* borrowed */
        if (token != NULL) {
            Py_INCREF(token);
        }
        else if (PyErr_Occurred()) {
            Py_DECREF(part);
            goto fail;
        }
        else {
            int stop = PySet_Contains(stopwords, part);
            if (stop < 0) {
                Py_DECREF(part);
                goto fail;
            }
            if (stop) {
                token = Py_NewRef(empty);
            }
            else {
                Py_ssize_t slen = sim_stem(buf, len);
                token = slen == len ? Py_NewRef(part) : PyUnicode_FromStringAndSize(buf, slen);
                if (token == NULL) {
                    Py_DECREF(part);
                    goto fail;
                }
            }
            if (PyDict_GET_SIZE(memo) >= memo_max) {
                PyDict_Clear(memo);
            }
            if (PyDict_SetItem(memo, part, token) < 0) {
                Py_DECREF(part);
                Py_DECREF(token);
                goto fail;
            }
        }
        Py_DECREF(part);
        if (PyUnicode_GET_LENGTH(token) != 0) {
            PyObject *seen = PyDict_GetItemWithError(counts, token); /* borrowed */
            PyObject *count = NULL;
            if (seen != NULL) {
                Py_ssize_t before = PyLong_AsSsize_t(seen);
                if (!(before == -1 && PyErr_Occurred())) {
                    count = PyLong_FromSsize_t(before + 1);
                }
            }
            else if (!PyErr_Occurred()) {
                count = PyLong_FromLong(1);
            }
            if (count == NULL || PyDict_SetItem(counts, token, count) < 0) {
                Py_XDECREF(count);
                Py_DECREF(token);
                goto fail;
            }
            Py_DECREF(count);
            ntokens++;
        }
        Py_DECREF(token);
    }
    PyMem_Free(buf);
    Py_DECREF(empty);
    PyObject *once = PyBool_FromLong(PyDict_GET_SIZE(counts) == ntokens);
    PyObject *out = PyTuple_Pack(2, counts, once);
    Py_DECREF(counts);
    Py_DECREF(once);
    return out;
fail:
    PyMem_Free(buf);
    Py_XDECREF(counts);
    Py_XDECREF(empty);
    return NULL;
}

/* similar_docs(texts, memo, count) -> (docs, once, df)
 *     similarity._weigh's first loop: each text's (counts, once) from ``memo`` (text -> that
 *     pair), or from ``count(text)`` (Python: it works them out and keeps them in the memo)
 *     when the memo lacks it; the counts and flags listed in the texts' order, and the number
 *     of texts holding each term counted as collections._count_elements counts the counts'
 *     keys, text after text (the same keys in the same order). */
static PyObject *
speedups_similar_docs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "similar_docs takes 3 arguments");
        return NULL;
    }
    PyObject *texts = args[0], *memo = args[1], *count = args[2];
    if (!PyList_CheckExact(texts) || !PyDict_CheckExact(memo)) {
        PyErr_SetString(PyExc_TypeError, "similar_docs: a list and a dict");
        return NULL;
    }
    /* held as a tuple: ``count`` (Python) cannot shorten it under this loop */
    PyObject *held = PyList_AsTuple(texts);
    if (held == NULL) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(held);
    PyObject *docs = PyList_New(n), *once = PyList_New(n), *df = PyDict_New();
    if (docs == NULL || once == NULL || df == NULL) {
        goto fail;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *text = PyTuple_GET_ITEM(held, k);
        PyObject *found = PyDict_GetItemWithError(memo, text); /* borrowed */
        if (found != NULL) {
            Py_INCREF(found);
        }
        else if (PyErr_Occurred()) {
            goto fail;
        }
        else {
            found = PyObject_CallOneArg(count, text);
            if (found == NULL) {
                goto fail;
            }
        }
        if (!PyTuple_CheckExact(found) || PyTuple_GET_SIZE(found) != 2
            || !PyDict_CheckExact(PyTuple_GET_ITEM(found, 0))) {
            Py_DECREF(found);
            PyErr_SetString(PyExc_TypeError, "similar_docs: counts must be (dict, bool)");
            goto fail;
        }
        PyObject *d = PyTuple_GET_ITEM(found, 0);
        PyList_SET_ITEM(docs, k, Py_NewRef(d));
        PyList_SET_ITEM(once, k, Py_NewRef(PyTuple_GET_ITEM(found, 1)));
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(d, &pos, &key, &value)) {
            PyObject *seen = PyDict_GetItemWithError(df, key); /* borrowed */
            PyObject *c = NULL;
            if (seen != NULL) {
                Py_ssize_t before = PyLong_AsSsize_t(seen);
                if (!(before == -1 && PyErr_Occurred())) {
                    c = PyLong_FromSsize_t(before + 1);
                }
            }
            else if (!PyErr_Occurred()) {
                c = PyLong_FromLong(1);
            }
            if (c == NULL || PyDict_SetItem(df, key, c) < 0) {
                Py_XDECREF(c);
                Py_DECREF(found);
                goto fail;
            }
            Py_DECREF(c);
        }
        Py_DECREF(found);
    }
    PyObject *out = PyTuple_Pack(3, docs, once, df);
    Py_DECREF(held);
    Py_DECREF(docs);
    Py_DECREF(once);
    Py_DECREF(df);
    return out;
fail:
    /* (unset items of a new list are NULL, which its deallocation skips) */
    Py_DECREF(held);
    Py_XDECREF(docs);
    Py_XDECREF(once);
    Py_XDECREF(df);
    return NULL;
}
