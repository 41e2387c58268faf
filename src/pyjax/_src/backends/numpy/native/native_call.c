/* The call into native code (native.py), as a CPython callable.
 *
 * A native program is a C function `program(char **a, void **k, char *s)`:
 * `a` the inputs' then the outputs' data (C-contiguous), `k` the kernel
 * pointers it calls, `s` its scratch. Called through ctypes, each call pays
 * ~5 us of argument marshalling in Python (np.empty per output, a pointer
 * array, __array_interface__ per buffer): more than a dozen NumPy calls.
 * A `NativeCall` does the same in C, in about a tenth of a microsecond
 * plus the outputs' allocation, so a program of two equations already
 * gains from its native code.
 *
 * NativeCall(program, kernels, in_specs, out_specs, scratch, release_gil,
 *            single, keep[, reports])
 *   program, kernels: addresses (ints);
 *   in_specs, out_specs: tuples of (dtype, shape);
 *   scratch: bytes of scratch per call;
 *   release_gil: run the program without the GIL (a loop);
 *   single: return the one output itself, and raise TypeError on inputs of
 *     other dtypes or shapes (the caller guarantees them);
 *   keep: any object to hold while this one lives (the library and the
 *     kernel table the addresses point into);
 *   reports: the program reports the classes of its inputs' values itself
 *     (below).
 *
 * Re-checks (native.py's sampling): while `sampler` is set, the call
 * numbered `next_check` (counted in `calls`; `next_check` then doubles) and
 * the first call whose float inputs hold a class of value still in `watch`
 * (bits: NaN, +inf, -inf, +0, -0, subnormal; each bit cleared once seen)
 * are handed to `sampler(*args)` instead, which returns what the call
 * returns. `next_check` 0 hands every call to it (a dropped tier).
 *
 * Scanning the inputs before the call is a pass through memory of its own
 * on one core (up to a tenth of a training step's time, most of it on the
 * row loops' large inputs), so a program that `reports` (a large row loop
 * shared among the cores: plans.py REPORT_MIN_BYTES) scans each block of
 * rows as it reads it, while the rows are in the caches, into the `Watch`
 * passed after its arguments (every scan's and row loop's function takes
 * one, emit.py `_scan_source`; one wanting nothing when the call scans
 * before). A call that
 * reports a class still in `watch` is handed to `sampler` after the
 * program ran, its outputs dropped: while `watch` is not empty, such a
 * program writes no output into a given buffer, so that the inputs are as
 * they were when the sampler gets them.
 *
 * A call with inputs of the expected dtypes and shapes returns the list of
 * outputs (new arrays); otherwise None, and the caller runs its Python code.
 * After the inputs, a call may pass one array or None per output: an array
 * (C-contiguous, aligned, writeable, of the output's dtype and shape) is
 * written and returned as that output (the caller's dead buffer, reused).
 * An input that is not a C-contiguous, aligned, native-order ndarray (a
 * view, a NumPy scalar) is converted first, as np.ascontiguousarray would.
 *
 * Built at run time by native.py with the system C compiler, against this
 * Python's and this NumPy's headers; without them native code is called
 * through ctypes.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void (*program_t)(char **, void **, char *);

/* Inputs and outputs together: a program with more is called through ctypes. */
#define MAX_ARGS 256

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    program_t program;
    void **kernels;
    Py_ssize_t n_in, n_out;
    int *in_type, *in_ndim;
    npy_intp *in_dims;        /* every input's shape, one after the other */
    PyArray_Descr **out_descr;
    int *out_ndim;
    npy_intp *out_dims;
    size_t scratch;
    int release_gil, single;
    PyObject *keep;
    PyObject *sampler;        /* NULL: no re-checks */
    unsigned long long calls, next_check;
    unsigned int watch;
    int reports;
} NativeCall;

enum { C_NAN = 1, C_PINF = 2, C_NINF = 4, C_PZERO = 8, C_NZERO = 16, C_SUB = 32 };

/* A reporting program's last argument (emit.py's `pj_watch_t` is the same
 * struct): the classes wanted (0: it scans nothing), the classes it read,
 * which its threads OR in, and the scanners of float16, float32 and
 * float64 values. */
