// Package bench measures every performance figure adi claims, in one run on one machine, as
// ratios to references measured in the same run: recording overhead, FLT cost per statement
// (adi against DAP single-stepping and logpoints, both through adi's own dap client), command
// latency (an adi session against re-running the program with a tracer per command, the way the
// ADI paper's artifact works; bench/python/peer_standin.py re-implements that method), tokens per
// FLT, the DAP round trip with and without adi's TCP_NODELAY fix, and the cost of watching in
// live mode (live.go: a small web shop's requests per second with and without a watch, and the
// idle watch recorder's cost on fib(22)), and the real bugs (realbugs.go: six reverted upstream
// fixes, each investigated by a fixed command sequence with adi's CLI and, beside it, the ADI
// artifact's own CLI when ADI_REFERENCE names it). cmd/adi-bench prints them
// as markdown tables (make bench); integration/bench_test.go exposes the DAP measurements as Go
// benchmarks.
//
// Nothing here runs concurrently: each measurement owns the machine while it runs. The
// measurements start processes (python, debugpy) and end them before they return.
package bench
