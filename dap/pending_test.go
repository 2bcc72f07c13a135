package dap

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func response(t *testing.T, raw string) *Message {
	t.Helper()
	m, err := DecodeEnvelope([]byte(raw))
	require.NoError(t, err)
	return m
}

// An awaited call gets its response (a refused one a *ResponseError); a tracked one is handed back
// to be forwarded; Close fails the waiters and returns the tracked requests in order.
func TestPending(t *testing.T) {
	p := NewPending()
	ok, err := p.Await(1, "threads")
	require.NoError(t, err)
	refused, err := p.Await(2, "evaluate")
	require.NoError(t, err)
	require.NoError(t, p.Track(4, "next", 9))
	require.NoError(t, p.Track(3, "stepIn", 8))
	late, err := p.Await(5, "scopes")
	require.NoError(t, err)

	call, delivered := p.Resolve(response(t, `{"seq":1,"type":"response","request_seq":1,"command":"threads","success":true}`))
	assert.Same(t, ok, call)
	assert.True(t, delivered)
	m, err := ok.Wait(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "threads", m.Command)

	p.Resolve(response(t, `{"seq":2,"type":"response","request_seq":2,"command":"evaluate","success":false,"message":"no"}`))
	m, err = refused.Result()
	require.NotNil(t, m)
	var re *ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "debugpy refused evaluate: no", err.Error())

	call, delivered = p.Resolve(response(t, `{"seq":3,"type":"response","request_seq":4,"command":"next","success":true}`))
	assert.False(t, delivered)
	assert.Equal(t, 9, call.Origin)
	call, _ = p.Resolve(response(t, `{"seq":4,"type":"response","request_seq":77,"command":"next","success":true}`))
	assert.Nil(t, call, "a response to nothing")

	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, err = late.Wait(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualError(t, err, "scopes: no response: context deadline exceeded")
	call, _ = p.Resolve(response(t, `{"seq":5,"type":"response","request_seq":5,"command":"scopes","success":true}`))
	assert.Nil(t, call, "a call given up on is forgotten")

	why := errors.New("gone")
	waiting, err := p.Await(6, "pause")
	require.NoError(t, err)
	left := p.Close(why)
	require.Len(t, left, 1)
	assert.Equal(t, "stepIn", left[0].Command)
	_, err = waiting.Result()
	assert.EqualError(t, err, "pause: gone")
	_, err = p.Await(7, "threads")
	assert.ErrorIs(t, err, why)
	assert.Nil(t, p.Close(why), "only the first Close counts")
}
