//===- Report.cpp - What a tuning run reports, and how --------------------===//
//
// Part of the tcl project.
//
//===----------------------------------------------------------------------===//

#include "tcl/Tuning/Report.h"

#include "llvm/ADT/StringExtras.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace mlir::tcl;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

void mlir::tcl::printTuningProgress(const TaskReport &task,
                                    const TuningProgress &progress, bool live,
                                    llvm::raw_ostream &os) {
  unsigned trialsDone = progress.trialsDone;
  unsigned trialsBudget = progress.trialsBudget;
  unsigned trialsBefore = progress.trialsBefore;
  double elapsed = progress.elapsedSeconds;
  double eta =
      trialsDone > trialsBefore
          ? elapsed / (trialsDone - trialsBefore) *
                (trialsBudget > trialsDone ? trialsBudget - trialsDone : 0)
          : 0;
  double gflops =
      task.bestSeconds > 0 ? task.flops / task.bestSeconds * 1e-9 : 0;
  // (A model with tasks not measured yet has no latency to show.)
  std::string model =
      progress.modelSeconds > 0
          ? llvm::formatv("{0,8:F3}", progress.modelSeconds * 1e3).str()
          : llvm::formatv("{0,8}", "-").str();
  std::string line;
  llvm::raw_string_ostream lineOs(line);
  lineOs << llvm::format("[%4u/%4u] %-28s best %9.4f ms %7.1f GFLOP/s | "
                         "model %s ms | %5.0f s, ETA %4.0f s",
                         trialsDone, trialsBudget, task.name.c_str(),
                         task.bestSeconds * 1e3, gflops, model.c_str(), elapsed,
                         eta);
  if (live)
    os << "\r\x1b[2K" << line;
  else
    os << line << "\n";
  os.flush();
}

void mlir::tcl::printTuningTable(const TuningReport &report,
                                 llvm::raw_ostream &os) {
  os << "| task | weight | trials | failed | default (ms) | tuned (ms) | "
        "speed-up | tuned GFLOP/s |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  double before = 0, after = 0;
  for (const TaskReport &task : report.tasks) {
    double speedup = task.bestSeconds > 0 && task.defaultSeconds > 0
                         ? task.defaultSeconds / task.bestSeconds
                         : 0;
    os << "| " << task.name << " | " << task.weight << " | " << task.trials
       << " | " << task.failures << " | "
       << llvm::format("%.4f", task.defaultSeconds * 1e3) << " | "
       << llvm::format("%.4f", task.bestSeconds * 1e3) << " | "
       << llvm::format("%.2f", speedup) << " | "
       << llvm::format("%.1f", task.bestSeconds > 0
                                   ? task.flops / task.bestSeconds * 1e-9
                                   : 0.0)
       << " |\n";
    before += task.weight * task.defaultSeconds;
    after += task.weight * task.bestSeconds;
  }
  os << "| all (sum of weight x latency) | | | | "
     << llvm::format("%.3f", before * 1e3) << " | "
     << llvm::format("%.3f", after * 1e3) << " | "
     << llvm::format("%.2f", after > 0 ? before / after : 0.0) << " | |\n";
  for (const std::string &skipped : report.skipped)
    os << "not tuned: " << skipped << "\n";
  if (report.remeasured)
    os << "confirmed: " << report.remeasured
       << " schedules measured again beside their task's default; "
       << report.defaultsKept.size()
       << " task(s) keep the default, their winner was not faster then"
       << (report.defaultsKept.empty() ? "" : ": ")
       << llvm::join(report.defaultsKept, ", ") << "\n";
}

