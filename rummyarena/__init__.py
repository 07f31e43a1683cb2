"""Code generated from proto/ by grpc_tools.protoc (make proto). Never edit by hand."""