typedef unsigned (*scanner_t)(const void *, npy_intp, unsigned);
typedef struct {
    unsigned want, seen;
    scanner_t f16, f32, f64;
} Watch;

/* The classes of IEEE values in n elements of `bits` (exponent field
 * `emask`, mantissa `mmask`, sign `smask`), stopping once `want` are all
 * seen. Each block is tested first: adding the exponent's lowest bit to
 * the exponent field carries out of it (or into nothing else) exactly
 * when it is all ones (or all zeros), so a block holds a zero, a
 * subnormal or a non-finite value when the least of those sums, its carry
 * bits masked off, is 0 (a min the compiler vectorises: an ordinary block
 * costs a few cycles). Such a block (after a relu, most blocks: they hold
 * +0) is scanned again for its classes, also with mins and maxes: +0 is the
 * least value, -0 the least after flipping the sign, a subnormal makes
 * the least magnitude minus one smaller than the mantissa mask, a NaN the
 * largest magnitude larger than infinity's; the block after such a block
 * goes straight to that scan. Only a block with an infinity or a NaN, when
 * an infinity is still wanted, is walked element by element. */
#define CLASSES(T, name)                                                                         \
    static unsigned name(const T *x, npy_intp n, T emask, T mmask, T smask, unsigned want) {      \
        unsigned seen = 0;                                                                       \
        int special = 0;                                                                         \
        const T low = emask & (T)-emask, inner = emask - low, magnitude = emask | mmask;         \
        for (npy_intp i = 0; i < n; i += 256) {                                                  \
            npy_intp m = n - i < 256 ? n - i : 256;                                              \
            if (!special) {                                                                      \
                T least = inner;                                                                 \
                for (npy_intp j = 0; j < m; j++) {                                               \
                    T carried = (T)((T)((x[i + j] & emask) + low) & inner);                      \
                    least = carried < least ? carried : least;                                   \
                }                                                                                \
                if (least)                                                                       \
                    continue;                                                                    \
            }                                                                                    \
            T least_v = (T)-1, least_flipped = (T)-1, least_below = (T)-1, most = 0;              \
            for (npy_intp j = 0; j < m; j++) {                                                   \
                T v = x[i + j], a = v & magnitude, flipped = v ^ smask, below = (T)(a - 1);       \
                least_v = v < least_v ? v : least_v;                                             \
                least_flipped = flipped < least_flipped ? flipped : least_flipped;               \
                least_below = below < least_below ? below : least_below;                         \
                most = a > most ? a : most;                                                      \
            }                                                                                    \
            seen |= (least_v == 0 ? C_PZERO : 0) | (least_flipped == 0 ? C_NZERO : 0)             \
                    | (least_below < mmask ? C_SUB : 0) | (most > emask ? C_NAN : 0);             \
            special = least_v == 0 || least_flipped == 0 || least_below < mmask || most >= emask; \
            if (most >= emask && (want & ~seen & (C_PINF | C_NINF)))                             \
                for (npy_intp j = 0; j < m; j++)                                                 \
                    if ((x[i + j] & magnitude) == emask)                                         \
                        seen |= x[i + j] & smask ? C_NINF : C_PINF;                              \
            if ((seen & want) == want)                                                           \
                break;                                                                           \
        }                                                                                        \
        return seen;                                                                             \
    }
CLASSES(uint16_t, classes16)
CLASSES(uint32_t, classes32)
CLASSES(uint64_t, classes64)

static unsigned scan16(const void *x, npy_intp n, unsigned want) {
    return classes16((const uint16_t *)x, n, 0x7c00u, 0x3ffu, 0x8000u, want) & want;
}
static unsigned scan32(const void *x, npy_intp n, unsigned want) {
    return classes32((const uint32_t *)x, n, 0x7f800000u, 0x7fffffu, 0x80000000u, want) & want;
}
static unsigned scan64(const void *x, npy_intp n, unsigned want) {
    return classes64((const uint64_t *)x, n, 0x7ff0000000000000ull, 0xfffffffffffffull, 0x8000000000000000ull,
                     want) & want;
}

