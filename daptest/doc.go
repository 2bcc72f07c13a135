// Package daptest helps test DAP code without an editor or a debugger: Client is a blocking DAP
// client that plays an editor, and Adapter a scriptable fake debug adapter, each on one end of a
// connection (net.Pipe for an in-process peer, or a socket).
//
// Nothing here sleeps or polls: an expectation blocks on the arrival of messages, up to a
// deadline (Limit), and fails the test with what it waited for.
//
// Goroutines: each Client and each Adapter runs one read loop, which files what its peer sends
// (an Adapter also answers requests there, with the handlers the test set); it ends when the
// connection ends.
package daptest
