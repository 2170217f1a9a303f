//===- Profile.cpp - Where a compiled model's time goes -------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Runtime/Profile.h"
#include "tcl/Transforms/Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cstring>

using namespace mlir;
using namespace mlir::tcl;

namespace {
/// The sites' text and counters of a kernel compiled with profiling.
struct Counters {
  llvm::StringRef sites;
  uint64_t *values = nullptr; // [sites x 2]: ticks, calls
  size_t count = 0;
};
} // namespace

static llvm::Expected<Counters> findCounters(const Kernel &kernel) {
  auto *text =
      static_cast<const char *>(kernel.lookupGlobal(kProfileSitesSymbol));
  auto *values =
      static_cast<uint64_t *>(kernel.lookupGlobal(kProfileCountersSymbol));
  if (!text || !values)
    return llvm::createStringError(
        "the code has no profile counters (no " + kProfileSitesSymbol.str() +
        "): compile it with profiling (tcl-compile --profile), or let "
        "tcl-run --profile compile it");
  Counters counters;
  counters.sites = llvm::StringRef(text);
  counters.values = values;
  counters.count = counters.sites.count('\n');
  return counters;
}

llvm::Expected<std::vector<ProfileSite>>
mlir::tcl::readProfile(const Kernel &kernel) {
  auto counters = findCounters(kernel);
  if (!counters)
    return counters.takeError();
  std::vector<ProfileSite> sites;
  llvm::StringRef rest = counters->sites;
  for (size_t index = 0; index < counters->count; ++index) {
    auto [line, next] = rest.split('\n');
    rest = next;
    llvm::SmallVector<llvm::StringRef, 4> fields;
    line.split(fields, '\t');
    if (fields.size() != 4)
      return llvm::createStringError("profile site " + std::to_string(index) +
                                     " is malformed: '" + line.str() + "'");
    ProfileSite site;
    site.function = fields[0].str();
    site.callee = fields[1].str();
    site.task = fields[2].str();
    site.ops = fields[3].str();
    site.ticks = counters->values[2 * index];
    site.calls = counters->values[2 * index + 1];
    sites.push_back(std::move(site));
  }
  return sites;
}

llvm::Error mlir::tcl::resetProfile(const Kernel &kernel) {
  auto counters = findCounters(kernel);
  if (!counters)
    return counters.takeError();
  std::memset(counters->values, 0, 2 * counters->count * sizeof(uint64_t));
  return llvm::Error::success();
}

llvm::Expected<ProfileSummary>
mlir::tcl::summarizeProfile(llvm::ArrayRef<ProfileSite> sites,
                            llvm::StringRef function) {
  ProfileSummary summary;
  uint64_t wholeTicks = 0, taskTicks = 0, leftoverTicks = 0;
  bool found = false;
  llvm::StringMap<size_t> nestIndex;
  for (const ProfileSite &site : sites) {
    if (site.function != function)
      continue;
    if (site.callee.empty()) {
      found = true;
      wholeTicks += site.ticks;
      summary.runs += site.calls;
      continue;
    }
    (site.task.empty() ? leftoverTicks : taskTicks) += site.ticks;
    auto [it, inserted] = nestIndex.try_emplace(site.callee, 0);
    if (inserted) {
      it->second = summary.nests.size();
      summary.nests.push_back(site);
      continue;
    }
    ProfileSite &nest = summary.nests[it->second];
    nest.ticks += site.ticks;
    nest.calls += site.calls;
  }
  if (!found)
    return llvm::createStringError("the profile has no counters of @" +
                                   function.str());
  if (summary.runs == 0 || wholeTicks == 0)
    return llvm::createStringError("@" + function.str() +
                                   " has not run since its profile counters "
                                   "were reset");
  double whole = static_cast<double>(wholeTicks);
  summary.taskShare = taskTicks / whole;
  summary.leftoverShare = leftoverTicks / whole;
  summary.outsideShare =
      std::max(0.0, 1.0 - summary.taskShare - summary.leftoverShare);
  summary.ticks = wholeTicks;
  llvm::stable_sort(summary.nests,
                    [](const ProfileSite &a, const ProfileSite &b) {
                      return a.ticks > b.ticks;
                    });
  return summary;
}

void mlir::tcl::printProfile(llvm::raw_ostream &os,
                             const ProfileSummary &summary,
                             llvm::StringRef function, double secondsPerRun) {
  double ms = secondsPerRun * 1e3;
  os << llvm::format("profile of @%s over %llu runs (time stamp counter; "
                     "milliseconds are shares of the measured %.3f ms):\n",
                     function.str().c_str(),
                     static_cast<unsigned long long>(summary.runs), ms);
  auto line = [&](const char *what, double share, const char *which) {
    os << llvm::format("  %-14s %5.1f %%  %8.3f ms  %s\n", what, share * 100,
                       share * ms, which);
  };
  line("tasks' nests", summary.taskShare, "(what the search tunes)");
  line("other nests", summary.leftoverShare,
       "(leftover ops: pads, copies, transposes)");
  line("outside nests", summary.outsideShare,
       "(allocation, code that was not outlined)");
  os << "| nest | task | ops | calls a run | ms a run | share |\n"
        "| --- | --- | --- | ---: | ---: | ---: |\n";
  for (const ProfileSite &nest : summary.nests) {
    double share = static_cast<double>(nest.ticks) / summary.ticks;
    os << llvm::format("| %s | %s | %s | %.0f | %.3f | %.1f %% |\n",
                       nest.callee.c_str(),
                       nest.task.empty() ? "-" : nest.task.c_str(),
                       nest.ops.c_str(),
                       static_cast<double>(nest.calls) / summary.runs,
                       share * ms, share * 100);
  }
}
