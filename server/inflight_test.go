package server

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wait returns as soon as the last piece of work ends, and watch's channel announces each change.
func TestInflightWait(t *testing.T) {
	var w inflight
	require.NoError(t, w.wait(context.Background()), "nothing in flight")
	w.Add(2)
	n, changed := w.watch()
	assert.Equal(t, int64(2), n)
	done := make(chan error, 1)
	go func() { done <- w.wait(context.Background()) }()
	w.Add(-1)
	<-changed
	select {
	case <-done:
		t.Fatal("wait returned with work in flight")
	default:
	}
	w.Add(-1)
	require.NoError(t, <-done)
	w.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, w.wait(ctx), context.DeadlineExceeded)
}
