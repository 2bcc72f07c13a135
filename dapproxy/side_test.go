package dapproxy

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
)

// wire is a side writing into a buffer, and a reader of what it wrote.
type wire struct {
	buf  bytes.Buffer
	side *side
}

func newWire(name string) *wire {
	w := &wire{}
	w.side = newSide(name, dap.NewConn(bytes.NewReader(nil), &w.buf, nil), hclog.NewNullLogger(), nil)
	return w
}

// messages returns what was written, as raw bodies.
func (w *wire) messages(t *testing.T) []string {
	t.Helper()
	c := dap.NewConn(bytes.NewReader(w.buf.Bytes()), io.Discard, nil)
	var out []string
	for {
		m, err := c.Read()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, string(m.Raw))
	}
}

func msg(t *testing.T, raw string) *dap.Message {
	t.Helper()
	m, err := dap.DecodeEnvelope([]byte(raw))
	require.NoError(t, err)
	return m
}

// The proxy's own requests and the adi/ requests it answers itself take no number of the other
// side's sequence: each peer still sees 1, 2, 3, …, and every response goes back under the
// number its request had.
func TestSidesRenumberAroundInjectedRequests(t *testing.T) {
	editor, adapter := newWire("editor"), newWire("adapter")

	// The editor's request 1 goes to the adapter as 1.
	require.NoError(t, adapter.side.forward(msg(t, `{"seq":1,"type":"request","command":"initialize"}`), []byte(`{"seq":1,"type":"request","command":"initialize"}`)))
	// The editor's request 2 is an adi/ request: the proxy answers it, the adapter never sees it.
	require.NoError(t, editor.side.send(response(2, "adi/flt", map[string]any{"text": "x"})))
	// The proxy asks the adapter something of its own: adapter seq 2.
	own, err := adapter.side.request("evaluate", map[string]any{"expression": "1"})
	require.NoError(t, err)
	// The editor's request 3 becomes the adapter's 3.
	require.NoError(t, adapter.side.forward(msg(t, `{"seq":3,"type":"request","command":"threads"}`), []byte(`{"seq":3,"type":"request","command":"threads"}`)))

	// The adapter answers 2 (the proxy's own: delivered, not forwarded) and 3 (the editor's 3).
	p, delivered := adapter.side.resolve(msg(t, `{"seq":10,"type":"response","request_seq":2,"command":"evaluate","success":true}`))
	require.NotNil(t, p)
	require.True(t, delivered)
	select {
	case <-own.Done():
		m, err := own.Result()
		require.NoError(t, err)
		assert.Equal(t, "evaluate", m.Command)
	case <-time.After(time.Second):
		t.Fatal("the proxy's own response was not delivered")
	}
	p, delivered = adapter.side.resolve(msg(t, `{"seq":11,"type":"response","request_seq":3,"command":"threads","success":true}`))
	require.NotNil(t, p)
	require.False(t, delivered)
	assert.Equal(t, 3, p.Origin)
	resp, err := setInt([]byte(`{"seq":11,"type":"response","request_seq":3,"command":"threads","success":true}`), "request_seq", p.Origin)
	require.NoError(t, err)
	require.NoError(t, editor.side.forward(msg(t, string(resp)), resp))

	// A cancel of the editor's request 3 names the adapter's 3; of its adi/ request 2, nothing.
	id, ok := adapter.side.translate(3)
	assert.True(t, ok)
	assert.Equal(t, 3, id)
	_, ok = adapter.side.translate(2)
	assert.False(t, ok)

	assert.Equal(t, []string{
		`{"seq":1,"type":"request","command":"initialize"}`,
		`{"arguments":{"expression":"1"},"command":"evaluate","seq":2,"type":"request"}`,
		`{"seq":3,"type":"request","command":"threads"}`,
	}, adapter.messages(t))
	assert.Equal(t, []string{
		`{"seq":1,"type":"response","request_seq":2,"success":true,"command":"adi/flt","body":{"text":"x"}}`,
		`{"seq":2,"type":"response","request_seq":3,"command":"threads","success":true}`,
	}, editor.messages(t))
}

func TestSideCloseReleasesWaiters(t *testing.T) {
	adapter := newWire("adapter")
	own, err := adapter.side.request("stackTrace", nil)
	require.NoError(t, err)
	require.NoError(t, adapter.side.forward(msg(t, `{"seq":7,"type":"request","command":"next"}`), []byte(`{"seq":7,"type":"request","command":"next"}`)))
	left := adapter.side.close()
	<-own.Done()
	m, err := own.Result()
	assert.Nil(t, m, "the proxy's own waiter is released")
	assert.ErrorContains(t, err, "stackTrace: the adapter: connection closed")
	require.Len(t, left, 1)
	assert.Equal(t, "next", left[0].Command)
	assert.Equal(t, 7, left[0].Origin)
	_, err = adapter.side.request("threads", nil)
	assert.ErrorContains(t, err, "write to the adapter: connection closed")
}

func TestGate(t *testing.T) {
	g := newGate()
	assert.True(t, g.wait(nil, time.Millisecond), "an unheld gate is open")
	g.hold()
	g.hold()
	assert.False(t, g.wait(nil, 10*time.Millisecond))
	g.release()
	assert.False(t, g.wait(nil, 10*time.Millisecond))
	go func() {
		time.Sleep(20 * time.Millisecond)
		g.release()
	}()
	assert.True(t, g.wait(nil, 5*time.Second))
	g.release() // an extra release does not go negative
	g.hold()
	done := make(chan struct{})
	close(done)
	assert.False(t, g.wait(done, 5*time.Second), "a closed done ends the wait")
}

// A cancel names the request by the editor's number; debugpy must get its own number for it.
func TestTranslateCancel(t *testing.T) {
	adapter := newWire("adapter")
	l := &link{be: &backend{side: adapter.side}}
	_, err := adapter.side.request("stackTrace", nil) // the proxy's own request takes adapter seq 1
	require.NoError(t, err)
	require.NoError(t, adapter.side.forward(msg(t, `{"seq":5,"type":"request","command":"variables"}`), []byte(`{"seq":5,"type":"request","command":"variables"}`)))
	assert.Equal(t, `{"seq":6,"type":"request","command":"cancel","arguments":{"requestId":2}}`,
		string(l.translateCancel([]byte(`{"seq":6,"type":"request","command":"cancel","arguments":{"requestId":5}}`))))
	assert.Equal(t, `{"seq":7,"type":"request","command":"cancel","arguments":{"requestId":0}}`,
		string(l.translateCancel([]byte(`{"seq":7,"type":"request","command":"cancel","arguments":{"requestId":4}}`))),
		"a request debugpy never saw (an adi/ request): cancel nothing there")
	progress := `{"seq":8,"type":"request","command":"cancel","arguments":{"progressId":"p1"}}`
	assert.Equal(t, progress, string(l.translateCancel([]byte(progress))))
}

// The proxy prints its messages with errkind.Prefixed, as the CLI does.
func TestOneLine(t *testing.T) {
	assert.Equal(t, "adi: no function \"f\" in the recording", errkind.Prefixed(adi.NotFoundf("adi: no function \"f\" in the recording").Error()))
	assert.Equal(t, "adi: adi/flt: argument \"frame\" is missing", errkind.Prefixed(adi.BadInputf("adi/flt: argument \"frame\" is missing").Error()))
	assert.Equal(t, "adi: a b", errkind.Prefixed(errors.New("a\n  b").Error()))
}
