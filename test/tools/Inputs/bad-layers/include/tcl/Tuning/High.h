//===- High.h - A higher layer ----------------------------------*- C++ -*-===//
#ifndef TCL_TUNING_HIGH_H
#define TCL_TUNING_HIGH_H
#endif
