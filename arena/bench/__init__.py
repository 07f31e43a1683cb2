"""The benchmarks behind ``arena bench``: the engines against OpenSpiel (``engine``),
the referee against a bare gRPC ping-pong (``referee``), the referee's memory over many
matches (``soak``) and the store's finished matches per second (``store``). Each prints
figures; none is a test (docs/performance.md)."""
