// Package examples holds the programs adi ships with: orders.py, the demo's buggy program (a
// silent wrong result in nested calls), embedded so `adi demo` needs nothing else.
package examples

import _ "embed"

// Orders is the source of orders.py.
//
//go:embed orders.py
var Orders []byte
