//===- A.h - One half of a circle -------------------------------*- C++ -*-===//
#ifndef TCL_TUNING_OLD_A_H
#define TCL_TUNING_OLD_A_H
#endif
