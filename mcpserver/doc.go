// Package mcpserver is adi's MCP server (`adi mcp`, stdio): one tool per ADI command (adi_open,
// adi_break, adi_continue, adi_prev, adi_step_into, adi_step_out, adi_call_tree, adi_list_frames,
// adi_diff, adi_state, adi_flt, adi_exec, adi_clear, adi_list, adi_sessions, adi_close) and one per
// live-mode command (live_start, live_attach, live_set_breakpoint, live_clear, live_continue,
// live_watch, live_unwatch, live_caught, live_flt, live_restart, live_interact, live_stack,
// live_where, live_status, live_close; live_tools.go), with schemas and descriptions written for a
// model. Each tool is a call of the JSON-RPC method of the same meaning through server.Handler
// in-process, so the MCP face has no command logic of its own.
//
// Goroutines: the go-sdk's connection goroutines; and, while a tool call runs for a client that
// asked for progress, one goroutine forwarding the session's events as progress notifications.
package mcpserver
