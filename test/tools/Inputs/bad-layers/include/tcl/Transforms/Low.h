//===- Low.h - A lower layer ------------------------------------*- C++ -*-===//
#ifndef TCL_TRANSFORMS_LOW_H
#define TCL_TRANSFORMS_LOW_H
#include "tcl/Tuning/High.h"
#endif
