package main

import "testing"

func TestViewerIsServed(t *testing.T) {
	if viewer == nil {
		t.Fatal("serve has no viewer: viewer.go sets it")
	}
}
