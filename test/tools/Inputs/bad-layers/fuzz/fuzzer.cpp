//===- old-name.cpp - A file renamed without its banner -------------------===//
