//===- B.cpp - Uses A -----------------------------------------------------===//
#include "tcl/Tuning/B.h"
#include "tcl/Tuning/A.h"
