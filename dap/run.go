package dap

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	godap "github.com/google/go-dap"
	"github.com/hashicorp/go-hclog"
)

// RunOptions says how to start a program under debugpy (StartRun).
type RunOptions struct {
	Adapter AdapterOptions
	// Launch is the launch request's arguments.
	Launch any
	// Exceptions are the exception filters set before Configure. Nil sends no
	// setExceptionBreakpoints request (debugpy's default); an empty list sends one with none.
	Exceptions []string
	// Configure runs between launch and configurationDone (set breakpoints there); may be nil.
	Configure func(context.Context, *Client) error
	// Hooks are what the run's event pump calls.
	Hooks PumpHooks
}

// Run is one program under debugpy: the adapter (and with it debugpy's launcher and the
// debuggee), the launch request, and the event pump. StartRun takes it up to the end of the
// configuration phase; ConfigurationDone lets the program start. Close ends every process of it.
type Run struct {
	*Pump
	Adapter *Adapter
	Client  *Client

	launch *Call // debugpy answers it only after configurationDone
	// detach ends an attached run (AttachRun; Adapter is nil): disconnect, the program runs on.
	detach     func()
	configured atomic.Bool // configurationDone was sent
}

// StartRun starts debugpy's adapter, sends initialize and launch, waits for the initialized
// event, sets the exception filters and runs Configure, without sending configurationDone: the
// program waits in debugpy, not a line of it run. ctx bounds the start; life bounds the run's
// processes (when it ends, they end). On error every process is ended.
func StartRun(ctx, life context.Context, opts RunOptions) (*Run, error) {
	ad, err := StartAdapter(life, opts.Adapter)
	if err != nil {
		return nil, err
	}
	hooks := opts.Hooks
	if hooks.Log == nil {
		hooks.Log = opts.Adapter.Log
	}
	r := &Run{Adapter: ad, Client: ad.Client, Pump: NewPump(ad.Client, hooks)}
	if err := r.configure(ctx, opts); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// configuration is what a run does between debugpy's initialized event and configurationDone:
// the exception filters (nil: none), then the caller's configure (may be nil).
func (c *Client) configuration(exceptions []string, configure func(context.Context, *Client) error) func(context.Context) error {
	return func(ctx context.Context) error {
		if exceptions != nil {
			if err := c.SetExceptionBreakpoints(ctx, exceptions); err != nil {
				return err
			}
		}
		if configure != nil {
			return configure(ctx, c)
		}
		return nil
	}
}

func (r *Run) configure(ctx context.Context, opts RunOptions) error {
	c := r.Client
	if _, err := c.Initialize(ctx); err != nil {
		return fmt.Errorf("initialize debugpy: %w", err)
	}
	call, err := c.toConfiguration(ctx, "launch", opts.Launch, c.configuration(opts.Exceptions, opts.Configure))
	r.launch = call
	return err
}

// ConfigurationDone ends the configuration phase and waits for debugpy's answer to launch (or attach),
// which comes after it: the program has started when it returns.
func (r *Run) ConfigurationDone(ctx context.Context) error {
	r.configured.Store(true)
	if err := r.Client.ConfigurationDone(ctx); err != nil {
		return err
	}
	if _, err := r.launch.Wait(ctx); err != nil {
		return fmt.Errorf("debugpy did not answer launch after configurationDone: %w", err)
	}
	return nil
}

// Close ends every process of the run and the client; the pump ends with the connection. An
// attached run (AttachRun) is detached instead: its program runs on.
func (r *Run) Close() {
	if r.Adapter != nil {
		_ = r.Adapter.Close()
	} else {
		r.detach()
	}
	r.Pump.Close()
}

// PumpHooks are what a Pump calls, on its goroutine, in the order the events came. Each may be
// nil.
type PumpHooks struct {
	// Event sees every event before it is handled.
	Event func(m *Message)
	// Output gets the category and text of each output event.
	Output func(category, text string)
	// Process gets the debuggee's pid when debugpy announces it.
	Process func(pid int)
	// Panicked is called when a hook panicked, after the panic was logged with its stack; the pump
	// then ends (Ended is closed). A panic never leaves the pump's goroutine.
	Panicked func(v any)
	Log      hclog.Logger
}

// Pump reads a debugpy session's events on one goroutine: output, the debuggee's pid, stops, and
// the exit. It ends at the exited or terminated event, or when the connection ends. Stops are
// never dropped: they queue until they are received from Stops (a second goroutine hands them
// over, so that the pump never waits for a reader).
type Pump struct {
	hooks PumpHooks
	ended chan struct{}
	quit  chan struct{}
	once  sync.Once

	stops  chan godap.StoppedEventBody
	qmu    sync.Mutex
	queue  []godap.StoppedEventBody
	queued chan struct{} // signalled when queue grew

	mu     sync.Mutex
	pid    int
	exit   int
	exited bool
}

// NewPump starts the event pump of the session c talks to; it sees every event from now on.
func NewPump(c *Client, hooks PumpHooks) *Pump {
	if hooks.Log == nil {
		hooks.Log = hclog.NewNullLogger()
	}
	p := &Pump{hooks: hooks, ended: make(chan struct{}), quit: make(chan struct{}),
		stops: make(chan godap.StoppedEventBody), queued: make(chan struct{}, 1), exit: -1}
	go p.pump(c.Subscribe())
	go p.deliver()
	return p
}

// Stops delivers the stopped events in the order they came, none dropped.
func (p *Pump) Stops() <-chan godap.StoppedEventBody { return p.stops }

// Ended is closed when the debuggee exited, the session terminated, the connection ended, or a
// hook panicked.
func (p *Pump) Ended() <-chan struct{} { return p.ended }

// Exit returns the exit code of the exited event, and whether one came (-1, false before).
func (p *Pump) Exit() (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit, p.exited
}

// Pid returns the debuggee's process id (0 before debugpy announced it).
func (p *Pump) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid
}