namespace {
/// A minimal SVG line chart.
void writeChart(
    llvm::raw_ostream &os, double x0, double y0, double width, double height,
    llvm::StringRef title, llvm::StringRef xLabel, llvm::StringRef yLabel,
    llvm::ArrayRef<
        std::pair<std::string, std::vector<std::pair<double, double>>>>
        series) {
  double maxX = 1, maxY = 0, minY = kInfinity;
  for (const auto &[name, points] : series)
    for (auto [x, y] : points) {
      if (!std::isfinite(y))
        continue;
      maxX = std::max(maxX, x);
      maxY = std::max(maxY, y);
      minY = std::min(minY, y);
    }
  if (!std::isfinite(minY))
    minY = 0;
  minY = std::min(minY, 0.0);
  if (maxY <= minY)
    maxY = minY + 1;
  double left = x0 + 60, bottom = y0 + height - 40, plotW = width - 80,
         plotH = height - 70;
  auto px = [&](double x) { return left + x / maxX * plotW; };
  auto py = [&](double y) {
    return bottom - (y - minY) / (maxY - minY) * plotH;
  };
  os << llvm::format("<text x='%.0f' y='%.0f' font-size='14'>", x0 + 60,
                     y0 + 18)
     << title << "</text>\n";
  os << llvm::format("<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                     "stroke='black'/>\n",
                     left, bottom, left + plotW, bottom);
  os << llvm::format("<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' "
                     "stroke='black'/>\n",
                     left, bottom, left, bottom - plotH);
  for (int tick = 0; tick <= 4; ++tick) {
    double xv = maxX * tick / 4, yv = minY + (maxY - minY) * tick / 4;
    os << llvm::format("<text x='%.1f' y='%.1f' font-size='10' "
                       "text-anchor='middle'>%.0f</text>\n",
                       px(xv), bottom + 14, xv);
    os << llvm::format("<text x='%.1f' y='%.1f' font-size='10' "
                       "text-anchor='end'>%.3g</text>\n",
                       left - 4, py(yv) + 3, yv);
  }
  os << llvm::format("<text x='%.1f' y='%.1f' font-size='11' "
                     "text-anchor='middle'>",
                     left + plotW / 2, bottom + 30)
     << xLabel << "</text>\n";
  os << llvm::format("<text x='%.1f' y='%.1f' font-size='11' "
                     "transform='rotate(-90 %.1f %.1f)' "
                     "text-anchor='middle'>",
                     x0 + 14, bottom - plotH / 2, x0 + 14, bottom - plotH / 2)
     << yLabel << "</text>\n";
  static const char *colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                 "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                                 "#bcbd22", "#17becf"};
  for (auto [index, entry] : llvm::enumerate(series)) {
    const auto &[name, points] = entry;
    const char *color = colors[index % 10];
    os << "<polyline fill='none' stroke='" << color << "' points='";
    for (auto [x, y] : points)
      if (std::isfinite(y))
        os << llvm::format("%.1f,%.1f ", px(x), py(y));
    os << "'/>\n";
    os << llvm::format("<text x='%.1f' y='%.1f' font-size='10' fill='%s'>",
                       left + plotW - 150, bottom - plotH + 12 * index, color)
       << name << "</text>\n";
  }
}
} // namespace

void mlir::tcl::writeTuningCurveSvg(const TuningReport &report,
                                    llvm::raw_ostream &os) {
  double width = 720, height = 320;
  os << llvm::format("<svg xmlns='http://www.w3.org/2000/svg' width='%.0f' "
                     "height='%.0f' font-family='sans-serif'>\n",
                     width, 2 * height);
  os << "<rect width='100%' height='100%' fill='white'/>\n";
  std::vector<std::pair<double, double>> model;
  for (auto [trials, seconds] : report.modelCurve)
    model.push_back({static_cast<double>(trials), seconds * 1e3});
  writeChart(os, 0, 0, width, height,
             "Whole model: sum of weight x best latency", "trials", "ms",
             {{"model", model}});
  std::vector<std::pair<std::string, std::vector<std::pair<double, double>>>>
      tasks;
  for (const TaskReport &task : report.tasks) {
    std::vector<std::pair<double, double>> points;
    for (auto [trials, seconds] : task.curve)
      if (seconds > 0 && task.defaultSeconds > 0)
        points.push_back(
            {static_cast<double>(trials), task.defaultSeconds / seconds});
    tasks.push_back({task.name, points});
  }
  writeChart(os, 0, height, width, height,
             "Per task: speed-up of the best schedule over the default",
             "trials of the task", "speed-up", tasks);
  os << "</svg>\n";
}
