"""jax.experimental.sparse: sparse arrays (BCOO, BCSR, COO, CSR, CSC), their
primitives and the `sparsify` transformation (docs/sparse.md)."""

from pyjax._src.sparse.util import (  # noqa: F401
    CuSparseEfficiencyWarning, JAXSparse, SparseEfficiencyError, SparseEfficiencyWarning,
)
from pyjax._src.sparse.bcoo_core import (  # noqa: F401
    bcoo_extract, bcoo_extract_p, bcoo_fromdense, bcoo_fromdense_p, bcoo_sort_indices, bcoo_sort_indices_p,
    bcoo_sum_duplicates, bcoo_sum_duplicates_p, bcoo_todense, bcoo_todense_p, bcoo_transpose, bcoo_transpose_p,
)
from pyjax._src.sparse.bcoo_dot import (  # noqa: F401
    bcoo_dot_general, bcoo_dot_general_p, bcoo_dot_general_sampled, bcoo_dot_general_sampled_p,
    bcoo_spdot_general_p,
)
from pyjax._src.sparse.bcoo_ops import (  # noqa: F401
    bcoo_broadcast_in_dim, bcoo_concatenate, bcoo_conv_general_dilated, bcoo_dynamic_slice, bcoo_multiply_dense, bcoo_multiply_sparse,
    bcoo_gather, bcoo_reduce_sum, bcoo_reshape, bcoo_rev, bcoo_slice, bcoo_squeeze, bcoo_update_layout,
)
from pyjax._src.sparse.bcoo import BCOO  # noqa: F401
from pyjax._src.sparse.transform import SparseTracer, sparsify  # noqa: F401
from pyjax._src.sparse.bcoo_ops import bcoo_eliminate_zeros  # noqa: F401
from pyjax._src.sparse.bcsr import (  # noqa: F401
    BCSR, bcsr_broadcast_in_dim, bcsr_concatenate, bcsr_dot_general, bcsr_dot_general_p, bcsr_extract,
    bcsr_extract_p, bcsr_fromdense, bcsr_fromdense_p, bcsr_sum_duplicates, bcsr_todense, bcsr_todense_p,
)
from pyjax._src.sparse.legacy import (  # noqa: F401
    COO, CSC, CSR, coo_fromdense, coo_fromdense_p, coo_matmat, coo_matmat_p, coo_matvec, coo_matvec_p,
    coo_todense, coo_todense_p, csr_fromdense, csr_fromdense_p, csr_matmat, csr_matmat_p, csr_matvec,
    csr_matvec_p, csr_todense, csr_todense_p,
)
from pyjax._src.sparse.api import (  # noqa: F401
    empty, eye, grad, jacfwd, jacobian, jacrev, random_bcoo, todense, todense_p, value_and_grad,
)
from pyjax.experimental.sparse import linalg  # noqa: F401
