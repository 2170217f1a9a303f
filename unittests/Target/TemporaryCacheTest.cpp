//===- TemporaryCacheTest.cpp - Temporaries kept for the next run ---------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Target/Codegen.h"

#include <cstring>
#include <gtest/gtest.h>
#include <set>
#include <sys/resource.h>

using namespace mlir::tcl;

namespace {

using AllocFn = void *(*)(size_t);
using FreeFn = void (*)(void *);

/// The allocation functions lowered code calls, as the JIT binds them.
std::pair<AllocFn, FreeFn> getAllocationFunctions() {
  AllocFn alloc = nullptr;
  FreeFn release = nullptr;
  for (auto [name, address] : getTemporaryAllocationSymbols()) {
    if (name == "_mlir_memref_to_llvm_alloc")
      alloc = reinterpret_cast<AllocFn>(address);
    if (name == "_mlir_memref_to_llvm_free")
      release = reinterpret_cast<FreeFn>(address);
  }
  return {alloc, release};
}

long getMinorPageFaults() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

/// A freed block comes back for the next request of its size, not for
/// another size.
TEST(TemporaryCacheTest, AFreedBlockServesTheNextRequestOfItsSize) {
  auto [alloc, release] = getAllocationFunctions();
  ASSERT_TRUE(alloc && release);
  void *first = alloc(12345);
  ASSERT_NE(first, nullptr);
  std::memset(first, 1, 12345);
  release(first);
  void *other = alloc(12346);
  void *again = alloc(12345);
  EXPECT_EQ(again, first);
  EXPECT_NE(other, first);
  release(again);
  release(other);
  release(nullptr);
}

/// Runs that allocate, touch and free a temporary larger than glibc's
/// largest mmap threshold (32 MiB: malloc maps it and free unmaps it, so
/// every run faulted in its 10240 pages again) fault in no pages after the
/// first.
TEST(TemporaryCacheTest, RepeatedRunsFaultInNoPages) {
  auto [alloc, release] = getAllocationFunctions();
  constexpr size_t kBytes = size_t(40) << 20;
  auto run = [&, alloc = alloc, release = release] {
    auto *block = static_cast<char *>(alloc(kBytes));
    ASSERT_NE(block, nullptr);
    std::memset(block, 2, kBytes);
    release(block);
  };
  run();
  long before = getMinorPageFaults();
  for (int i = 0; i < 3; ++i)
    run();
  EXPECT_LT(getMinorPageFaults() - before, 100);
}

/// More blocks than the table keeps (256): the rest go back to malloc (the
/// sanitized build checks those frees), and every size is still served.
/// (Other tests in this process may have left blocks in the table, and
/// malloc may hand a freed block back too: at least most come back.)
TEST(TemporaryCacheTest, BlocksBeyondTheTableAreFreed) {
  auto [alloc, release] = getAllocationFunctions();
  std::vector<void *> blocks;
  for (size_t i = 0; i < 300; ++i) {
    blocks.push_back(alloc(64 + i));
    std::memset(blocks.back(), 3, 64 + i);
  }
  std::set<void *> freed(blocks.begin(), blocks.end());
  for (void *block : blocks)
    release(block);
  size_t reused = 0;
  for (size_t i = 0; i < 300; ++i) {
    blocks[i] = alloc(64 + i);
    reused += freed.count(blocks[i]);
  }
  EXPECT_GE(reused, 200u);
  for (void *block : blocks)
    release(block);
}

} // namespace