/* The watched classes of value among the float inputs. */
static unsigned input_classes(NativeCall *self, PyArrayObject **held, char **ptrs) {
    unsigned seen = 0, want = self->watch;
    for (Py_ssize_t i = 0; i < self->n_in && (seen & want) != want; i++) {
        npy_intp n = PyArray_SIZE(held[i]);
        switch (self->in_type[i]) {
        case NPY_HALF:
            seen |= scan16(ptrs[i], n, want);
            break;
        case NPY_FLOAT:
            seen |= scan32(ptrs[i], n, want);
            break;
        case NPY_DOUBLE:
            seen |= scan64(ptrs[i], n, want);
            break;
        default:
            break;
        }
    }
    return seen & want;
}

static void release_all(PyArrayObject **held, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        Py_XDECREF(held[i]);
}

/* The inputs' data pointers into `ptrs` (new references into `held`):
 * 1 when every input has the expected dtype and shape, 0 when one does not,
 * -1 with an exception set. */
static int take_inputs(NativeCall *self, PyObject *const *args, PyArrayObject **held, char **ptrs) {
    const npy_intp *dims = self->in_dims;
    for (Py_ssize_t i = 0; i < self->n_in; i++) {
        PyObject *x = args[i];
        PyArrayObject *arr;
        if (PyArray_CheckExact(x) && PyArray_ISCARRAY_RO((PyArrayObject *)x)
                && PyArray_ISNOTSWAPPED((PyArrayObject *)x)) {
            Py_INCREF(x);
            arr = (PyArrayObject *)x;
        } else {
            arr = (PyArrayObject *)PyArray_FROM_OF(x, NPY_ARRAY_CARRAY_RO | NPY_ARRAY_NOTSWAPPED);
            if (arr == NULL)
                return -1;
        }
        held[i] = arr;
        int nd = self->in_ndim[i];
        if (PyArray_TYPE(arr) != self->in_type[i] || PyArray_NDIM(arr) != nd)
            return 0;
        const npy_intp *shape = PyArray_DIMS(arr);
        for (int d = 0; d < nd; d++)
            if (shape[d] != dims[d])
                return 0;
        dims += nd;
        ptrs[i] = PyArray_BYTES(arr);
    }
    return 1;
}

/* Whether `x` can be output j (of shape `dims`) as it is. */
static int fits(NativeCall *self, Py_ssize_t j, const npy_intp *dims, PyObject *x) {
    if (!PyArray_CheckExact(x))
        return 0;
    PyArrayObject *arr = (PyArrayObject *)x;
    int nd = self->out_ndim[j];
    if (!PyArray_ISCARRAY(arr) || !PyArray_ISNOTSWAPPED(arr) || PyArray_NDIM(arr) != nd
            || PyArray_TYPE(arr) != self->out_descr[j]->type_num)
        return 0;
    for (int d = 0; d < nd; d++)
        if (PyArray_DIMS(arr)[d] != dims[d])
            return 0;
    return 1;
}

