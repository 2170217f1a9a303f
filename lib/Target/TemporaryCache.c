/*===- TemporaryCache.c - Temporary buffers kept for the next run ---------===
 *
 * Part of the tcl project.
 *
 *===----------------------------------------------------------------------===
 *
 * tcl's code allocates its temporary buffers through MLIR's generic
 * allocation functions (_mlir_memref_to_llvm_alloc/free, the lowering's
 * use-generic-functions). A run frees every temporary it allocates, and the
 * next run asks for the same sizes: freed blocks are kept here and handed
 * out again for a request of the same size, instead of going back to
 * malloc. glibc returns large blocks to the system (mmap'ed ones at once,
 * the heap's top past its trim threshold), and the next run then faults in
 * zeroed pages again: a UNet whose 3x3 convolutions are computed by
 * Winograd's algorithm spent 3-4x its kernels' time in page faults, and
 * whether it did depended on the caller's earlier allocations.
 *
 * At most TCL_SPARE_BLOCKS blocks are kept, while the code is loaded. A
 * spin lock guards the table: allocations are rare (a few per task, hoisted
 * out of loops) and short.
 *
 * This file is compiled into tcl (for the JIT, Kernel.cpp) and its text
 * into every shared library tcl-compile links (Codegen.cpp), where its
 * functions are hidden: each library has its own table.
 *===----------------------------------------------------------------------===*/

#include <stddef.h>
#include <stdlib.h>

#define TCL_SPARE_BLOCKS 256
/* A block starts with its size; the header keeps malloc's alignment. */
#define TCL_BLOCK_HEADER 16

#if defined(__GNUC__)
#define TCL_HIDDEN __attribute__((visibility("hidden")))
#else
#define TCL_HIDDEN
#endif

static size_t tcl_spare_sizes[TCL_SPARE_BLOCKS];
static void *tcl_spare_blocks[TCL_SPARE_BLOCKS];
static char tcl_spares_locked;

static void tcl_lock_spares(void) {
  while (__atomic_test_and_set(&tcl_spares_locked, __ATOMIC_ACQUIRE))
    ;
}

static void tcl_unlock_spares(void) {
  __atomic_clear(&tcl_spares_locked, __ATOMIC_RELEASE);
}

TCL_HIDDEN void *_mlir_memref_to_llvm_alloc(size_t size) {
  char *block = 0;
  int i;
  tcl_lock_spares();
  for (i = 0; i < TCL_SPARE_BLOCKS; ++i)
    if (tcl_spare_blocks[i] && tcl_spare_sizes[i] == size) {
      block = (char *)tcl_spare_blocks[i];
      tcl_spare_blocks[i] = 0;
      break;
    }
  tcl_unlock_spares();
  if (!block) {
    block = (char *)malloc(size + TCL_BLOCK_HEADER);
    if (!block)
      return 0;
    *(size_t *)block = size;
  }
  return block + TCL_BLOCK_HEADER;
}

TCL_HIDDEN void _mlir_memref_to_llvm_free(void *pointer) {
  char *block;
  int i;
  if (!pointer)
    return;
  block = (char *)pointer - TCL_BLOCK_HEADER;
  tcl_lock_spares();
  for (i = 0; i < TCL_SPARE_BLOCKS; ++i)
    if (!tcl_spare_blocks[i]) {
      tcl_spare_sizes[i] = *(size_t *)block;
      tcl_spare_blocks[i] = block;
      tcl_unlock_spares();
      return;
    }
  tcl_unlock_spares();
  free(block);
}

/* The kept blocks go back to malloc when a library is unloaded. */
#if defined(__GNUC__)
static void tcl_release_spares(void) __attribute__((destructor));
#endif
static void tcl_release_spares(void) {
  int i;
  tcl_lock_spares();
  for (i = 0; i < TCL_SPARE_BLOCKS; ++i) {
    free(tcl_spare_blocks[i]);
    tcl_spare_blocks[i] = 0;
  }
  tcl_unlock_spares();
}
