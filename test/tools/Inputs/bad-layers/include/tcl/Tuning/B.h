//===- B.h - Broken banner -*- C++
//-*-===//
#ifndef TCL_TUNING_B_H
#define TCL_TUNING_B_H
#endif