static PyObject *native_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    NativeCall *self = (NativeCall *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_TypeError, "a native program takes positional arguments only");
        return NULL;
    }
    if (nargs != self->n_in && nargs != self->n_in + self->n_out) {
        if (!self->single)
            Py_RETURN_NONE;
        PyErr_Format(PyExc_TypeError, "a native program of %zd inputs got %zd", self->n_in, nargs);
        return NULL;
    }
    PyObject *const *given = nargs == self->n_in ? NULL : args + self->n_in;
    PyArrayObject *held[MAX_ARGS];
    char *ptrs[MAX_ARGS + 1];  /* (a reporting program's Watch last) */
    PyObject *outs[MAX_ARGS];
    Watch watch = {0, 0, scan16, scan32, scan64};
    Py_ssize_t n_in = self->n_in, n_out = self->n_out, taken = 0, made = 0;
    PyObject *result = NULL;
    memset(held, 0, n_in * sizeof(*held));

    int ok = take_inputs(self, args, held, ptrs);
    taken = n_in;
    if (ok <= 0) {
        if (ok == 0 && !self->single) {
            Py_INCREF(Py_None);
            result = Py_None;
        } else if (ok == 0) {
            PyErr_SetString(PyExc_TypeError, "a native program's inputs differ from the dtypes and shapes "
                                             "it was built for");
        }
        goto done;
    }
    if (self->sampler != NULL && self->sampler != Py_None) {
        int due = ++self->calls >= self->next_check;
        if (due)
            self->next_check = self->next_check ? 2 * self->next_check : 0;
        if (self->watch && self->reports) {
            watch.want = self->watch;
        } else if (self->watch) {
            unsigned seen = input_classes(self, held, ptrs);
            if (seen) {
                self->watch &= ~seen;
                due = 1;
            }
        }
        if (due && given != NULL) {  /* output buffers that do not fit answer as they do unsampled */
            const npy_intp *d = self->out_dims;
            for (Py_ssize_t j = 0; j < n_out; d += self->out_ndim[j], j++)
                if (given[j] != Py_None && !fits(self, j, d, given[j])) {
                    due = 0;
                    break;
                }
        }
        if (due) {
            PyObject *sampler = self->sampler;
            Py_INCREF(sampler);
            release_all(held, taken);
            result = PyObject_Vectorcall(sampler, args, nargs, NULL);
            Py_DECREF(sampler);
            return result;
        }
    }
    const npy_intp *dims = self->out_dims;
    for (; made < n_out; made++) {
        if (given != NULL && given[made] != Py_None && !watch.want) {
            if (!fits(self, made, dims, given[made])) {
                if (self->single) {
                    PyErr_SetString(PyExc_TypeError, "a native program's output buffer does not fit");
                } else {
                    Py_INCREF(Py_None);
                    result = Py_None;
                }
                goto done;
            }
            Py_INCREF(given[made]);
            outs[made] = given[made];
        } else {
            PyArray_Descr *descr = self->out_descr[made];
            Py_INCREF(descr);  /* stolen */
            outs[made] = PyArray_NewFromDescr(&PyArray_Type, descr, self->out_ndim[made], (npy_intp *)dims,
                                              NULL, NULL, 0, NULL);
            if (outs[made] == NULL)
                goto done;
        }
        ptrs[n_in + made] = PyArray_BYTES((PyArrayObject *)outs[made]);
        dims += self->out_ndim[made];
    }
    ptrs[n_in + n_out] = (char *)&watch;
    char *scratch = malloc(self->scratch + 64);
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    char *aligned = scratch + (-(uintptr_t)scratch & 63);
    if (self->release_gil) {
        Py_BEGIN_ALLOW_THREADS
        self->program(ptrs, self->kernels, aligned);
        Py_END_ALLOW_THREADS
    } else {
        self->program(ptrs, self->kernels, aligned);
    }
    free(scratch);
    if (watch.seen & self->watch) {  /* (a sampler is set: `watch.want` was) */
        self->watch &= ~watch.seen;
        for (Py_ssize_t j = 0; j < made; j++)
            Py_CLEAR(outs[j]);
        PyObject *sampler = self->sampler;
        Py_INCREF(sampler);
        result = PyObject_Vectorcall(sampler, args, nargs, NULL);
        Py_DECREF(sampler);
        goto done;
    }
    if (self->single) {
        result = outs[0];
        outs[0] = NULL;
    } else {
        result = PyList_New(n_out);
        if (result != NULL)
            for (Py_ssize_t j = 0; j < n_out; j++) {
                PyList_SET_ITEM(result, j, outs[j]);  /* stolen */
                outs[j] = NULL;
            }
    }
done:
    release_all(held, taken);
    for (Py_ssize_t j = 0; j < made; j++)
        Py_XDECREF(outs[j]);
    return result;
}