// Close ends the goroutine that hands over stops (stops not received yet are dropped). The pump
// itself ends with the connection.
func (p *Pump) Close() { p.once.Do(func() { close(p.quit) }) }

func (p *Pump) pump(events *Subscription) {
	defer close(p.ended)
	defer events.Close()
	defer func() {
		if v := recover(); v != nil {
			p.hooks.Log.Error("reading debugpy's events panicked; ending the run", "panic", v, "stack", string(debug.Stack()))
			if p.hooks.Panicked != nil {
				p.hooks.Panicked(v)
			}
		}
	}()
	for {
		m, err := events.Next(context.Background())
		if err != nil {
			return
		}
		if p.hooks.Event != nil {
			p.hooks.Event(m)
		}
		switch m.Event {
		case "output":
			var b godap.OutputEventBody
			if m.Body(&b) == nil && p.hooks.Output != nil {
				p.hooks.Output(b.Category, b.Output)
			}
		case "process":
			var b godap.ProcessEventBody
			if m.Body(&b) == nil && b.SystemProcessId > 0 {
				p.mu.Lock()
				p.pid = b.SystemProcessId
				p.mu.Unlock()
				if p.hooks.Process != nil {
					p.hooks.Process(b.SystemProcessId)
				}
			}
		case "stopped":
			var b godap.StoppedEventBody
			if m.Body(&b) == nil {
				p.qmu.Lock()
				p.queue = append(p.queue, b)
				p.qmu.Unlock()
				select {
				case p.queued <- struct{}{}:
				default:
				}
			}
		case "exited":
			var b godap.ExitedEventBody
			if m.Body(&b) == nil {
				p.mu.Lock()
				p.exit, p.exited = b.ExitCode, true
				p.mu.Unlock()
			}
			return
		case "terminated":
			return
		}
	}
}

// deliver hands the queued stops to Stops' receivers, in order, until Close.
func (p *Pump) deliver() {
	for {
		select {
		case <-p.queued:
		case <-p.quit:
			return
		}
		for {
			p.qmu.Lock()
			if len(p.queue) == 0 {
				p.qmu.Unlock()
				break
			}
			b := p.queue[0]
			p.queue = p.queue[1:]
			p.qmu.Unlock()
			select {
			case p.stops <- b:
			case <-p.quit:
				return
			}
		}
	}
}
