//===- Machine.h - What the machine is, and how busy it is ------*- C++ -*-===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//
//
// Two questions a measurement must ask of the machine it runs on:
//
//  - what it is: probeHardware fills a platform's HardwareFeatures (cache
//    sizes from sysfs, peak multiply-add throughput and memory bandwidth
//    measured with small loops compiled for the platform's ISA), the
//    hardware part of every token row;
//  - whether something else is using it: a LoadMonitor reports how many
//    cores processes outside this process group (a build, a test run,
//    another VM stealing time) kept busy since it was started. A timing
//    taken meanwhile is a wrong label.
//
//===----------------------------------------------------------------------===//

#ifndef TCL_RUNTIME_MACHINE_H
#define TCL_RUNTIME_MACHINE_H

#include "tcl/Target/Platform.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>

namespace mlir::tcl {

/// The host's CPU model name as /proc/cpuinfo gives it ("unknown CPU" if it
/// does not).
std::string getHostCpuModel();

/// The host's CPU model, microarchitecture and logical core count, e.g.
/// "AMD EPYC (znver4), 2 logical cores" (for datasets' manifests and
/// benchmark tables).
std::string describeHost();

/// Probes the host for `platform` run on `threads` threads. Fails if the
/// host cannot execute the platform's ISA. Takes about a second.
/// For a GPU platform, what the CUDA driver says of device 0 (fails where
/// there is no driver or device, or the device is of another architecture).
llvm::Expected<HardwareFeatures> probeHardware(const Platform &platform);

class LoadMonitor {
public:
  /// Starts a window now.
  LoadMonitor() { restart(); }
  void restart();
  /// Cores kept busy on average since the window started by processes
  /// outside this process group, plus time stolen by the hypervisor.
  /// Returns 0 where /proc cannot tell.
  double foreignCores() const;
  double elapsedSeconds() const;

private:
  struct Snapshot {
    /// Busy and stolen CPU time of the whole machine, and CPU time of this
    /// process group (live members and the children they reaped), in
    /// clock ticks.
    uint64_t machineBusy = 0, groupTime = 0;
    double wallSeconds = 0;
  };
  static Snapshot take();
  Snapshot start;
};

/// What a load guard reads and how it waits: by default the machine itself
/// (LoadMonitor windows, the steady clock, sleeping). Tests inject a
/// scripted one, so that what they assert does not depend on whatever else
/// runs on the machine, nor on its speed.
class LoadEnvironment {
public:
  virtual ~LoadEnvironment();
  /// Starts a window; the returned function reads the foreign cores of the
  /// window so far (LoadMonitor::foreignCores).
  virtual std::function<double()> startWindow() = 0;
  /// Seconds on a monotonic clock.
  virtual double nowSeconds() = 0;
  virtual void sleep(double seconds) = 0;

  /// The machine this process runs on.
  static LoadEnvironment &machine();
};

} // namespace mlir::tcl

#endif // TCL_RUNTIME_MACHINE_H