/* One spec tuple ((dtype, shape), ...) into counts, dtypes and shapes. */
static int read_specs(PyObject *specs, Py_ssize_t *n, PyArray_Descr ***descrs, int **types, int **ndims,
                      npy_intp **dims) {
    if (!PyTuple_Check(specs)) {
        PyErr_SetString(PyExc_TypeError, "specs must be a tuple of (dtype, shape)");
        return -1;
    }
    *n = PyTuple_GET_SIZE(specs);
    if (*n > MAX_ARGS) {  /* (native.py checks the sum) */
        PyErr_SetString(PyExc_ValueError, "too many arguments for a native program");
        return -1;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *spec = PyTuple_GET_ITEM(specs, i);
        if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 2 || !PyTuple_Check(PyTuple_GET_ITEM(spec, 1))) {
            PyErr_SetString(PyExc_TypeError, "a spec must be (dtype, shape tuple)");
            return -1;
        }
        total += PyTuple_GET_SIZE(PyTuple_GET_ITEM(spec, 1));
    }
    *descrs = PyMem_Calloc(*n + 1, sizeof(**descrs));
    *types = PyMem_Calloc(*n + 1, sizeof(**types));
    *ndims = PyMem_Calloc(*n + 1, sizeof(**ndims));
    *dims = PyMem_Calloc(total + 1, sizeof(**dims));
    if (!*descrs || !*types || !*ndims || !*dims) {
        PyErr_NoMemory();
        return -1;
    }
    npy_intp *d = *dims;
    for (Py_ssize_t i = 0; i < *n; i++) {
        PyObject *spec = PyTuple_GET_ITEM(specs, i), *shape = PyTuple_GET_ITEM(spec, 1);
        PyArray_Descr *descr = NULL;
        if (!PyArray_DescrConverter(PyTuple_GET_ITEM(spec, 0), &descr))
            return -1;
        (*descrs)[i] = descr;  /* owned */
        (*types)[i] = descr->type_num;
        (*ndims)[i] = (int)PyTuple_GET_SIZE(shape);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(shape); j++) {
            *d = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, j));
            if (*d == -1 && PyErr_Occurred())
                return -1;
            d++;
        }
    }
    return 0;
}

static void free_descrs(PyArray_Descr **descrs, Py_ssize_t n) {
    if (descrs == NULL)
        return;
    for (Py_ssize_t i = 0; i < n; i++)
        Py_XDECREF(descrs[i]);
    PyMem_Free(descrs);
}

static int native_call_traverse(NativeCall *self, visitproc visit, void *arg) {
    Py_VISIT(self->keep);
    Py_VISIT(self->sampler);  /* (the tier it re-checks for holds this call: a cycle) */
    return 0;
}

static int native_call_clear(NativeCall *self) {
    Py_CLEAR(self->sampler);
    return 0;
}

