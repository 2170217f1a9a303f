//===- A.cpp - Uses B -----------------------------------------------------===//
#include "tcl/Tuning/A.h"
#include "tcl/Tuning/B.h"
