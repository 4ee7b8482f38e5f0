/* What every semiring-specialized source starts with: the operator helpers its
   semiring's expressions call, and the value-type helpers of the kernels. */
#include "gb_ops.cuh"
#include "gb_dtypes.cuh"