static void native_call_dealloc(NativeCall *self) {
    PyObject_GC_UnTrack(self);
    free_descrs(self->out_descr, self->n_out);
    PyMem_Free(self->in_type);
    PyMem_Free(self->in_ndim);
    PyMem_Free(self->in_dims);
    PyMem_Free(self->out_ndim);
    PyMem_Free(self->out_dims);
    Py_XDECREF(self->keep);
    Py_XDECREF(self->sampler);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *native_call_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    unsigned long long program, kernels;
    PyObject *in_specs, *out_specs, *keep;
    Py_ssize_t scratch;
    int release_gil, single, reports = 0;
    if (!PyArg_ParseTuple(args, "KKOOnppO|p", &program, &kernels, &in_specs, &out_specs, &scratch, &release_gil,
                          &single, &keep, &reports))
        return NULL;
    NativeCall *self = (NativeCall *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->vectorcall = native_call;
    self->program = (program_t)(uintptr_t)program;
    self->kernels = (void **)(uintptr_t)kernels;
    self->scratch = (size_t)scratch;
    self->release_gil = release_gil;
    self->single = single;
    self->reports = reports;
    Py_INCREF(keep);
    self->keep = keep;
    PyArray_Descr **in_descr = NULL;
    int *out_type = NULL;
    Py_ssize_t n_in = 0;
    int failed = read_specs(in_specs, &n_in, &in_descr, &self->in_type, &self->in_ndim, &self->in_dims) < 0;
    free_descrs(in_descr, n_in);  /* inputs are checked by type number */
    self->n_in = n_in;
    if (!failed)
        failed = read_specs(out_specs, &self->n_out, &self->out_descr, &out_type, &self->out_ndim,
                            &self->out_dims) < 0;
    PyMem_Free(out_type);
    if (!failed && single && self->n_out != 1) {
        PyErr_SetString(PyExc_ValueError, "single: a native program of one output only");
        failed = 1;
    }
    if (failed) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static PyMemberDef native_call_members[] = {
    {"sampler", T_OBJECT, offsetof(NativeCall, sampler), 0, "the callable re-checked calls go to, or None"},
    {"calls", T_ULONGLONG, offsetof(NativeCall, calls), 0, "calls counted while a sampler is set"},
    {"next_check", T_ULONGLONG, offsetof(NativeCall, next_check), 0, "the call handed to the sampler next"},
    {"watch", T_UINT, offsetof(NativeCall, watch), 0, "classes of float input values not yet seen"},
    {NULL},
};

static PyTypeObject NativeCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pyjax.NativeCall",
    .tp_basicsize = sizeof(NativeCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)native_call_traverse,
    .tp_clear = (inquiry)native_call_clear,
    .tp_vectorcall_offset = offsetof(NativeCall, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = native_call_new,
    .tp_dealloc = (destructor)native_call_dealloc,
    .tp_members = native_call_members,
    .tp_doc = "A native program as a Python callable (native_call.c).",
};

/* flushed_call(fn, *args): fn(*args) with the FPU in XLA:CPU's denormal mode
 * (flush-to-zero and denormals-are-zero, round to nearest, exceptions
 * masked), the caller's mode restored afterwards (fpenv.py). */
#if defined(__x86_64__) || defined(_M_X64) || defined(__SSE2__)
#include <xmmintrin.h>
#define FLUSHED_MODE 0x9fc0u /* 0x1f80 (masked, nearest) | FTZ 0x8000 | DAZ 0x0040 */
static inline unsigned fp_mode_enter(void) {
    unsigned old = _mm_getcsr();
    _mm_setcsr(FLUSHED_MODE);
    return old;
}
static inline void fp_mode_exit(unsigned old) { _mm_setcsr(old); }
#elif defined(__aarch64__)
static inline unsigned fp_mode_enter(void) {
    uint64_t old;
    __asm__ volatile("mrs %0, fpcr" : "=r"(old));
    uint64_t mode = 1u << 24; /* FZ; nearest; traps off */
    __asm__ volatile("msr fpcr, %0" : : "r"(mode));
    return (unsigned)old;
}
static inline void fp_mode_exit(unsigned old) {
    uint64_t v = old;
    __asm__ volatile("msr fpcr, %0" : : "r"(v));
}
#else
static inline unsigned fp_mode_enter(void) { return 0; }
static inline void fp_mode_exit(unsigned old) { (void)old; }
#endif

/* NumPy's floating-point error state (a context variable) for the call:
 * XLA never warns, so pyjax's own computations run with every NumPy
 * floating-point error ignored (fpenv.py binds the variable and its "all
 * ignore" value once). */
static PyObject *quiet_var = NULL, *quiet_value = NULL;

static PyObject *set_quiet_state(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyContextVar_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "set_quiet_state(contextvar, value)");
        return NULL;
    }
    PyObject *var = quiet_var, *value = quiet_value;
    quiet_var = Py_NewRef(args[0]);
    quiet_value = Py_NewRef(args[1]);
    Py_XDECREF(var);
    Py_XDECREF(value);
    Py_RETURN_NONE;
}

/* BLAS's thread count for the call (blas.py): each loaded OpenBLAS's
 * get/set functions and the limit; the caller's counts are restored. */
#define MAX_BLAS 4
typedef int (*blas_get_fn)(void);
typedef void (*blas_set_fn)(int);
static int blas_limit = 0, blas_n = 0;
static blas_get_fn blas_get[MAX_BLAS];
static blas_set_fn blas_set[MAX_BLAS];

