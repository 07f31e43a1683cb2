"""Generated code of the protobuf package rummyarena.v1 (make proto). Never edit by hand."""