static PyObject *set_blas_threads(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyTuple_Check(args[1]) || PyTuple_GET_SIZE(args[1]) > MAX_BLAS) {
        PyErr_SetString(PyExc_TypeError, "set_blas_threads(limit, ((get, set), ...)) with at most 4 pairs");
        return NULL;
    }
    int limit = (int)PyLong_AsLong(args[0]);
    if (limit == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(args[1]);
    blas_get_fn gets[MAX_BLAS];
    blas_set_fn sets[MAX_BLAS];
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyTuple_GET_ITEM(args[1], i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "set_blas_threads: each entry is (get address, set address)");
            return NULL;
        }
        void *get = PyLong_AsVoidPtr(PyTuple_GET_ITEM(pair, 0)), *set = PyLong_AsVoidPtr(PyTuple_GET_ITEM(pair, 1));
        if (PyErr_Occurred())
            return NULL;
        gets[i] = (blas_get_fn)get;
        sets[i] = (blas_set_fn)set;
    }
    blas_n = 0; /* (set under the GIL, as flushed_call reads it) */
    for (Py_ssize_t i = 0; i < n; i++) {
        blas_get[i] = gets[i];
        blas_set[i] = sets[i];
    }
    blas_limit = limit;
    blas_n = limit > 0 ? (int)n : 0;
    Py_RETURN_NONE;
}

static PyObject *flushed_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "flushed_call needs a function");
        return NULL;
    }
    PyObject *token = NULL;
    if (quiet_var != NULL && (token = PyContextVar_Set(quiet_var, quiet_value)) == NULL)
        return NULL;
    int n_blas = blas_n, threads[MAX_BLAS];
    for (int i = 0; i < n_blas; i++) {
        threads[i] = blas_get[i]();
        if (threads[i] != blas_limit)
            blas_set[i](blas_limit);
    }
    unsigned old = fp_mode_enter();
    PyObject *out = PyObject_Vectorcall(args[0], args + 1, (size_t)(nargs - 1), NULL);
    fp_mode_exit(old);
    for (int i = 0; i < n_blas; i++)
        if (threads[i] != blas_limit)
            blas_set[i](threads[i]);
    if (token != NULL) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        int bad = PyContextVar_Reset(quiet_var, token);
        Py_DECREF(token);
        if (bad) {
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            Py_XDECREF(out);
            return NULL;
        }
        PyErr_Restore(type, value, tb);
    }
    return out;
}

static PyMethodDef module_methods[] = {
    {"flushed_call", (PyCFunction)(void (*)(void))flushed_call, METH_FASTCALL,
     "flushed_call(fn, *args): fn(*args) in XLA:CPU's denormal mode."},
    {"set_quiet_state", (PyCFunction)(void (*)(void))set_quiet_state, METH_FASTCALL,
     "set_quiet_state(contextvar, value): the NumPy error state flushed_call sets."},
    {"set_blas_threads", (PyCFunction)(void (*)(void))set_blas_threads, METH_FASTCALL,
     "set_blas_threads(limit, ((get, set), ...)): BLAS's thread count in flushed_call."},
    {NULL, NULL, 0, NULL},
};

static int module_exec(PyObject *m) {
    import_array1(-1);
    if (PyType_Ready(&NativeCallType) < 0)
        return -1;
    Py_INCREF(&NativeCallType);
    if (PyModule_AddObject(m, "NativeCall", (PyObject *)&NativeCallType) < 0) {
        Py_DECREF(&NativeCallType);
        return -1;
    }
    return 0;
}

/* Multi-phase initialisation, for the slots below (guarded: the module
   still builds on Pythons without them). */
static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
#ifdef Py_mod_multiple_interpreters
    /* Its state is static (the NativeCall type, flushed_call's context
       variable and BLAS functions): one interpreter only. */
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#endif
#ifdef Py_mod_gil
    /* That static state is not guarded for threads running without the
       GIL: free-threaded Python keeps the GIL on while this is loaded. */
    {Py_mod_gil, Py_MOD_GIL_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pyjax_native_call", NULL, 0, module_methods,
                                    module_slots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__pyjax_native_call(void) {
    return PyModuleDef_Init(&module);
}
